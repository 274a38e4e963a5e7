// Everything one run needs, after defaults: a plain value. The same options come from the command
// line, a scenario file (INI) or run.ini, through one description (sim/scenario/run_options_io.h).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/distribution.h"
#include "sim/core/duration.h"
#include "sim/core/true_time.h"
#include "sim/core/server_setup.h"

namespace semsim {

enum class TimeMode { virtual_time, paced };

struct RunOptions {
  std::string variant;  // a name in the registry of variants; the readers default it
  int clients = 10;
  int limit = 5;
  Micros duration{10'000'000};
  Micros timeout{10'000'000};  // the semaphore's
  Distribution hold = Distribution::parse("fixed:50ms");
  Distribution think = Distribution::parse("exp:50ms");
  Distribution skew = Distribution::parse("fixed:0ms");
  Distribution drift_ppm = Distribution::parse("fixed:0", Distribution::Unit::number);
  Distribution delay = Distribution::parse("fixed:0ms");
  std::optional<Distribution> delay_out, delay_in;  // override --delay per direction
  double spike_probability = 0;  // per message
  Distribution spike = Distribution::parse("fixed:100ms");
  Micros refresh_every{0};  // 0: holders never refresh
  int retries = 0;          // further tries after a refused acquire
  Distribution retry_delay = Distribution::parse("fixed:1ms");
  double pause_rate = 0;  // pauses per client per second
  Distribution pause_length = Distribution::parse("fixed:1s");
  double crash_rate = 0;  // crashes per client per second
  double restart_rate = 0, disconnect_rate = 0, redis_pause_rate = 0;  // server faults per second
  Distribution redis_pause_length = Distribution::parse("fixed:100ms");
  Micros sample_every{50'000};  // read what Redis holds this often (0: never)
  Micros lock_timeout{10'000'000};
  Micros lock_acquire_timeout{10'000};
  Micros command_timeout{10'000'000};  // real time Redis has to answer one delivery
  Micros server_skew{0};        // Redis's clock offset from true time
  double server_drift_ppm = 0;  // and its drift
  ServerSetup server;           // the embedded Redis: replicas, persistence, memory limit
  bool fill_memory = false;     // fill it to --maxmemory with unrelated keys before the run
  std::uint64_t seed = 1;
  TimeMode mode = TimeMode::virtual_time;
  bool mode_given = false;  // false: the variant's default mode
  std::string clients_file;  // per-client table (clients.csv)
  std::string actions_file;  // scripted actions (actions.csv)
  std::string redis_url;     // empty: the embedded server
  // Redlock: independent masters (1..9), each its own Redis with its own clock, persistence and
  // faults. A request a master does not answer within master_timeout (simulated) is a failed
  // vote; drift_factor is Redlock's clock drift allowance (validity = ttl - elapsed - drift).
  int masters = 1;
  Micros master_timeout{50'000};
  double drift_factor = 0.01;
  std::string masters_file;  // per-master table (masters.csv)
  std::string links_file;    // per client-master delays (links.csv)
  std::vector<std::string> more_redis_urls;  // --redis given again: the user's masters 2..N
  std::string out = "semsim-out";
  bool charts = true;
  // Virtual mode: send every delivery that nothing still pending can precede as one pipeline
  // (same history, fewer round trips). --no-pipeline: one batch per instant, as before.
  bool pipeline = true;
  bool progress = true;  // the run's own progress line on a terminal (off in sweeps, which show theirs)
};

// True time at which the run ends: nothing starts then or later.
inline TrueTime end_of_run(const RunOptions& o) { return kRunStart + o.duration; }

std::string to_string(TimeMode mode);
// A whole number in [lo, hi]; throws std::invalid_argument saying which rule it breaks.
long long parse_integer(const std::string& s, long long lo, long long hi);

}  // namespace semsim
