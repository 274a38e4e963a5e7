// Small helpers shared by the variants' protocol code: number formatting, reply shapes, where a
// key lives. Nothing here knows about the simulator.
//
// Time unit of every score a variant writes: MICROSECONDS, exactly as Client::now() reads them
// (the run's epoch). The seeds use milliseconds (000, 001) or float seconds (004); scaling the unit
// changes only the resolution, not the algorithm, and microseconds avoid spurious ties between
// acquires that fall into the same millisecond. Redis TTLs (PX, EXPIRE) are given in Redis's units.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "algorithms/api/client.h"
#include "algorithms/api/redis.h"
#include "algorithms/api/task.h"

namespace semsim {

inline std::string num(long long v) { return std::to_string(v); }

// cmd("ZADD", key, num(score), member) builds one command; cmds(cmd(...), ...) a batch.
// Why not braced lists: GCC 12 rejects a braced initializer list inside a co_await expression
// ("array used as initializer"), so `co_await redis.call({"ZREM", k, id})` does not compile.
template <typename... Args>
Command cmd(Args&&... args) {
  Command c;
  c.reserve(sizeof...(args));
  (c.emplace_back(std::forward<Args>(args)), ...);
  return c;
}
template <typename... Commands>
std::vector<Command> cmds(Commands&&... commands) {
  std::vector<Command> v;
  v.reserve(sizeof...(commands));
  (v.push_back(std::forward<Commands>(commands)), ...);
  return v;
}

// MULTI/EXEC when `atomic`, else a plain pipeline: the one switch between seed 004 (pipeline(True))
// and seed 001 (ioredis pipeline without multi).
inline Task<std::vector<Reply>> batch(Redis& redis, bool atomic, std::vector<Command> commands) {
  return atomic ? redis.transaction(std::move(commands)) : redis.pipeline(std::move(commands));
}

// A Lua script called the way Redis clients call one: EVALSHA with the SHA1 that SCRIPT LOAD gave.
// When Redis answers NOSCRIPT (it restarted, failed over, or someone ran SCRIPT FLUSH), the script
// is loaded again, its new SHA1 kept in `sha`, and called once more. The one place that does
// this, for the built-in variants and users' scripts alike. A failed reload throws ReplyError;
// any other reply, error or not, is the caller's to read. `sha` empty: not loaded yet. `keys` and
// `args` are read until it returns: co_await it at once.
Task<Reply> evalsha(Redis& redis, std::string_view source, std::string& sha, std::span<const std::string> keys,
                    std::span<const std::string> args);

// The elements of an array reply; an error reply where an array was needed throws ReplyError.
const std::vector<Reply>& elements_of(const Reply& reply);
// A ZRANK reply as what it is: the member's rank, or nullopt when the member is not in the set
// (nil). A variant says what a missing rank means where it reads one. An error reply throws
// ReplyError.
std::optional<long long> rank_of(const Reply& reply);
// The text of a string/status reply; an error reply throws ReplyError.
const std::string& text_of(const Reply& reply);

// Everything of a semaphore's name up to and including its last ':' ("semsim:run7:sem" ->
// "semsim:run7:"), or "" if it has none. Keys the seeds make global ('lock:' + name,
// 'semaphore:count') are put under this prefix so that a run (or a test) still owns all its keys.
std::string run_prefix(const std::string& name);
// The semaphore's own segment of its name ("semsim:run7:sem" -> "sem").
std::string own_segment(const std::string& name);

// Microseconds -> whole milliseconds / seconds, rounded up (a TTL must not be shorter than asked).
long long ceil_ms(Micros d);
long long ceil_seconds(Micros d);

}  // namespace semsim
