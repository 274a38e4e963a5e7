-- Delete the key only if it still holds our value (redis.io "Distributed locks with Redis").
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
