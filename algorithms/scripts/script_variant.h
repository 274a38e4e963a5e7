// `--variant script:FILE.ini`: a semaphore whose protocol is the user's own Lua scripts, run under
// the same simulator and checker as the built-in variants ("bring your own semaphore").
// The full guide, with examples, is docs/script-variants.md; this comment is the reference.
//
// FILE.ini is a Boost.Program_options config file (`key = value`, `# comment`, `[section]`
// prefixes: `[acquire]` then `keys = ...` is the same as `acquire.keys = ...`). Unknown keys and
// keys given twice are errors. Paths are relative to the INI file's folder.
//
//   acquire = acquire.lua                 required: the script run by acquire
//   acquire.keys = {key} {key:fence}      the KEYS words (default: {key})
//   acquire.args = {id} {limit} {timeout_us} {server_now_us}   the ARGV words (default: none)
//   acquire.granted = positive            replies meaning "granted" (default: 1)
//   acquire.refused = 0 nil               replies meaning "refused" (default: 0 nil)
//   acquire.token = reply                 `reply`: the granted reply (an integer) is the fencing
//                                         token; `none` (default): the variant gives no token
//   release = release.lua                 required; release.keys / release.args as above
//   release.ok = 1                        the permit was there and is gone (default: 1)
//   release.missing = 0 nil               it was already gone (default: 0 nil)
//   refresh = refresh.lua                 optional; refresh.keys / refresh.args as above
//   refresh.ok = 1                        still held, now extended (default: 1)
//   refresh.lost = 0 nil                  lost (default: 0 nil)
//   server_time = time | empty | fail     what {server_now_*} does where the run has no
//                                         deterministic server clock (default: time, see below)
//   admission_set = {key}                 the ZSET whose members hold permits, so a run can sample
//                                         what Redis holds (default: none)
//
// Reply matchers (granted/refused/ok/lost/missing) are lists of alternatives, any of which matches:
//   an integer (`1`, `-1`): that integer reply;  `nil`: a nil reply (Lua false or nil);
//   `nonzero` / `positive`: any integer reply != 0 / > 0;  "text" or 'text': a string or status
//   reply with exactly that text. Lua `true` arrives as the integer 1, `false` as nil.
// The first matcher (granted/ok) is tried first. A reply that matches neither list is an
// unexpected reply: ReplyError naming the script, recorded as outcome unknown (`info`).
//
// Words of keys/args are split on whitespace; each word is passed as one KEYS/ARGV entry after
// its placeholders are replaced (a word may mix text and placeholders: `{key}:queue`, and a word
// that expands to nothing is passed as ""). `{{` and `}}` are literal braces. Placeholders:
//   {key}            the semaphore's key (SemaphoreConfig::name)
//   {key:NAME}       {key} + ":" + NAME: more keys that stay under the run's own prefix
//   {id}             acquire: a fresh Client::new_identifier() (the grant's identifier);
//                    release/refresh: the identifier that acquire returned
//   {limit}          the permit count
//   {timeout_ms} {timeout_us} {timeout_s}                  the permit's lifetime
//   {lock_timeout_ms} {lock_timeout_us} {lock_timeout_s}   the lock TTL (for lock-based scripts)
//   {now_ms} {now_us} {now_s}                    the calling client's own clock (skew applies)
//   {server_now_ms} {server_now_us} {server_now_s}   the server's clock: the simulator's true
//                    time where the run has one (always in the simulator). Elsewhere, per
//                    server_time: `time` sends one TIME first (an extra round trip, read before the
//                    script runs), `empty` expands to "" (the script must call redis.call('TIME'),
//                    as the built-in `lua` variant does), `fail` makes the call a ReplyError
//                    (and prepare() a SetupError).
// Units: _us exact; _ms of a time is rounded down, of a timeout up (a TTL never shorter than
// asked); _s is exact decimal seconds ("10", "0.25", "1712.000123").
//
// Scripts are read when the variant is made (a missing file: SetupError "INI:LINE: ..."), loaded
// once in prepare() with SCRIPT LOAD (a Lua compile error: SetupError naming the script and Lua's
// message, which has the script line) and called with EVALSHA: one round trip per operation, as
// the built-in `lua` variant; on NOSCRIPT (server restarted, SCRIPT FLUSH) the script is loaded
// again and the call retried once. A Lua runtime error is a ReplyError naming the script.
// Without a refresh script, refresh is a ReplyError (outcome unknown: the holder goes on believing).
#pragma once

#include "algorithms/registry.h"

#include <memory>
#include <string>

#include "algorithms/api/semaphore.h"

namespace semsim {

// Reads and checks the INI file and the scripts it names. Throws SetupError "FILE:LINE: ..." (or
// "FILE: ..." where no line is at fault, e.g. a required key is missing).
std::unique_ptr<Semaphore> make_script_semaphore(const std::string& ini_path, SemaphoreConfig config);

// The registry's entry for `script:FILE.ini` (algorithms/registry.h): its clock and promise
// follow the INI's `clock` key. "" gives the entry that describes every script variant.
// Throws SetupError on a bad `clock` value.
VariantInfo script_variant_info(const std::string& ini_path = "");

}  // namespace semsim
