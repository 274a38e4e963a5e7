// npm redlock 4.2.0 (`npm install redlock@4.2.0 ioredis@5.9.3`) on semsim's node kit: Redlock over
// every master semsim gives it (--masters N), one ioredis client per master.
//   semsim run --variant "driver:node drivers/reference/redlock-4.js" --masters 3 --limit 1 ...
// What the library does that matters to semsim:
// - lock(key, ttl) asks every master (SET NX PX in Lua) and waits for every answer: it has no master
//   timeout, and ioredis's defaults have no command timeout, so a master the client is partitioned
//   from holds the acquire until it heals. A quorum counts only while its validity (start + ttl -
//   drift, by Date.now(), the clock semsim moves) is ahead; else it unlocks what it got.
//   retryCount 0: one attempt per acquire (semsim plans the retries). No timer of its own.
// - unlock deletes the key on each master where the value is this lock's (a token check) and says
//   LockError without a quorum of them; it sets the lock's expiration to 0 first, so that a later
//   extend of it is refused by the library (by its own clock) before any master is asked.
// - extend refuses a lock its own clock says has expired, else re-sets it where the value is its own.
const kit = require('../node/semsim-driver');
const Redlock = require('redlock');
const Redis = require('ioredis');

// ioredis as users run it (its defaults): a request made while a connection is down waits for the next.
const clients = kit.masters.map(({ host, port }) => new Redis({ host, port }));
for (const c of clients) c.on('error', () => {});  // a failed request counts as no vote
const redlock = new Redlock(clients, { retryCount: 0 });
redlock.on('clientError', () => {});

kit.serve({
  library: 'redlock',
  start: () => Promise.all(clients.map((c) => new Promise((ready) => c.once('ready', ready)))),
  acquire: async (key) => {
    const lock = await redlock.lock(key, kit.timeoutMs);
    return kit.ok(lock.value, lock);
  },
  release: async (lock) => { await lock.unlock(); return true; },
  refresh: async (lock) => kit.ok(`until=${(await lock.extend(kit.timeoutMs)).expiration}`),
  refused: (e) => e instanceof Redlock.LockError,  // no quorum, or expired by its own clock: "no"
  stop: () => Promise.all(clients.map((c) => c.quit())),
});
