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
  // Writes what is queued without waiting for replies: Redis works on it while the caller goes
  // on, and a later flush reads the replies.
  virtual void send_queued() = 0;
  // Runs the I/O until `answered()` holds (if given) or every submitted request is answered,
  // calling `slow` (if given) each time no reply comes for `slow_after` (a blocked WAIT that
  // nothing will end: the caller unblocks it; several may be in flight). Throws LinkTimeout when
  // no reply comes for `timeout`, LinkError when the connection drops; pending `done`s get the
  // error too.
  virtual void flush_until(const std::function<bool()>& answered, std::chrono::milliseconds timeout,
                           std::chrono::milliseconds slow_after, const std::function<void()>& slow) = 0;
  // Whether every request submitted so far has its replies (nothing runs on Redis for us).
  virtual bool all_answered() const = 0;
  // Redis commands sent so far.
  virtual std::uint64_t commands_sent() const = 0;
  // Pipelines sent: requests submitted together, then written, then answered.
  virtual std::uint64_t round_trips() const = 0;

  void flush(std::chrono::milliseconds timeout, std::chrono::milliseconds slow_after, const std::function<void()>& slow) {
    flush_until({}, timeout, slow_after, slow);
  }
  void flush(std::chrono::milliseconds timeout = std::chrono::seconds(30)) { flush(timeout, timeout, {}); }
  // submit + flush; throws LinkError.
  std::vector<Reply> execute(std::vector<Command> commands,
                             std::chrono::milliseconds timeout = std::chrono::seconds(30));
};

}  // namespace semsim
