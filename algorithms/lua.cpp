// Variant `lua`: not in the seeds. Each operation is one script, so it runs atomically inside
// Redis, and its expiry is judged by one clock, the server's, never a client's.
//
// Keys: <name> ZSET id -> expiry time in µs on the server clock; <name>:fence STRING, the fencing
// counter (INCR'd on every grant, returned as Grant::fencing_token, strictly increasing).
// Time: µs. If Client::server_now() has a value (the simulator's virtual mode) it is passed as
// ARGV; it is read when the request is built, i.e. no later than the script runs, so a lease is
// recorded as ending no later than (true start + timeout): conservative. Otherwise the script reads
// redis.call('TIME') (allowed before writes: Redis >= 5 replicates scripts by effects).
// Scripts are loaded once in prepare() (SCRIPT LOAD) and called with EVALSHA; a NOSCRIPT reply
// (server restarted or SCRIPT FLUSH) loads the script again and retries once.
#include "algorithms/lua.h"

#include <array>

#include "algorithms/api/protocol.h"

namespace semsim {
namespace {

// KEYS[1] holders ZSET, KEYS[2] fence counter; ARGV: id, limit, timeout µs, now µs or "".
constexpr const char* kAcquireLua = R"lua(
local function server_now()
  if ARGV[4] ~= '' then return tonumber(ARGV[4]) end
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local now = server_now()
-- a holder whose expiry has come is gone
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', string.format('%.0f', now))
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[2]) then
  local token = redis.call('INCR', KEYS[2])
  redis.call('ZADD', KEYS[1], string.format('%.0f', now + tonumber(ARGV[3])), ARGV[1])
  return token
end
return 0
)lua";

// KEYS[1] holders ZSET; ARGV: id, timeout µs, now µs or "". 1 extended, 0 lost (and removed).
constexpr const char* kRefreshLua = R"lua(
local function server_now()
  if ARGV[3] ~= '' then return tonumber(ARGV[3]) end
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local now = server_now()
local expiry = redis.call('ZSCORE', KEYS[1], ARGV[1])
-- expired counts as lost even before someone's acquire swept it: the lease was over
if not expiry or tonumber(expiry) <= now then
  redis.call('ZREM', KEYS[1], ARGV[1])
  return 0
end
redis.call('ZADD', KEYS[1], 'XX', string.format('%.0f', now + tonumber(ARGV[2])), ARGV[1])
return 1
)lua";

// KEYS[1] holders ZSET; ARGV: id. 1 if it was there.
constexpr const char* kReleaseLua = R"lua(
return redis.call('ZREM', KEYS[1], ARGV[1])
)lua";

}  // namespace

LuaSemaphore::LuaSemaphore(SemaphoreConfig config)
    : config_(std::move(config)), fence_(config_.name + ":fence"), holders_key_{config_.name},
      acquire_keys_{config_.name, fence_}, limit_arg_(num(config_.limit)), timeout_arg_(num(config_.timeout.count())),
      acquire_{kAcquireLua, {}}, refresh_{kRefreshLua, {}}, release_{kReleaseLua, {}} {}

Task<void> LuaSemaphore::prepare(Client& client) {
  for (Script* script : {&acquire_, &refresh_, &release_}) {
    Reply loaded = co_await client.redis().call(cmd("SCRIPT", "LOAD", script->source));
    if (loaded.is_error())
      throw SetupError("variant lua: SCRIPT LOAD failed: " + loaded.text);
    script->sha = loaded.text;
  }
}

std::string LuaSemaphore::server_time_arg(const Client& client) const {
  auto now = client.server_now();
  return now ? num(now->count()) : std::string{};
}

// Not a coroutine itself: evalsha's frame is the only one a call needs.
Task<Reply> LuaSemaphore::run(Client& client, Script& script, std::span<const std::string> args) {
  const std::vector<std::string>& keys = &script == &acquire_ ? acquire_keys_ : holders_key_;
  return evalsha(client.redis(), script.source, script.sha, keys, args);
}

Task<std::optional<Grant>> LuaSemaphore::acquire(Client& client) {
  std::array<std::string, 4> args{client.new_identifier(), limit_arg_, timeout_arg_, server_time_arg(client)};
  const long long token = integer_of(co_await run(client, acquire_, args));
  if (token > 0) co_return Grant{std::move(args[0]), token};  // args[0]: the identifier
  co_return std::nullopt;
}

Task<bool> LuaSemaphore::refresh(Client& client, std::string identifier) {
  std::array<std::string, 3> args{std::move(identifier), timeout_arg_, server_time_arg(client)};
  co_return integer_of(co_await run(client, refresh_, args)) == 1;
}

Task<bool> LuaSemaphore::release(Client& client, std::string identifier) {
  std::array<std::string, 1> args{std::move(identifier)};
  co_return integer_of(co_await run(client, release_, args)) == 1;
}

VariantInfo lua_variant() {
  // Every lease lives in server time (the simulator's true time in virtual mode): a grant's
  // promise can be checked against the history, and a free permit goes to whoever asks.
  return {.name = "lua", .source = "ours: one atomic script on the server's clock, with fencing tokens",
          .clock = ClockBasis::redis_time, .preconditions = lease_promise(), .liveness = true,
          .lease_honesty = true, .compared = true,
          .make = [](SemaphoreConfig c) -> std::unique_ptr<Semaphore> {
            return std::make_unique<LuaSemaphore>(std::move(c));
          }};
}

}  // namespace semsim
