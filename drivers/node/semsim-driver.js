// semsim's driver protocol (docs/drivers.md) for node, so that a driver is its library's few calls:
//
//   const kit = require('semsim-driver');          // NODE_PATH=.../share/semsim/drivers/node
//   kit.serve({
//     library: 'redis-lock',                          // the ready line names it: library=redis-lock@1.0.0
//     start: () => client.connect(),                  // before the warm-up
//     acquire: async (key, lost) => ...,              // kit.ok(detail, handle) | kit.fail(detail) | false
//     release: async (handle) => ...,                 // kit.ok(detail) | kit.fail(detail) | boolean
//     refresh: async (handle) => ...,                 // optional; kit.ok(detail, newHandle) replaces the handle
//     refused: (error) => error instanceof X,         // optional: errors that mean "no" (fail), not "unknown" (info)
//     stop: () => client.quit(),                      // at quit
//   });
//
// The kit reads SEMSIM_* (kit.masters, kit.key, kit.limit, kit.timeoutMs, kit.client), prints each
// line with this process's CLOCK_MONOTONIC and wall clock read when the event happened, keeps each
// ID's handle, says `ready` after a warm-up on KEY:warm-up, turns an error into `info` (its message on
// one line), and says `refresh fail ID lost ...` when the library calls `lost`. Commands are served as
// they come (node's event loop: several at once). No dependency.
'use strict';
const fs = require('fs');
const path = require('path');
const readline = require('readline');

function required(name) {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`semsim-driver: ${name} is not set (run this under semsim)`);
  return value;
}

// Every master's address, in master order (one without --masters).
const masters = required('SEMSIM_REDIS').trim().split(/\s+/).map((address) => {
  const colon = address.lastIndexOf(':');
  return { host: address.slice(0, colon), port: Number(address.slice(colon + 1)) };
});
const key = required('SEMSIM_KEY');
const limit = Number(process.env.SEMSIM_LIMIT || 1);
const timeoutMs = Number(required('SEMSIM_TIMEOUT_MS'));
const client = Number(process.env.SEMSIM_CLIENT || 0);

const oneLine = (text) => String(text).replace(/\s+/g, ' ').trim();
const messageOf = (error) => oneLine(error && error.message !== undefined ? error.message : error);
// Pipes are written synchronously on Linux: each line is out before the next event.
function say(op, phase, id, detail = '') {
  process.stdout.write(`${process.hrtime.bigint()} ${Date.now()} ${op} ${phase} ${id} ${oneLine(detail)}\n`);
}

const ok = (detail = '', handle = undefined) => ({ ok: true, detail, handle });
const fail = (detail = '') => ({ ok: false, detail });
const outcome = (result) => (typeof result === 'object' && result !== null ? result : { ok: Boolean(result), detail: '' });

// NAME@VERSION of the package NAME as the driver's require() finds it (the version its package.json
// says, without a leading v), or undefined when it cannot tell.
function libraryVersion(name) {
  try {
    const from = require.main && require.main.filename ? [path.dirname(require.main.filename)] : [process.cwd()];
    let dir = path.dirname(require.resolve(name, { paths: from }));
    for (;;) {
      const file = path.join(dir, 'package.json');
      if (fs.existsSync(file)) {
        const pkg = JSON.parse(fs.readFileSync(file, 'utf8'));
        if (pkg.name === name && pkg.version) return `${name}@${String(pkg.version).replace(/^v/, '')}`;
      }
      const up = path.dirname(dir);
      if (up === dir) return undefined;
      dir = up;
    }
  } catch (e) {
    return undefined;
  }
}

function serve(driver) {
  const { acquire, release, refresh, refused = () => false, start, stop } = driver;
  // ID -> { handle, released, lost } once its acquire was granted; `released` and `lost` do not stop
  // the library from being asked again: a second release or a late refresh is what a test sends.
  const permits = new Map();

  async function answer(op, id, call) {
    say(op, 'invoke', id);
    try {
      const result = outcome(await call());
      say(op, result.ok ? 'ok' : 'fail', id, result.detail);
      return result;
    } catch (e) {
      if (refused(e)) say(op, 'fail', id, messageOf(e));
      else say(op, 'info', id, `error: ${messageOf(e)}`);
      return undefined;
    }
  }

  function serveLine(op, id) {
    const permit = permits.get(id);
    if (op === 'acquire') {
      const asked = { released: false, lost: false };
      const lost = (why = 'lost') => {  // the library's own word, unasked: once, while still held
        if (permits.get(id) !== asked || asked.released || asked.lost) return;
        asked.lost = true;
        say('refresh', 'fail', id, `lost: ${messageOf(why)}`);
      };
      return answer(op, id, () => acquire(key, lost)).then((result) => {
        if (result && result.ok) permits.set(id, Object.assign(asked, { handle: result.handle }));
      });
    }
    if (op === 'release') {
      if (!permit) return answer(op, id, () => fail('not held'));
      permit.released = true;  // before the call: a timer the release stops is not a loss
      return answer(op, id, () => release(permit.handle));
    }
    if (op === 'refresh') {
      if (!permit) return answer(op, id, () => fail('not held'));
      if (!refresh) return answer(op, id, () => fail('not supported: no refresh in this library'));
      return answer(op, id, () => refresh(permit.handle)).then((result) => {
        if (result && result.ok && result.handle !== undefined) permit.handle = result.handle;
      });
    }
    process.stderr.write(`semsim-driver: unknown command ${op}\n`);
    return undefined;
  }

  // The library's code run once (its scripts loaded, its code compiled) on a key of its own under
  // the run's, so that the plan's first acquire is as quick as its others.
  async function warmUp() {
    if (driver.warmUp) return driver.warmUp(`${key}:warm-up`);
    const granted = outcome(await acquire(`${key}:warm-up`, () => {}));
    if (!granted.ok) return undefined;
    if (refresh) await refresh(granted.handle);
    return release(granted.handle);
  }

  let quitting = false;
  function quit() {
    if (quitting) return;
    quitting = true;
    Promise.resolve().then(() => stop && stop()).catch(() => {}).finally(() => process.exit(0));
  }

  const named = driver.library ? libraryVersion(driver.library) : undefined;
  Promise.resolve()
    .then(() => start && start())
    .then(warmUp)
    .catch((e) => process.stderr.write(`semsim-driver: warm-up: ${messageOf(e)}\n`))
    .finally(() => {
      say('driver', 'ok', '-', named ? `ready library=${named}` : 'ready');
      // Commands are read once ready: semsim sends none before.
      const lines = readline.createInterface({ input: process.stdin });
      lines.on('line', (line) => {
        const [op, id] = line.trim().split(/\s+/);
        if (op === 'quit') return quit();
        if (op) serveLine(op, id);
        return undefined;
      });
      lines.on('close', quit);
    });
}

module.exports = { serve, ok, fail, say, libraryVersion, masters, key, limit, timeoutMs, client };
