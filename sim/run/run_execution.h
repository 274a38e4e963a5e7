// One whole run, as `semsim run`, scenarios, sweeps and the property search all need it:
// variant + options + Redis -> history.csv, run.ini, summary (+ summary.csv and charts).
#pragma once

#include <iosfwd>
#include <optional>
#include <string>

#include "reports/checks/summary.h"
#include "sim/core/run_options.h"
#include "sim/core/simulation.h"
#include "sim/drivers/real_time_report.h"
#include "sim/redis/redis_session.h"

namespace semsim {

struct RunOutput {
  Summary summary;
  RunResult result;
  std::optional<RealTimeReport> real_time;  // a driver run's unplanned delays (driver:COMMAND)
  std::string library;  // a driver run: the library its driver named at `ready`, or ""
};

struct RunFiles {
  bool history = true;   // history.csv and run.ini
  bool summary = true;   // summary.csv, the timeline, and charts if options.charts
};

// Throws SetupError, InputError or std::invalid_argument (bad input: exit 2) before the run starts.
// A run that Redis or a signal cut short still returns, with result.completed false, and leaves
// a valid history of what happened until then.
// The clients and actions files that `options` names are read first.
RunOutput execute_run(const RunOptions& options, RedisSession& redis, std::ostream& log, RunFiles files = {});
// The same with the clients table and actions given in memory (the property search's cases).
RunOutput execute_run(const RunOptions& options, RunInputs inputs, RedisSession& redis, std::ostream& log,
                      RunFiles files = {});

// A `warning:` line when every client's clock has the same fixed offset, other than 0 (--skew 10ms,
// no per-client skew, drift or jump tells them apart): no skew steal is possible. "" otherwise.
std::string same_clock_warning(const RunOptions& options, const RunInputs& inputs);

}  // namespace semsim
