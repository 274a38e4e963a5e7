// Locks of seed 004 (004_e88c3953a9612bee.txt), section "分布式锁": acquire_lock,
// acquire_lock_with_timeout; release_lock replaced by a compare-and-delete script.
//
// Key: <prefix>lock:<own segment> STRING = the holder's identifier (TTL in seconds, or none).
#include "algorithms/lock.h"

#include "algorithms/api/protocol.h"

namespace semsim {
namespace {

constexpr Micros kRetryEvery{1000};  // the seeds' time.sleep(.001)

// Compare-and-delete, atomic inside Redis. The seed's release_lock WATCHes the key, GETs it and
// deletes it in a MULTI; WATCH is per connection, and the simulator multiplexes every client over
// shared connections, so one client's WATCH would be broken (or satisfied) by another's commands.
// A script gives the same "delete only if still mine" in one atomic step. (The seed's version is
// also broken as printed: it rebinds lockname to 'locked:'+... and so watches the wrong key.)
constexpr const char* kReleaseLockLua = R"lua(
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('del', KEYS[1])
else
  return 0
end
)lua";

}  // namespace

std::string lock_key(const std::string& lockname) {
  return run_prefix(lockname) + "lock:" + own_segment(lockname);
}

Task<std::optional<std::string>> acquire_lock(Client& client, std::string lockname,
                                              Micros acquire_timeout) {
  std::string identifier = client.new_identifier();
  const std::string key = lock_key(lockname);
  const Micros end = client.now() + acquire_timeout;
  // Retry until the acquire timeout, by this client's clock.
  while (client.now() < end) {
    if (integer_of(co_await client.redis().call(cmd("SETNX", key, identifier))) == 1)
      co_return identifier;
    co_await client.sleep(kRetryEvery);
  }
  co_return std::nullopt;
}

Task<std::optional<std::string>> acquire_lock_with_timeout(Client& client, std::string lockname,
                                                           Micros acquire_timeout,
                                                           Micros lock_timeout, LockTtlUnit unit) {
  std::string identifier = client.new_identifier();
  const std::string key = lock_key(lockname);
  const bool ms = unit == LockTtlUnit::milliseconds;
  // lock_timeout = int(math.ceil(lock_timeout)) in seconds.
  const std::string ttl = num(ms ? ceil_ms(lock_timeout) : ceil_seconds(lock_timeout));
  const char* expire = ms ? "PEXPIRE" : "EXPIRE";
  const Micros end = client.now() + acquire_timeout;
  while (client.now() < end) {
    if (integer_of(co_await client.redis().call(cmd("SETNX", key, identifier))) == 1) {
      // Not atomic with the SETNX, as in the seed: a holder dying right here leaves a lock with
      // no TTL, which the branch below repairs.
      co_await client.redis().call(cmd(expire, key, ttl));
      co_return identifier;
    }
    // `elif not conn.ttl(lockname): conn.expire(...)`. With the redis-py 2.x the book used, ttl()
    // maps every reply <= 0 (no TTL: -1, gone: -2, under a second: 0) to None, so "not ttl" is
    // "ttl <= 0". The seed's call drops the key name (conn.expire(lock_timeout)), a TypeError in
    // Python; we pass the key, as the book intends.
    if (integer_of(co_await client.redis().call(cmd(ms ? "PTTL" : "TTL", key))) <= 0)
      co_await client.redis().call(cmd(expire, key, ttl));
    co_await client.sleep(kRetryEvery);
  }
  co_return std::nullopt;
}

Task<bool> release_lock(Client& client, std::string lockname, std::string identifier) {
  auto reply = co_await client.redis().call(
      cmd("EVAL", kReleaseLockLua, "1", lock_key(lockname), identifier));
  co_return integer_of(reply) == 1;
}

}  // namespace semsim
