-- release: the built-in `lua` variant's release script, unchanged.
-- KEYS[1] holders ZSET; ARGV: id. 1 if it was there, 0 if it was already gone.
return redis.call('ZREM', KEYS[1], ARGV[1])
