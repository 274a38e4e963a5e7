// What a driver's Lua may do on a user's Redis (algorithms/api/lua_policy.h): the published
// libraries' scripts pass; every way out of the run's keys or into an admin command is refused,
// naming the line.
#include "algorithms/api/lua_policy.h"

#include <gtest/gtest.h>

namespace semsim {
namespace {

TEST(LuaPolicy, ThePublishedLibrariesScriptsPass) {
  // npm redlock 4/5 (acquire, release), redis-semaphore's acquire, redis-py's extend, as published.
  for (const char* script : {
           "-- Return 0 if an entry already exists.\n  for i, key in ipairs(KEYS) do\n    if redis.call(\"exists\", key) == 1 then\n"
           "      return 0\n    end\n  end\n  for i, key in ipairs(KEYS) do\n    redis.call(\"set\", key, ARGV[1], \"PX\", ARGV[2])\n"
           "  end\n  return #KEYS\n",
           "local count = 0\n  for i, key in ipairs(KEYS) do\n    if redis.call(\"get\", key) == ARGV[1] then\n"
           "      redis.pcall(\"del\", key)\n      count = count + 1\n    end\n  end\n  return count\n",
           "local key = KEYS[1]\n  local limit = tonumber(ARGV[1])\n  local identifier = ARGV[2]\n  local lockTimeout = tonumber(ARGV[3])\n"
           "  local now = tonumber(ARGV[4])\n  local expiredTimestamp = now - lockTimeout\n\n"
           "  redis.call('zremrangebyscore', key, '-inf', expiredTimestamp)\n\n  if redis.call('zcard', key) < limit then\n"
           "    redis.call('zadd', key, now, identifier)\n    redis.call('pexpire', key, lockTimeout)\n    return 1\n  else\n    return 0\n  end\n",
           "\n        local token = redis.call('get', KEYS[1])\n        if not token or token ~= ARGV[1] then\n            return 0\n"
           "        end\n        local expiration = redis.call('pttl', KEYS[1])\n        if not expiration then\n            expiration = 0\n"
           "        end\n        if expiration < 0 then\n            return 0\n        end\n\n        local newttl = ARGV[2]\n"
           "        if ARGV[3] == \"0\" then\n            newttl = ARGV[2] + expiration\n        end\n"
           "        redis.call('pexpire', KEYS[1], newttl)\n        return 1\n    ",
           "--[[ a long comment: redis.call('FLUSHALL') ]] return redis.call('TIME')[1] .. [==[ ]] redis ]==]"})
    EXPECT_EQ(refused_script(script), "") << script;
}

TEST(LuaPolicy, EveryWayOutOfTheRunsKeysOrIntoAnAdminCommandIsRefusedNamingTheLine) {
  const std::pair<const char*, const char*> cases[] = {
      {"return redis.call('FLUSHALL')", "line 1: calls FLUSHALL is a dangerous command"},
      {"\nredis.call('CONFIG', 'GET', 'requirepass')", "line 2: calls CONFIG GET is an admin command"},
      {"redis.pcall('SELECT', tonumber(ARGV[1]))", "calls SELECT reaches another database"},
      {"local c = ARGV[1]\nreturn redis.call(c, KEYS[1])", "line 2: redis.call with a command name that is not a string literal"},
      {"return redis.call('DEL', 'app:z')", "a key that is not KEYS[i]"},
      {"return redis.call('DEL', KEYS[1] .. ':x')", "a key that is not KEYS[i]"},
      {"return redis.call('DEL', ARGV[1])", "a key that is not KEYS[i]"},
      {"KEYS[1] = 'app:z'\nreturn redis.call('DEL', KEYS[1])", "line 1: assigns to KEYS"},
      {"local KEYS = {'app:z'}\nreturn redis.call('DEL', KEYS[1])", "uses KEYS otherwise"},
      {"table.insert(KEYS, 'app:z')", "uses KEYS otherwise"},
      {"local k = KEYS[1]\nk = 'app:z'\nreturn redis.call('DEL', k)", "line 3: gives DEL a key that is not KEYS[i]"},
      {"return redis.call('DEL', unpack(KEYS))", "a last argument that may be several words"},
      {"return redis.call('MSET', KEYS[1], 'x', f())", "a last argument that may be several words"},
      {"local r = redis\nreturn r.call('FLUSHALL')", "line 1: uses redis otherwise"},
      {"return redis['call']('FLUSHALL')", "uses redis otherwise"},
      {"return pcall(redis.call, 'FLUSHALL')", "uses redis.call otherwise than calling it"},
      {"return redis.call 'FLUSHALL'", "uses redis.call otherwise than calling it"},
      {"return server.call('SHUTDOWN')", "calls SHUTDOWN is an admin command"},
      {"return _G['re' .. 'dis'].call('FLUSHALL')", "uses _G"},
      {"return loadstring('return redis.call(\"FLUSHALL\")')()", "uses loadstring"},
      {"return getfenv(0).redis", "uses getfenv"},
      {"return redis.call('OBJECT', 'ENCODING', 'app:z')", "a key that is not KEYS[i]"},
      {"return redis.call('EVAL', 'return 1', 0)", "calls EVAL, a script from a script"},
      {"return redis.call('get', KEYS[1]", "an unclosed bracket"},
      {"return 'unfinished", "line 1: an unfinished string"},
      {"local ipairs = function(t) return next, {'app:z'} end\nfor i, k in ipairs(KEYS) do redis.call('DEL', k) end",
       "line 1: uses ipairs otherwise than calling it"},
      {"local function tonumber(t) return 'app:z', 'x' end\nreturn redis.call('MSET', KEYS[1], tonumber(1))",
       "line 1: uses tonumber otherwise than calling it"},
  };
  for (const auto& [script, why] : cases) {
    const std::string refused = refused_script(script);
    EXPECT_NE(refused.find(why), std::string::npos) << script << "\n  -> " << (refused.empty() ? "(passed)" : refused);
  }
}

TEST(LuaPolicy, Sha1NamesAScriptAsRedisDoes) {
  EXPECT_EQ(sha1_hex(""), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
  EXPECT_EQ(sha1_hex("abc"), "a9993e364706816aba3e25717850c26c9cd0d89d");
  EXPECT_EQ(sha1_hex("return 1"), "e0e1f9fabfc9d4800c877a703b823ac0578ff8db");
}

}  // namespace
}  // namespace semsim
