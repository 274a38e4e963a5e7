-- The permit count, set once before use (as libraries that "initialise" a semaphore do).
-- KEYS[1] the count; ARGV[1] permits
redis.call('SET', KEYS[1], ARGV[1])
return 1
