// One async connection to Redis over hiredis's async API and a small poll(2) loop.
// Requests are queued with submit(); flush() runs the I/O until every queued request has its
// replies (flush_until: until one has). The simulator keeps several pipelines in flight.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sim/core/connection.h"
#include "sim/redis/redis_target.h"

namespace semsim {

class RedisLink final : public Connection {
 public:
  // Connects (AUTH and SELECT as the target says). Throws LinkError with a clear message.
  // `tolerated_interrupts`: see tolerate_interrupts.
  static std::unique_ptr<RedisLink> connect(const RedisTarget& target,
                                            std::chrono::milliseconds timeout = std::chrono::seconds(5),
                                            int tolerated_interrupts = 0);
  ~RedisLink();
  RedisLink(const RedisLink&) = delete;
  RedisLink& operator=(const RedisLink&) = delete;

  void submit(std::vector<Command> commands, Done done) override;
  void send_queued() override;
  void flush_until(const std::function<bool()>& answered, std::chrono::milliseconds timeout,
                   std::chrono::milliseconds slow_after, const std::function<void()>& slow) override;
  bool all_answered() const override;
  std::uint64_t commands_sent() const override;
  std::uint64_t round_trips() const override;
  std::size_t pending() const;
  // I/O gives up when interrupt_count() exceeds this (0: at the first Ctrl-C). Cleanup after an
  // interrupt raises it, so that only a second Ctrl-C stops the cleanup.
  void tolerate_interrupts(int count);
  // While waiting for a reply the link asks again at once for a while before it sleeps (replies
  // come back within a fraction of a millisecond, and sleeping costs more). Not when Redis runs on
  // the same core as this thread (shared_core.h): there asking again only keeps Redis waiting.
  void spin_while_waiting(bool spin);
  // The safety net's expiry (key_safety_net.h): at the end of each pipeline, in the same write,
  // every word of its requests that starts with `prefix` (the command names aside) gets PEXPIREAT
  // WORD D NX, once, D the deadline's value then (0: not yet). So a key the pipeline creates or
  // rewrites has an expiry before the next pipeline runs, and a process killed at any moment cannot
  // leave it without one. These commands are the harness's: not counted in commands_sent(), their
  // replies dropped. Null: off.
  void give_keys_expiry(std::string prefix, std::shared_ptr<const std::atomic<std::int64_t>> deadline);

  struct Impl;

 private:
  explicit RedisLink(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The server's version: HELLO 2 (no @dangerous command needed), else INFO server.
std::string server_version(RedisLink& link);
// Deletes every key that starts with `prefix` (SCAN MATCH + UNLINK; glob characters in the
// prefix are escaped). Returns how many were deleted. Touches nothing else.
std::uint64_t delete_keys_with_prefix(RedisLink& link, const std::string& prefix);
// The same for every key whose name holds `text` anywhere (a driver's library may put its own
// prefix before the run's key: redis-semaphore's "semaphore:").
std::uint64_t delete_keys_containing(RedisLink& link, const std::string& text);
// Stops a Lua script that keeps the server busy: SCRIPT KILL on a connection of its own.
struct ScriptKill {
  bool killed = false;
  // Redis's answer: OK; NOTBUSY (nothing was running: the server was slow, not busy); UNKILLABLE
  // (the script has written: only SHUTDOWN NOSAVE stops it); or why it could not be asked.
  std::string answer;
};
ScriptKill kill_running_script(const RedisTarget& target);
// Calls `page` with the keys of each non-empty SCAN page under `prefix` (glob characters escaped).
void scan_keys_with_prefix(RedisLink& link, const std::string& prefix,
                           const std::function<void(const std::vector<std::string>& keys)>& page);
// The same for the keys that hold `text` anywhere (a library's own prefix before the run's).
void scan_keys_containing(RedisLink& link, const std::string& text,
                          const std::function<void(const std::vector<std::string>& keys)>& page);
// Whether any key lies under `prefix` (SCAN until the first).
bool keys_exist_with_prefix(RedisLink& link, const std::string& prefix);

}  // namespace semsim
