// Generated scenarios for the property search (`semsim check`): a whole run as a plain value
// (clients, clocks, networks, workload, scripted actions), a RapidCheck generator for it, the
// preconditions under which a variant promises safety, and the value written out as the
// options + clients.csv + actions.csv that `semsim run` / `semsim scenario` read.
//
// Shrinking: the client count is drawn first and small values come first, every magnitude
// (skew, drift, delay, spike, pause, jump) shrinks towards 0, durations towards their lower
// bound, and scripted actions shrink away, so a counterexample ends up with as few clients and
// actions as still fail.
#pragma once

#include "algorithms/registry.h"

#include <cstdint>
#include <string>
#include <vector>

#include <rapidcheck.h>

#include "sim/core/run_options.h"
#include "sim/scenario/client_table.h"

namespace semsim {

// A bounded distribution of durations: fixed when lo == hi, else uniform. Bounded on purpose:
// preconditions need the largest value a draw can take.
struct Span {
  std::int64_t lo_us = 0, hi_us = 0;
  std::string text() const;  // "fixed:10ms" / "uniform:1ms..3ms"
  bool operator==(const Span&) const = default;
};

struct GenClient {
  std::int64_t skew_us = 0;
  std::int64_t drift_ppm = 0;
  Span delay_out, delay_in;
  bool operator==(const GenClient&) const = default;
};

struct GenAction {
  std::int64_t at_us = 0;
  int client = 1;
  ScriptedAction::Kind kind = ScriptedAction::Kind::acquire;
  std::int64_t arg_us = 0;  // acquire: hold (always given); pause, redis_pause, partition: length;
                            // jump: signed; failover: lag; redis_restart: downtime; else unused
  // Several masters: the masters (bit m: 0-based master m) a server action acts on, or a
  // partition cuts its client from. 0 with one master.
  std::uint32_t masters = 0;
  bool operator==(const GenAction&) const = default;
};

// One master of a case of several (--masters N): its clock's rate and its persistence.
struct GenMaster {
  std::int64_t drift_ppm = 0;
  bool aof_always = false;
  bool operator==(const GenMaster&) const = default;
};

struct GenCase {
  int clients = 1;
  int limit = 1;
  std::int64_t duration_us = 0, timeout_us = 0;
  Span hold, think;
  std::int64_t refresh_every_us = 0;  // 0: no refresh
  int spike_percent = 0;              // chance per message of a delay spike
  Span spike;
  int pause_rate_per_10s = 0, crash_rate_per_10s = 0;  // per client
  Span pause_length;
  std::uint64_t seed = 1;             // the run's own seed (workload draws)
  std::vector<GenClient> per_client;  // [0] is client 1
  std::vector<GenAction> actions;     // sorted by at_us; server actions are on client 0
  std::int64_t server_drift_ppm = 0;  // Redis's clock (with --server-jumps)
  bool aof_always = false;            // the primary's persistence (with --server-faults); else none
  int masters = 1;                    // several: Redlock (check --masters N)
  std::vector<GenMaster> per_master;  // [0] is master 1; empty with one master
  bool operator==(const GenCase&) const = default;

  int scripted_acquires() const;
};

// Under which conditions a variant promises safety. The generator keeps every case inside
// them (by clamping, so shrinking stays inside too) unless the search runs without them.
// Budget, as fractions of the semaphore timeout T, chosen so that the sum stays below T:
//   clock spread (skew + drift over the run + jumps) <= T/4, round trip incl. spikes <= T/8,
//   pauses per client <= T/8 (no pauses at random rates), hold and refresh period <= T/4.
// The seeds' claims, per variant, as the registry states them (algorithms/registry.h).
Preconditions preconditions_for(const std::string& variant);
// The preconditions that can be dropped one by one (check --drop-precondition NAME), and dropping
// one: throws std::invalid_argument naming them on another name.
std::vector<std::string> droppable_preconditions();
void drop_precondition(Preconditions& pre, const std::string& name);
std::string preconditions_help();  // every built-in variant's preconditions, for --help

struct GenSettings {
  int max_clients = 6;
  Preconditions pre;                         // all false: search freely
  std::int64_t lock_timeout_us = 10'000'000;  // RunOptions' default
  bool allow_delay = true;                   // false: no network delay at all
  bool server_jumps = false;  // also jumps and drift of Redis's own clock (outside every promise)
  bool server_faults = false;  // also restarts, failovers, dropped connections, pauses of Redis
  // The variant's timeout.step (0: none). Timeouts are whole multiples of it; above 20 ms the case
  // is drawn on its scale: every time of the workload (run length, timeout, holds, think times,
  // refresh period, pauses, action instants) times step / 20 ms, so that the smallest timeout is
  // one step and a case holds as many operations as on the millisecond scale.
  std::int64_t time_step_us = 0;
  // Several masters (check --masters N): each case has N, and the faults of each (clock rate and
  // jumps, restarts with downtime, pauses) and partitions of clients from some of them, kept
  // inside Redlock's assumptions where `pre` says so. The run's defaults of the two below.
  bool lock = false;  // the variant is a lock: every case has limit 1
  // Given (check --limit, --timeout): every case has this limit / timeout (a driver's library is
  // set up with them); 0: drawn.
  int limit = 0;
  std::int64_t timeout_us = 0;
  int masters = 1;
  std::int64_t master_timeout_us = 50'000;
  double drift_factor = 0.01;
};

// Clamps a case into its preconditions (and into the generator's ranges); idempotent.
GenCase normalize(GenCase c, const GenSettings& settings);
// True if the case meets the preconditions; the why of the first one it breaks otherwise.
bool meets(const GenCase& c, const GenSettings& settings, std::string* why = nullptr);

// Which of `pre`'s conditions the case breaks, each said as meets() says it ("network delay",
// "clock spread >= timeout", ...), and the faults of Redis itself it holds (outside every
// promise); empty when it keeps them all. For a counterexample found with --no-preconditions.
// Redlock's validity is judged with `master_timeout_us` and `drift_factor` (the run's; GenSettings' defaults).
std::vector<std::string> broken_preconditions(const GenCase& c, const Preconditions& pre, std::int64_t lock_timeout_us,
                                              std::int64_t master_timeout_us = 50'000, double drift_factor = 0.01);

// One line on the case against `variant`'s preconditions: "kept (TEXT): the source articles promise
// safety for this case", "broken: network delay; ... (outside the source articles' promise: TEXT)",
// or, for a variant they promise nothing (basic), "none promised (TEXT): ...".
std::string preconditions_verdict(const GenCase& c, const std::string& variant, std::int64_t lock_timeout_us);

rc::Gen<GenCase> gen_case(const GenSettings& settings);

// A case as one run: its options (mode virtual, charts off, out = `out`, one replica per
// failover) and its clients table and actions, in memory: what materialize() writes to files
// and `semsim run` reads back, value for value.
struct CaseRun {
  RunOptions options;
  RunInputs inputs;
};
CaseRun case_run(const GenCase& c, const std::string& variant, std::int64_t lock_timeout_us, const std::string& out);

// The same case in files: writes clients.csv and actions.csv into `dir` (created) and returns the
// options with clients_file / actions_file naming them (a counterexample to replay).
RunOptions materialize(const GenCase& c, const std::string& variant, std::int64_t lock_timeout_us,
                       const std::string& dir);

// One line for reports: "2 clients, limit 1, 1 actions (1 acquires, ...), ..., skews 0ms 12ms, max delay 3ms".
std::string describe(const GenCase& c);

}  // namespace semsim
