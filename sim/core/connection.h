// The simulator's one way to Redis: requests go out as pipelines on one connection, replies come
// back in order. sim/redis/redis_link.h implements it over hiredis; the simulation core knows
// nothing else of Redis, so it builds and is tested without hiredis.
#pragma once

#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <vector>

#include "algorithms/api/redis.h"

namespace semsim {

class Connection {
 public:
  using Done = std::function<void(std::vector<Reply> replies, std::exception_ptr error)>;
  virtual ~Connection() = default;

  // Queues the commands, written together; `done` gets one reply per command, in order, or a
  // LinkError if the connection fails first. Error replies are values, not exceptions.
  virtual void submit(std::vector<Command> commands, Done done) = 0;
  // Runs the I/O until every submitted request is answered, calling `slow` once (if given) when
  // requests are still unanswered after `slow_after` (a blocked WAIT that nothing will end: the
  // caller unblocks it). Throws LinkError on `timeout` or a dropped connection; pending `done`s
  // get the error too.
  virtual void flush(std::chrono::milliseconds timeout, std::chrono::milliseconds slow_after,
                     const std::function<void()>& slow) = 0;
  // Redis commands sent so far.
  virtual std::uint64_t commands_sent() const = 0;
  // flush() calls that had requests to wait for: one pipeline out, its replies back.
  virtual std::uint64_t round_trips() const = 0;

  void flush(std::chrono::milliseconds timeout = std::chrono::seconds(30)) { flush(timeout, timeout, {}); }
  // submit + flush; throws LinkError.
  std::vector<Reply> execute(std::vector<Command> commands,
                             std::chrono::milliseconds timeout = std::chrono::seconds(30));
};

}  // namespace semsim
