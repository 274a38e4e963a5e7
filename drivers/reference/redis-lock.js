// npm redis-lock 1.0.0 on node-redis v4 (`npm install redis-lock@1.0.0 redis@4`), on semsim's node kit.
//   semsim run --variant "driver:node drivers/reference/redis-lock.js" --limit 1 ...
// What the library does that matters to semsim:
// - lock(name, timeout) is SET lock.NAME <its clock + timeout + 1> PX timeout NX, retried every 50 ms
//   until it succeeds (an error too is retried): it cannot make one attempt, so an acquire waits as
//   long as the library does (semsim's --retries add nothing).
// - Its done() is a DEL with no token, sent when the holder's own clock (Date.now(), which semsim
//   moves) says the lease is not over; else it does nothing and says undefined. A late or second
//   release deletes whoever holds the key then.
// - No refresh, no timer: a `refresh` is answered `fail` (not supported), the library is not asked.
const kit = require('../node/semsim-driver');
const { createClient } = require('redis');
const redisLock = require('redis-lock');

const redis = createClient({ socket: kit.masters[0] });
redis.on('error', () => {});  // each failed request is reported (or retried) where it failed
const lock = redisLock(redis);

kit.serve({
  library: 'redis-lock',
  start: () => redis.connect(),
  acquire: async (key) => kit.ok(`lock.${key}`, await lock(key, kit.timeoutMs)),
  release: async (done) => {
    const deleted = await done();
    return deleted === undefined ? kit.fail('lease over by its own clock: nothing sent') : kit.ok(`del=${deleted}`);
  },
  stop: () => redis.quit(),
});
