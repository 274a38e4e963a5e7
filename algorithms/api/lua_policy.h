// What a Lua script from outside semsim's own code may do on a user's Redis: a driver's EVAL or
// SCRIPT LOAD body, read by its proxy before anything is passed on (sim/drivers/proxy.h). The rule
// errs towards refusing; it is not a Lua interpreter, so it accepts only what it can follow:
//  - Redis is reached only as `redis.call(` or `redis.pcall(` (`server.` alike) with the command's
//    name a string literal; every such command must pass command_policy.h's rule, its other
//    words as written where they are literals; `redis` is never a value (no `local r = redis`,
//    `redis["call"]`, `pcall(redis.call, ...)`), only its harmless helpers (sha1hex, log,
//    error_reply, ...) besides call and pcall;
//  - nothing that reaches the environment or compiles code: _G, getfenv, setfenv, loadstring,
//    load, loadfile, dofile, require, module, package, debug, rawget, rawset;
//  - every word the command takes as a key is `KEYS[i]`, or a local bound to one (`local key =
//    KEYS[1]`, `for i, key in ipairs(KEYS) do`) that the script uses nowhere else but as a whole
//    argument of a call; KEYS itself is only read (`KEYS[i]`, `#KEYS`, `ipairs(KEYS)`). The words
//    of KEYS are the EVAL's own, which the proxy checks as any key;
//  - the last argument is not a call that may give several words (`unpack(...)`, `...`), but
//    tonumber/tostring.
// So a script cannot run FLUSHALL, CONFIG or SELECT, nor touch a key it was not given.
#pragma once

#include <string>
#include <string_view>

namespace semsim {

// Why `source` may not run on a user's Redis ("" if it may), naming the line.
std::string refused_script(std::string_view source);

// The SHA1 of `text` in lower-case hex, as Redis names a script.
std::string sha1_hex(std::string_view text);

}  // namespace semsim
