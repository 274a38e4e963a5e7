-- acquire, BROKEN ON PURPOSE: examples/lua-script/acquire.lua with `<=` where `<` belongs, so
-- a client is admitted when ZCARD == limit: limit + 1 holders.
-- KEYS[1] holders ZSET (id -> expiry, µs on the server clock), KEYS[2] fencing counter;
-- ARGV: id, limit, timeout µs, server now µs or "" (then the script reads TIME).
-- Reply: the fencing token (> 0) when granted, 0 when refused.
local function server_now()
  if ARGV[4] ~= '' then return tonumber(ARGV[4]) end
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local now = server_now()
-- a holder whose expiry has come is gone
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', string.format('%.0f', now))
if redis.call('ZCARD', KEYS[1]) <= tonumber(ARGV[2]) then  -- BUG: should be <
  local token = redis.call('INCR', KEYS[2])
  redis.call('ZADD', KEYS[1], string.format('%.0f', now + tonumber(ARGV[3])), ARGV[1])
  return token
end
return 0
