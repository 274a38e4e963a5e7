// The fake library (fake-lock.js, installed as npm package fake-lock) on the node kit, for kit_test.py.
// FAKE_LIBRARY names the package the ready line is to name (one not installed: plain `ready`).
const kit = require('semsim-driver');
const lock = require('fake-lock');

kit.serve({
  library: process.env.FAKE_LIBRARY,
  start: () => process.stderr.write(`env ${kit.masters.map((m) => `${m.host}:${m.port}`).join(' ')} ` +
                                    `key=${kit.key} limit=${kit.limit} timeout=${kit.timeoutMs} client=${kit.client}\n`),
  acquire: async (key, lost) => {
    const handle = await lock.acquire(key, lost);
    return kit.ok(handle.token, handle);
  },
  release: async (handle) => ((await lock.release(handle)) ? kit.ok() : kit.fail('already released')),
  refresh: async (handle) => kit.ok((await lock.refresh(handle)).token),
  refused: (e) => e instanceof lock.Refused,
  stop: () => process.stderr.write('library stop\n'),
});
