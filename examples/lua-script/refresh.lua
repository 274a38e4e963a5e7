-- refresh: the built-in `lua` variant's refresh script, unchanged.
-- KEYS[1] holders ZSET; ARGV: id, timeout µs, server now µs or "". 1 extended, 0 lost (and removed).
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
