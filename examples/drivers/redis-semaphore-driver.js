// A semsim driver around npm redis-semaphore (5.8.0): its Semaphore, or its Mutex.
//   node redis-semaphore-driver.js [semaphore|mutex]        (needs redis-semaphore and ioredis)
// docs/drivers.md describes the protocol. The library refreshes its own permits on a timer
// (refreshInterval, 80% of lockTimeout): semsim's `refresh` asks whether the library still holds
// (isAcquired), and the library's own word that it lost one (onLockLost) is said unasked.
const { Semaphore, Mutex } = require('redis-semaphore');
const Redis = require('ioredis');
const readline = require('readline');

const kind = process.argv[2] || 'semaphore';
if (kind !== 'semaphore' && kind !== 'mutex') throw new Error(`unknown kind ${kind}: semaphore or mutex`);
const [host, port] = process.env.SEMSIM_REDIS.split(' ')[0].split(':');
const key = process.env.SEMSIM_KEY;
const limit = Number(process.env.SEMSIM_LIMIT);
const lockTimeout = Number(process.env.SEMSIM_TIMEOUT_MS);
// ioredis as users run it (its defaults): a request made while the connection is down waits for
// the next one; one that fails for good is the driver's `info`.
const redis = new Redis({ host, port: Number(port) });
const held = new Map();
const say = (op, phase, id, detail = '') =>
  process.stdout.write(`${process.hrtime.bigint()} ${Date.now()} ${op} ${phase} ${id} ${detail}\n`);

async function serve(op, id) {
  say(op, 'invoke', id);
  try {
    if (op === 'acquire') {
      // One attempt per acquire, as semsim's model makes one: semsim plans the retries (--retries,
      // --retry-delay). (Left to retry for acquireTimeout, the library's clock moves on while it
      // retries, and the skew it tolerates shrinks by that much.)
      const options = {
        lockTimeout, acquireAttemptsLimit: 1,
        onLockLost: () => { if (held.get(id) === lock) { held.delete(id); say('refresh', 'fail', id, 'lost'); } },
      };
      const lock = kind === 'mutex' ? new Mutex(redis, key, options) : new Semaphore(redis, key, limit, options);
      const granted = await lock.tryAcquire();
      if (granted) held.set(id, lock);
      say(op, granted ? 'ok' : 'fail', id, granted ? lock.identifier : '');
    } else if (op === 'release') {
      const lock = held.get(id);
      held.delete(id);
      if (!lock) return say(op, 'fail', id, 'not held');
      await lock.release();  // returns nothing: a permit already gone is not told apart
      say(op, 'ok', id);
    } else {
      const lock = held.get(id);
      const holds = lock !== undefined && lock.isAcquired;
      say(op, holds ? 'ok' : 'fail', id, holds ? 'library timer' : 'lost');
    }
  } catch (e) {
    say(op, 'info', id, `error: ${String(e.message).replace(/\s+/g, ' ')}`);
  }
}

// Ready once the library has run once (its scripts loaded into Redis, its code warm), on a key of
// its own under the run's: the plan's first acquire is then as quick as its others.
async function warmUp() {
  const options = { lockTimeout, acquireAttemptsLimit: 1 };
  const lock = kind === 'mutex' ? new Mutex(redis, `${key}:warm-up`, options)
                                : new Semaphore(redis, `${key}:warm-up`, limit, options);
  if (await lock.tryAcquire()) await lock.release();
}

redis.on('error', () => {});  // each failed request is reported where it failed
redis.once('ready', () => warmUp().finally(() => say('driver', 'ok', '-', 'ready')));
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const [op, id] = line.trim().split(/\s+/);
  if (op === 'quit') return redis.quit().catch(() => {}).finally(() => process.exit(0));
  if (op) serve(op, id);
});
