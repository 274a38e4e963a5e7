// The same plan N times (semsim run/scenario --repeat N): seeds --seed, --seed + 1, ..., each run
// with its files in OUT/seed-S/. In virtual time each seed is its own plan; with real processes
// (driver:COMMAND) the plan is reproducible by seed but the interleaving is not, so a verdict is a
// statistic: how many of N runs were invalid.
#pragma once

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "sim/run/run_execution.h"

namespace semsim {

struct RepeatedRuns {
  std::vector<RunOutput> runs;  // in seed order; the last one may have stopped early
  int invalid = 0, unknown = 0;
  // Driver runs that are weak evidence, counted apart: not as planned (a planned command never
  // started, or a later planned fault overtook it), or stalled (an unplanned delay of a tenth of
  // the timeout or more: the machine's load).
  int off_plan = 0, stalled = 0;
  // "invalid (over-admission) in 3 of 5 runs, unknown in 0" (+ "; 1 not as planned, 2 stalled: ...")
  std::string verdict() const;
};

// Runs `options` `times` times. `each` (if set) is told of every run as it ends (a progress line,
// expectations). Stops after a run that did not complete (Ctrl-C, Redis gone, a driver broke the
// protocol). Writes OUT/repeat.csv: one row per run, its seed and summary (and a driver run's
// unplanned delays). Throws as execute_run does.
RepeatedRuns repeat_run(const RunOptions& options, int times, RedisSession& redis, std::ostream& log,
                        const std::function<void(const RunOptions&, const RunOutput&)>& each = {});

// One line about one run of a repetition: "seed 3: invalid, over_admission 1, granted 12; unplanned at most 3.1 ms".
std::string describe_repeat(const RunOptions& options, const RunOutput& run);

}  // namespace semsim
