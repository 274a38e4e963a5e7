-- A counting semaphore on the caller's clock: drop entries older than the lease, admit while
-- there is room. One per master; a permit is held where a majority admitted it.
local now, timeout, limit = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - timeout)
if redis.call('ZCARD', KEYS[1]) < limit then
  redis.call('ZADD', KEYS[1], now, ARGV[1])
  return 1
end
return 0
