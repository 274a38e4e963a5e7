// A lock library that is not one, for kit_test.py: each call is said on stderr (`library OP TOKEN`)
// so that the test counts what reached the library. The third acquire throws an error of two lines
// (unknown outcome); the fourth grant is lost by its "timer" 10 ms later (the lost-lock callback).
class Refused extends Error {}
let acquires = 0;
const log = (what) => process.stderr.write(`library ${what}\n`);

async function acquire(key, lost) {
  acquires += 1;
  log(`acquire ${key}`);
  if (acquires === 3) throw new Error('connection\n  reset by peer');
  const handle = { token: `token-${acquires}`, released: false };
  if (acquires === 4) setTimeout(() => lost(new Error('its refresh timer failed')), 10);
  return handle;
}
async function release(handle) {
  log(`release ${handle.token}`);
  const first = !handle.released;
  handle.released = true;
  return first;
}
async function refresh(handle) {
  log(`refresh ${handle.token}`);
  if (handle.released) throw new Refused(`${handle.token} was released`);
  return { token: `${handle.token}+` };
}
module.exports = { acquire, release, refresh, Refused };
