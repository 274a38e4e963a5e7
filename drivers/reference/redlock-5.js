// npm redlock 5.0.0-beta.2 (`npm install redlock@5.0.0-beta.2 ioredis@5.9.3`), or its fork
// @sesamecare-oss/redlock 1.4.0 (same API: argument `@sesamecare-oss/redlock`), on semsim's node kit:
// Redlock over every master semsim gives it (--masters N), one ioredis client per master.
//   semsim run --variant "driver:node drivers/reference/redlock-5.js [PACKAGE]" --masters 3 --limit 1 ...
// What the library does that matters to semsim:
// - acquire([key], ttl) runs its Lua script on every master and resolves as soon as a quorum said
//   yes (or one said no); it computes the lock's expiration (start + ttl - drift, by Date.now()) but
//   never compares it with the time: a quorum reached after the lease is over is still a grant.
//   retryCount 0: one attempt per acquire (semsim plans the retries). No timer of its own.
// - release deletes the key where the value is this lock's (token check), resolving at a quorum; it
//   sets the lock's expiration to 0 first. Without a quorum: ExecutionError.
// - extend refuses a lock its own clock says has expired (so, one released) before asking a master,
//   else re-sets the key where the value is its own and returns a new Lock (the ID's handle here).
const kit = require('../node/semsim-driver');
const Redis = require('ioredis');

const library = process.argv[2] || 'redlock';
const module_ = require(library);
const Redlock = module_.Redlock || module_.default;  // the fork exports it by name, redlock 5 as default
const { ExecutionError, ResourceLockedError } = module_;

// ioredis as users run it (its defaults): a request made while a connection is down waits for the next.
const clients = kit.masters.map(({ host, port }) => new Redis({ host, port }));
for (const c of clients) c.on('error', () => {});  // a failed request counts as a vote against
const redlock = new Redlock(clients, { retryCount: 0 });

kit.serve({
  library,
  start: () => Promise.all(clients.map((c) => new Promise((ready) => c.once('ready', ready)))),
  acquire: async (key) => {
    const lock = await redlock.acquire([key], kit.timeoutMs);
    return kit.ok(lock.value, lock);
  },
  release: async (lock) => { await lock.release(); return true; },
  refresh: async (lock) => {
    const extended = await lock.extend(kit.timeoutMs);
    return kit.ok(`until=${extended.expiration}`, extended);
  },
  // No quorum, a key held by another, or expired by its own clock: "no".
  refused: (e) => e instanceof ExecutionError || e instanceof ResourceLockedError,
  stop: () => Promise.all(clients.map((c) => c.quit())),
});
