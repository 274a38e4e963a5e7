-- A client-clock lease semaphore, in the style many libraries use: holders in a ZSET scored by
-- when their lease ends, on the calling client's clock.
-- KEYS[1] holders; ARGV[1] id, ARGV[2] now (ms), ARGV[3] lease end (ms), ARGV[4] limit
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[4]) then
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
  return 1
end
-- refused: say when the first lease ends, as a string that changes every time
local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return 'retry-after:' .. first[2]
