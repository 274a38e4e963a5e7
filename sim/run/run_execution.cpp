#include "sim/run/run_execution.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>

#include "algorithms/api/semaphore.h"
#include "algorithms/registry.h"
#include "reports/history/output_file.h"
#include "reports/history/text_format.h"
#include "reports/outputs/analysis.h"
#include "reports/outputs/charts.h"
#include "reports/outputs/timeline.h"
#include "sim/redis/memory_fill.h"
#include "sim/redis/shared_core.h"
#include "sim/run/version.h"
#include "sim/scenario/client_table.h"
#include "sim/scenario/run_options_io.h"

namespace semsim {

namespace fs = std::filesystem;

namespace {

// Deletes the run's keys. If that fails (Redis gone, a second Ctrl-C), says on stderr (whatever
// the command prints otherwise) exactly what is left and how to remove it.
void clean_or_say_what_is_left(RedisSession& redis, const std::string& prefix) {
  try {
    redis.clean(prefix);
  } catch (const std::exception& e) {
    std::cerr << "semsim: could not delete this run's keys under " << prefix << " (" << e.what() << "); they are left on "
              << redis.describe() << ": redis-cli --scan --pattern '" << prefix << "*' | xargs redis-cli unlink\n";
  }
}

// A fixed skew is one offset for every client: clocks that agree with each other cannot take a
// permit from one another, which is rarely what `--skew 10ms` was meant to show.
std::optional<long long> same_fixed(const std::optional<Distribution>& own, const Distribution& common) {
  return (own ? *own : common).fixed_value();
}

}  // namespace

std::string same_clock_warning(const RunOptions& options, const RunInputs& inputs) {
  std::optional<long long> skew, drift;
  bool per_client = false;  // a clients table gave some skew
  for (int c = 1; c <= options.clients; ++c) {
    const auto spec = inputs.clients.find(c);
    const ClientSpec none;
    const ClientSpec& own = spec == inputs.clients.end() ? none : spec->second;
    per_client |= own.skew.has_value();
    const auto s = same_fixed(own.skew, options.skew), d = same_fixed(own.drift_ppm, options.drift_ppm);
    if (!s || !d || (skew && *s != *skew) || (drift && *d != *drift)) return {};
    skew = s;
    drift = d;
  }
  for (const ScriptedAction& a : inputs.actions)
    if (a.kind == ScriptedAction::Kind::jump) return {};
  if (!skew || *skew == 0) return {};
  return "warning: every client's clock is offset by the same " + us_as_ms(*skew) + " ms (" +
         (per_client ? std::string("--clients-file") : "--skew " + options.skew.text()) +
         "): clocks that agree with each other cannot steal a permit from one another; for a spread give a range "
         "(--skew uniform:-10ms..10ms) or per-client skews (--clients-file)";
}

namespace {

// One run; the inputs as given, or else read from the files the options name.
// Each master's server setup: the run's, with the persistence masters.csv gives it.
std::vector<ServerSetup> master_setups(const RunOptions& options, const RunInputs& inputs) {
  std::vector<ServerSetup> setups;
  for (int m = 1; m <= options.masters; ++m) {
    ServerSetup setup = options.server;
    if (const auto row = inputs.masters.find(m); row != inputs.masters.end() && row->second.persistence)
      setup.persistence = *row->second.persistence;
    setups.push_back(setup);
  }
  return setups;
}

RunOutput run(const RunOptions& options, std::optional<RunInputs> given, RedisSession& redis, std::ostream& log,
              RunFiles files) {
  // The input files first: bad input stops the run before any output exists.
  RunInputs inputs = given ? std::move(*given) : read_run_inputs(options);
  const std::vector<ServerSetup> setups = master_setups(options, inputs);
  redis.use_setup(setups.front());
  redis.use_masters(setups, options.more_redis_urls);
  // In virtual time semsim and the embedded server take turns: on one core (shared_core.h), but
  // for a wide run alone.
  std::optional<SharedCore> core;
  if (options.mode == TimeMode::virtual_time && (redis.home_core() || !wide_enough_for_two_cores(options)))
    core.emplace(redis);
  const std::string prefix = redis.new_prefix();
  SemaphoreConfig config;
  config.name = prefix + "sem";
  config.limit = options.limit;
  config.timeout = options.timeout;
  config.lock_timeout = options.lock_timeout;
  config.lock_acquire_timeout = options.lock_acquire_timeout;
  config.drift_factor = options.drift_factor;
  std::unique_ptr<Semaphore> semaphore = make_semaphore(options.variant, config);

  log << "semsim " << version() << ": " << run_detail(options) << "\n"
      << "redis: " << redis.describe() << ", keys under " << prefix << "\n";
  if (const std::string warning = same_clock_warning(options, inputs); !warning.empty()) log << warning << "\n";
  if (options.fill_memory)
    log << "filled Redis to its memory limit with " << fill_memory(redis.link(), prefix, options.server.maxmemory)
        << " keys of 1 KiB\n";

  std::unique_ptr<HistoryWriter> history;
  Checker checker;
  Simulation simulation(options, std::move(inputs), *semaphore, redis.link(), [&](const Event& e) {
    if (history) history->write(e);
    checker.add(e);
  });
  std::vector<MasterPorts> masters;
  for (int m = 0; m < redis.masters(); ++m)
    masters.push_back({&redis.master(m).link(), redis.master(m).clock(), &redis.master(m)});
  simulation.set_masters(std::move(masters), redis.embedded());
  simulation.set_key_prefix(prefix);
  if (!redis.clock() && options.mode == TimeMode::virtual_time &&
      (variant_info(options.variant).clock == ClockBasis::redis_ttl || options.server_skew.count() != 0 ||
       options.server_drift_ppm != 0))
    log << "note: Redis's clock runs on its own wall clock here (not the embedded server, or no clock library): "
           "TTLs and lock expiry do not follow virtual time, and --server-skew reaches only server_now\n";

  if (variant_info(options.variant).needs_replica && options.server.replicas == 0)
    log << "note: " << options.variant << " grants only what a replica confirms, and this run has none (--replicas 0): "
           "every acquire waits for one in vain and is refused\n";
  if (files.history || files.summary) fs::create_directories(options.out);
  if (files.history) {
    std::ofstream ini(fs::path(options.out) / "run.ini");
    ini << "# semsim " << version() << " against " << redis.describe() << "\n"
        << "# replay: semsim scenario " << (fs::path(options.out) / "run.ini").string() << "\n";
    write_run_ini(ini, options);
    check_written(ini, (fs::path(options.out) / "run.ini").string());
    // Paced runs write every row at once: a few thousand rows a second cost nothing, and a run
    // killed outright (no unwinding) still leaves all it did. Virtual runs buffer for speed.
    const std::size_t flush_rows = options.mode == TimeMode::paced ? 1 : 1024;
    history = std::make_unique<HistoryWriter>((fs::path(options.out) / "history.csv").string(), flush_rows);
    log << "replay: semsim scenario " << (fs::path(options.out) / "run.ini").string() << "\n";
  }

  RunOutput output;
  try {
    output.result = simulation.run();
  } catch (...) {
    clean_or_say_what_is_left(redis, prefix);
    throw;
  }
  if (output.result.timed_out && redis.kill_running_script())
    std::cerr << "semsim: killed a script still running on the embedded server (SCRIPT KILL) after --command-timeout\n";
  if (history) history->close();
  // Paced mode promises Redis's clock and the simulated one agree; say so when they drifted apart.
  if (options.mode == TimeMode::paced && output.result.max_lag > Micros(10'000))
    log << "warning: paced mode fell behind the wall clock by up to " << output.result.max_lag.count() / 1000
        << " ms (too much load for real time): Redis-side expiry happened that much early in true time\n";
  clean_or_say_what_is_left(redis, prefix);
  core.reset();  // the outputs (and gnuplot) go wherever the scheduler likes
  output.summary = checker.finish(RunStats{static_cast<std::int64_t>(output.result.commands), output.result.wall_s,
                                                  static_cast<std::int64_t>(output.result.round_trips)});
  if (files.summary) {
    const fs::path out(options.out);
    write_summary_csv((out / "summary.csv").string(), output.summary);
    write_throughput_csv((out / "throughput.csv").string(), output.summary);
    if (files.history) write_timeline_html((out / "history.csv").string(), (out / "timeline.html").string(), output.summary);
    if (options.charts) {
      std::ostringstream ini;
      write_run_ini(ini, options);
      draw_run_charts(options.out, output.summary, log,
                      options_caption(ini.str(), "duration") + ", seed " + std::to_string(options.seed) + ", " +
                          to_string(options.mode) + " mode");
    }
  }
  return output;
}

}  // namespace

RunOutput execute_run(const RunOptions& options, RedisSession& redis, std::ostream& log, RunFiles files) {
  return run(options, std::nullopt, redis, log, files);
}

RunOutput execute_run(const RunOptions& options, RunInputs inputs, RedisSession& redis, std::ostream& log,
                      RunFiles files) {
  return run(options, std::optional<RunInputs>(std::move(inputs)), redis, log, files);
}

}  // namespace semsim
