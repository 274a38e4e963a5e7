-- A permit counter with per-permit leases on the server's clock: the count comes from the setup
-- step, each permit is a lease in a ZSET scored by when it ends.
-- KEYS[1] leases, KEYS[2] count; ARGV[1] id, ARGV[2] lease length (ms)
local permits = tonumber(redis.call('GET', KEYS[2]))
if permits == nil then return redis.error_reply('not initialised: run the setup step') end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) < permits then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
  return 1
end
return 0
