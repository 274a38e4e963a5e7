// A semsim driver around npm redlock (4.2.0), Redlock over every master semsim gives it (--masters N),
// each an ioredis client (5.9.3).        node redlock-driver.js      (needs redlock and ioredis)
// docs/drivers.md describes the protocol. An acquire is redlock.lock (one attempt: retryCount 0),
// a refresh lock.extend, a release lock.unlock; the library keeps no timer of its own, so it never
// says a permit is lost unasked. It waits for every master's answer (it has no master timeout,
// and ioredis's defaults have no command timeout), counts an error as no vote, and reads
// Date.now(): the wall clock semsim moves.
const Redlock = require('redlock');
const Redis = require('ioredis');
const readline = require('readline');

const key = process.env.SEMSIM_KEY;
const ttl = Number(process.env.SEMSIM_TIMEOUT_MS);
// ioredis as users run it (its defaults), one client per master: a request made while a
// connection is down waits for the next one.
const clients = process.env.SEMSIM_REDIS.split(' ').map((address) => {
  const [host, port] = address.split(':');
  return new Redis({ host, port: Number(port) });
});
// One attempt per acquire, as semsim's model makes one: semsim plans the retries (--retries,
// --retry-delay). The rest are the library's defaults (driftFactor 0.01).
const redlock = new Redlock(clients, { retryCount: 0 });
const held = new Map();
const say = (op, phase, id, detail = '') =>
  process.stdout.write(`${process.hrtime.bigint()} ${Date.now()} ${op} ${phase} ${id} ${detail}\n`);
const why = (e) => String(e.message).replace(/\s+/g, ' ');

async function serve(op, id) {
  say(op, 'invoke', id);
  try {
    if (op === 'acquire') {
      let lock;
      try {
        lock = await redlock.lock(key, ttl);
      } catch (e) {
        // No quorum, or one too late for its validity: the library unlocked what it got and holds nothing.
        if (e instanceof Redlock.LockError) return say(op, 'fail', id, why(e));
        throw e;
      }
      held.set(id, lock);
      say(op, 'ok', id, lock.value);
    } else if (op === 'release') {
      const lock = held.get(id);
      held.delete(id);
      if (!lock) return say(op, 'fail', id, 'not held');
      try {
        await lock.unlock();
        say(op, 'ok', id);
      } catch (e) {
        // Fewer than a quorum of masters still held it for this lock (expired, or lost with a master).
        if (e instanceof Redlock.LockError) return say(op, 'fail', id, why(e));
        throw e;
      }
    } else {
      const lock = held.get(id);
      if (!lock) return say(op, 'fail', id, 'lost');
      try {
        await lock.extend(ttl);
        say(op, 'ok', id, `until=${lock.expiration}`);
      } catch (e) {
        // Expired by its own clock, or no quorum: the library gave it up (it unlocked its votes).
        if (!(e instanceof Redlock.LockError)) throw e;
        held.delete(id);
        say(op, 'fail', id, why(e));
      }
    }
  } catch (e) {
    say(op, 'info', id, `error: ${why(e)}`);
  }
}

// Ready once the library has run once on every master (its three scripts loaded, its code warm),
// on a key of its own under the run's: the plan's first acquire is then as quick as its others.
async function warmUp() {
  try {
    const lock = await redlock.lock(`${key}:warm-up`, ttl);
    await lock.extend(ttl);
    await lock.unlock();
  } catch (e) {
    process.stderr.write(`warm-up: ${why(e)}\n`);
  }
}

for (const client of clients) client.on('error', () => {});  // each failed request counts as no vote
redlock.on('clientError', () => {});
Promise.all(clients.map((c) => new Promise((resolve) => c.once('ready', resolve))))
  .then(warmUp)
  .finally(() => say('driver', 'ok', '-', 'ready'));
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const [op, id] = line.trim().split(/\s+/);
  if (op === 'quit') {
    return Promise.all(clients.map((c) => c.quit().catch(() => {}))).finally(() => process.exit(0));
  }
  if (op) serve(op, id);
});
