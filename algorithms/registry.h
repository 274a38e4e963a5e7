// One registry of variants. Each variant declares, in its own file, what it is: its name, the
// seed and section it ports, which clock its expiry rests on, the conditions under which the
// seeds promise safety, and which properties the search asserts for it. Everything else (the
// variant list, the default time mode, `semsim check`'s preconditions and properties, compare's
// default set) reads it here: no other file decides anything by a variant's name.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "algorithms/api/semaphore.h"

namespace semsim {

// Which clock a variant's expiry rests on.
enum class ClockBasis {
  client,      // timestamps from the clients' own clocks (basic, fair)
  redis_ttl,   // Redis's clock, through key TTLs and lock expiry (ttl-key, fair-locked)
  redis_time,  // Redis's clock read by TIME inside a script (lua)
};

// The seeds' promise: the conditions under which a variant is claimed safe. The search keeps
// generated cases inside them (semsim check), unless told not to.
struct Preconditions {
  bool lease_budget = false;   // hold (or refresh period) + pauses + round trip < T
  bool clock_spread = false;   // clocks differ by at most T/4 at any time of the run
  bool no_delay = false;       // no network delay or spikes, and no pauses (a pause is a delay)
  bool bounded_delay = false;  // delays far (100x) below the lock timeout
  // Redlock's assumptions over N masters (redis.io "Distributed locks with Redis"):
  bool within_validity = false;    // a holder finishes within its validity: hold + pauses + master
                                   // timeout + drift < ttl
  bool master_clock_rate = false;  // each master's clock drifts at most the drift factor
  bool no_master_jumps = false;    // no master's clock jumps
  bool delayed_restarts = false;   // a crashed master stays down for a ttl, or keeps its data (aof-always)
  std::string text;            // one line for --help and reports
};

// The promise of variants whose leases Redis times (by TTL or by TIME): clocks do not matter,
// but a client that keeps a permit past its lease without refreshing over-admits by definition.
Preconditions lease_promise();
// The seeds' promise for semaphores on the clients' clocks (fair's): no network delay and no
// pauses, clock spread + hold below the timeout.
Preconditions client_clock_promise();
// "script:dir/lease.ini" -> "lease"; any other name as it is. Folder names and scenario
// expectation sections use it.
std::string variant_label(const std::string& name);
// One label per variant of a list, all different, for the folders of a scenario or a sweep: the
// variant_label, or, for scripts whose INI files share a base name, as many of their folders as
// it takes to tell them apart ("broken-script-semaphore", "lua-script-semaphore").
std::vector<std::string> variant_labels(const std::vector<std::string>& names);

struct VariantInfo {
  std::string name;    // --variant NAME
  std::string source;  // the seed and section it ports, or why it exists
  ClockBasis clock = ClockBasis::client;
  Preconditions preconditions;
  bool liveness = false;       // the search asserts that a free permit goes to whoever asks
  bool lease_honesty = false;  // ... and that an ok'd lease lasts its timeout
  bool compared = false;       // in `semsim compare`'s default set
  bool needs_replica = false;  // grants nothing without a replica (--replicas)
  // The unit its timeouts come in (a script's `timeout.step`, e.g. whole seconds); 0: any. The
  // search draws its cases on that scale.
  Micros timeout_step{0};
  bool multi_master = false;   // runs over --masters N (Redlock); the others use one Redis
  bool lock = false;           // a lock: one holder whatever --limit says (runs take --limit 1)
  // driver:COMMAND: no model at all; each client is a real process running the user's own library
  // (sim/drivers), in real time only. `make` is null.
  bool real_processes = false;
  std::unique_ptr<Semaphore> (*make)(SemaphoreConfig) = nullptr;
};

// The built-in variants, in the order --list-variants shows them.
const std::vector<VariantInfo>& variant_registry();
// The variant `semsim run` uses when none is given.
const VariantInfo& default_variant();
// The entry for `name`; `script:FILE.ini` gets the script variants' entry, `driver:COMMAND` the
// drivers' (real_processes). Throws std::invalid_argument naming the known variants.
const VariantInfo& variant_info(const std::string& name);

}  // namespace semsim
