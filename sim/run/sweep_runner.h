// The runs of a sweep are independent: they run `jobs` at a time, each worker thread on a Redis
// of its own (its own embedded server, or its own connection to --redis), and their outputs come
// back in the order of the runs, whatever order they finished in, so that what a sweep writes
// does not depend on --jobs.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/run_options.h"
#include "sim/run/run_execution.h"

namespace semsim {

// Called as each run ends, one call at a time: which run, how many have ended, and an estimate
// of the wall time left (seconds) from the pace so far.
using RunDone = std::function<void(std::size_t index, const RunOutput& output, std::size_t done, double seconds_left)>;

struct SweepOutputs {
  std::vector<std::optional<RunOutput>> runs;  // in the order of the runs given
  std::string redis;                           // the Redis they ran on, described
  std::string redis_version;                   // its version alone
};

// Runs every one of `runs` (their `out` folders must differ). After a run that did not complete
// (interrupted, Redis failed) no further run starts: those are nullopt. An exception from a run
// (bad input, setup) also stops the sweep and is rethrown here, the earliest run's first, unless
// a signal came (then the run is nullopt too).
SweepOutputs run_all(const std::vector<RunOptions>& runs, int jobs, const std::string& redis_url, const RunDone& on_done);

// The default for --jobs: the number of cores (1 if unknown).
int default_jobs();

}  // namespace semsim
