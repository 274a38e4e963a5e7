// npm redis-semaphore 5.8.0 (`npm install redis-semaphore@5.8.0 ioredis@5.9.3`) on semsim's node kit:
//   semsim run --variant "driver:node drivers/reference/redis-semaphore.js [KIND]" ...
// KIND: semaphore (Semaphore, the default), mutex (Mutex), redlock-semaphore (RedlockSemaphore),
// redlock-mutex (RedlockMutex): the redlock kinds over every master semsim gives (--masters N).
// What the library does that matters to semsim:
// - acquireAttemptsLimit 1: one attempt per acquire (semsim plans the retries; left to retry for
//   acquireTimeout, the library's clock moves on while it retries, and the skew it tolerates shrinks).
// - The Semaphores score holders by the client's clock (Date.now(), which semsim moves) in a sorted
//   set and drop those older than lockTimeout by the asking client's clock; the Mutexes are SET NX PX
//   with a token (Redis's TTL). The Redlock kinds ask every master and count a quorum.
// - Each grant starts a refresh timer (every 80% of lockTimeout): when a refresh fails the library
//   calls onLockLost, said here unasked (`refresh fail ID lost: ...`). It has no public refresh: a
//   `refresh` asks the library whether it still holds (isAcquired, its timer's word).
// - release stops the timer and removes the token where it is this lock's, only while the library
//   believes it holds: a second release is a no-op of the library's own (nothing sent to Redis).
const kit = require('../node/semsim-driver');
const { Semaphore, Mutex, RedlockSemaphore, RedlockMutex } = require('redis-semaphore');
const Redis = require('ioredis');

const kinds = {
  semaphore: (redis, key, options) => new Semaphore(redis[0], key, kit.limit, options),
  mutex: (redis, key, options) => new Mutex(redis[0], key, options),
  'redlock-semaphore': (redis, key, options) => new RedlockSemaphore(redis, key, kit.limit, options),
  'redlock-mutex': (redis, key, options) => new RedlockMutex(redis, key, options),
};
const kind = process.argv[2] || 'semaphore';
if (!kinds[kind]) throw new Error(`unknown kind ${kind}: ${Object.keys(kinds).join(', ')}`);

// ioredis as users run it (its defaults): a request made while a connection is down waits for the next.
const clients = kit.masters.map(({ host, port }) => new Redis({ host, port }));
for (const c of clients) c.on('error', () => {});  // each failed request is reported where it failed

kit.serve({
  library: 'redis-semaphore',
  start: () => Promise.all(clients.map((c) => new Promise((ready) => c.once('ready', ready)))),
  acquire: async (key, lost) => {
    const lock = kinds[kind](clients, key, { lockTimeout: kit.timeoutMs, acquireAttemptsLimit: 1, onLockLost: lost });
    return (await lock.tryAcquire()) ? kit.ok(lock.identifier, lock) : kit.fail();
  },
  release: async (lock) => { await lock.release(); return true; },  // says nothing: a permit already gone is not told apart
  refresh: async (lock) => (lock.isAcquired ? kit.ok('library timer') : kit.fail('lost')),
  stop: () => Promise.all(clients.map((c) => c.quit())),
});
