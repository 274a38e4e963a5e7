// What a script variant is made of, as its INI file says: per operation a Lua script (or a plain
// command), its KEYS and ARGV words with their placeholders, and the reply matchers that read its
// answers. The format is documented in script_variant.h and docs/script-variants.md. Reading and
// checking the INI lives here; the variant (script_variant.cpp) only runs a Spec.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "algorithms/api/redis.h"
#include "algorithms/api/semaphore.h"
#include "algorithms/registry.h"

// Names here are generic (Word, Script, Spec): they live in their own namespace.
namespace semsim::scripts {

// Placeholders ({key}, {id}, {now_ms}, ...) and words made of them.
enum class Ph {
  text, key, key_named, id, limit, sum,
  timeout_ms, timeout_us, timeout_s,
  lock_timeout_ms, lock_timeout_us, lock_timeout_s,
  now_ms, now_us, now_s,
  server_now_ms, server_now_us, server_now_s,
  timeout_whole_s, lock_timeout_whole_s,  // whole seconds, rounded up (EX n)
  reply,    // acquire's granted reply (release and refresh words)
  counter,  // {1..limit}: the word is repeated with 1, 2, ..., limit
};

struct Piece {
  Ph kind = Ph::text;
  std::string text;        // the literal (text), NAME ({key:NAME}) or the sum as written
  std::vector<Ph> terms;   // a sum: its terms, all of one unit
};
using Word = std::vector<Piece>;

// What the placeholders of one call stand for.
struct Values {
  const SemaphoreConfig& config;
  const std::string& id;
  Micros now;
  std::optional<Micros> server_now;  // nullopt: expands to "" (server_time = empty)
  const std::string* reply = nullptr;  // acquire's granted reply, as text ({reply})
};
// A word with its placeholders replaced; `counter` is what {1..limit} stands for.
std::string expand(const Word& word, const Values& v, long long counter = 0);
// The words with their placeholders replaced, each word with {1..limit} repeated for 1..limit.
std::vector<std::string> expand_words(const std::vector<Word>& words, const Values& v);
// Whether a word holds the placeholder.
bool uses(const Word& word, Ph kind);

// Reply matchers (acquire.granted = 1, release.missing = 0 nil, ...): any alternative matches.
struct Alternative {
  enum class Kind { integer, nil, nonzero, positive, text, prefix, any_string, error } kind;
  long long value = 0;
  std::string text;
};

struct Matcher {
  std::string spec;  // as written, for messages
  std::vector<Alternative> alternatives;

  bool matches(const Reply& r) const;
  bool integers_only() const;  // only integers match (a fencing token can be read from the reply)
  bool takes_errors() const;   // an error reply is an answer, not a failure
};

// A reply as messages name it: "nil", "the integer 3", "the string \"x\"".
std::string describe(const Reply& r);
// A reply as {reply} passes it on: its text, or its integer in decimal; "" for nil.
std::string reply_text(const Reply& r);

enum class ServerTime { time, empty, fail };

struct Script {
  std::string op;    // acquire, release, refresh, setup
  std::string path;  // as resolved from the INI's folder, or "INI:LINE" for a command: every message names it
  std::string source;
  std::string sha;   // from SCRIPT LOAD; reloaded on NOSCRIPT
  std::vector<Word> keys, args;
  std::vector<Word> command;  // OP.command: a plain command instead of a script
  Matcher yes, no;   // granted/ok, refused/lost/missing
  bool uses_server_now = false;
};

// Lease honesty (`lease_honesty = admission_set` or `lease_honesty = ttl WORD`): where the run
// sees whether a grant still has its permit.
struct LeaseHonesty {
  enum class Kind { none, admission_set, ttl } kind = Kind::none;
  Word key;  // ttl: the permit's key ({key}, {key:NAME} or {reply}, with {id})
};

// How a script runs over several masters (`masters = each` and the masters.* keys): the user's
// single-instance scripts as a Redlock-style multi-master lock, or a published library's.
struct Masters {
  bool each = false;                  // masters = each: every operation runs on every master
  std::optional<int> quorum;          // masters.quorum = K; nullopt: majority (N/2 + 1)
  bool validity = false;              // masters.validity = spec: Redlock's validity check
  std::optional<double> drift_factor; // masters.drift_factor; nullopt: the run's --drift-factor
  bool wait_quorum = false;           // masters.wait = quorum: decide once a quorum agrees
  // masters.release_on_refusal: after every refused try (yes), never (no), or only where the last
  // try that --retries allows is refused (last: the tries share one identifier and keep their
  // votes, as npm redlock 5's own retries do).
  enum class Release { yes, no, last } release_on_refusal = Release::yes;
  // masters.timeout: how long the library waits for one master's answer: the run's
  // --master-timeout (nullopt), none (wait_forever: a request cut by a partition goes once it
  // heals, as over TCP), or its own.
  std::optional<Micros> timeout;
  bool wait_forever = false;
  bool refresh_reacquire = false;     // masters.refresh_lost = acquire: re-acquire where a kept
                                      // refresh found the permit gone
};

struct Spec {
  std::string ini;
  Masters masters;
  Script acquire, release;
  std::optional<Script> refresh, setup;
  bool token_from_reply = false;
  ServerTime server_time = ServerTime::time;
  std::optional<Word> admission_set;
  // timeout.step: the library takes timeouts in these units (whole seconds: 1s); a run's timeout
  // must be a multiple, and the search draws on that scale. "FILE:LINE" for messages.
  std::optional<Micros> timeout_step;
  std::string timeout_step_where;
  LeaseHonesty lease;
  bool keeps_replies = false;  // some release/refresh/lease word uses {reply}
};

// Reads and checks the INI file and the scripts it names. Throws SetupError "FILE:LINE: ..." (or
// "FILE: ..." where no line is at fault, e.g. a required key is missing).
Spec read_script_spec(const std::string& ini_path);
// The INI's `clock = client|server|ttl` (default server): which clock the script's times rest
// on. Throws SetupError on another value.
ClockBasis read_script_clock(const std::string& ini_path);
// The INI's `timeout.step` (0 where none) and whether it asks for lease honesty, for the registry
// (which reads no script). Throws SetupError on a bad step.
Micros read_script_timeout_step(const std::string& ini_path);
bool read_script_lease_honesty(const std::string& ini_path);
// Whether the INI says `masters = each` (a multi-master variant).
bool read_script_each_master(const std::string& ini_path);

}  // namespace semsim::scripts
