// The property search behind `semsim check`: RapidCheck generates whole scenarios (scenario_gen.h),
// each runs against one shared Redis, and the run's summary (and history) is held against the
// variant's properties. The first violation is shrunk to a minimal case, written as a scenario
// file with expectations that fail again when `semsim scenario` replays it.
//
// Properties:
//   safety        summary.over_admission == 0, inside the variant's preconditions.
//   liveness      no liveness gap (summary.liveness_gaps == 0), where the variant's registry entry
//                 says the seeds promise it and virtual time can keep the promise.
//   lease honesty a client told "ok" by an acquire or refresh invoked at true time t really holds
//                 the permit until t + timeout: no release or refresh of that identifier fails
//                 (server says "gone") before then (summary.broken_leases == 0). Asserted where
//                 leases are in true (server) time; client-clock variants promise no true-time lease.
// A search whose cases never exercised the variant (reports/checks/exercise.h) found nothing and
// proves nothing: it says so (SearchReport::not_exercised), and `semsim check` exits 2.
// Which properties hold for which variant: algorithms/registry.h.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "reports/checks/exercise.h"
#include "reports/checks/summary.h"
#include "sim/redis/redis_session.h"
#include "sim/run/shard.h"
#include "sim/search/scenario_gen.h"

namespace semsim {

struct Properties {
  bool safety = true;
  bool liveness = false;
  bool lease_honesty = false;
};
Properties properties_for(const std::string& variant);

enum class Violation { none, safety, liveness, lease_honesty };
std::string_view to_string(Violation v);

struct SearchSettings {
  std::string variant;
  int cases = 100;
  std::uint64_t seed = 1;
  int max_clients = 6;
  bool preconditions = true;  // false: search outside the seeds' promises too
  bool allow_delay = false;   // drop only the "no network delay" precondition
  bool server_jumps = false;  // generate jumps and drift of Redis's clock too
  bool server_faults = false;  // generate restarts, failovers, dropped connections and pauses of Redis
  int masters = 1;            // several: Redlock's masters, their faults and partitions (check --masters N)
  int limit = 0;                  // given: every case's limit (check --limit); 0: drawn
  std::int64_t timeout_us = 0;    // given: every case's timeout (check --timeout); 0: drawn
  std::vector<std::string> dropped;  // preconditions searched outside of, one by one (--drop-precondition)
  std::int64_t lock_timeout_us = 10'000'000;
  std::string out;            // where the counterexample (and the scratch case folder) go
  bool progress = false;      // a progress line on stderr
  std::string reproduce;      // the command line that reproduces the search, for the report
  // --shard K/N: every case is generated as the whole search would, but only those whose index
  // (0-based) is K-1 mod N are run; first_failure_case and judged_through stay global numbers.
  Shard shard;
};

struct CaseOutcome {
  Violation violation = Violation::none;
  Summary summary;
  std::int64_t broken_promises = 0;  // lease honesty
  std::string detail;                // what was violated, with the figures
};

// Runs one generated case (files under `dir`) and judges it. Throws on setup errors; throws
// std::runtime_error if the run stopped early (Redis gone, interrupted).
CaseOutcome run_case(const GenCase& c, const SearchSettings& s, RedisSession& redis, const std::string& dir);

// Lease honesty over a history file (reports/checks/leases.h, with this timeout): acquire/refresh
// oks whose lease a later release/refresh fail shows was gone before invoke + timeout. A run's
// summary has the same count as broken_leases, with the run row's timeout.
std::int64_t count_broken_promises(const std::string& history_path, std::int64_t timeout_us);

struct SearchReport {
  bool found = false;
  Violation violation = Violation::none;
  int cases_run = 0;            // generated cases that ran (shrink tries not included)
  int discarded = 0;            // cases outside the preconditions (RC_PRE)
  int first_failure_case = 0;   // 1-based, 0: none (a global case number when sharded)
  // Every case of this search (of this shard) numbered up to here was judged, in order: the first
  // failure's number, or --cases when none failed, or less when the search stopped on an error.
  int judged_through = 0;
  double seconds = 0, seconds_to_first_failure = 0;
  int shrink_steps = 0;         // accepted shrinks
  int shrink_tries = 0;         // runs during shrinking
  GenCase first, minimal;       // the first failing case and the shrunk one
  CaseOutcome minimal_outcome;
  std::string counterexample;   // path of the written scenario file
  bool replay_failed = false;   // replaying that file failed its expectations again
  std::string error;            // a run that could not be judged: exit 2
  // What the cases judged up to the first failure (all of them when none failed) exercised.
  Exercise exercise;
  // No violation, but the cases never exercised the variant (exercise.h): why, and exit 2.
  std::string not_exercised;
};

// Runs the search; on a violation writes <out>/counterexample.ini (+ clients.csv, actions.csv)
// and replays it once to confirm.
// `redis`: one server per job (check --jobs N), each running the next case as soon as it is free;
// the report is the same whatever their number (but for the seconds).
SearchReport search(const SearchSettings& settings, const std::vector<RedisSession*>& redis);
SearchReport search(const SearchSettings& settings, RedisSession& redis);

}  // namespace semsim
