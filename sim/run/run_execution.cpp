#include "sim/run/run_execution.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>

#include "algorithms/api/semaphore.h"
#include "algorithms/registry.h"
#include "sim/core/interrupt.h"
#include "reports/history/output_file.h"
#include "reports/history/text_format.h"
#include "reports/outputs/analysis.h"
#include "reports/outputs/charts.h"
#include "reports/outputs/timeline.h"
#include "sim/core/wall_clock.h"
#include "sim/drivers/driver_run.h"
#include "sim/redis/key_safety_net.h"
#include "sim/redis/memory_fill.h"
#include "sim/redis/shared_core.h"
#include "sim/redis/shipped_files.h"
#include "sim/run/log_progress.h"
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
    const std::string cli = redis.target().redis_cli();
    std::cerr << "semsim: could not delete this run's keys under " << prefix << " (" << e.what() << "); they are left on "
              << redis.describe() << ". To delete them:\n  " << cli << " --scan --pattern " << shell_quote("*" + prefix + "*")
              << " | xargs -r -d '\\n' " << cli << " unlink\n";
  }
}

// Where a driver's proxies connect: the primary now, with the credentials and database of the
// run's target (the proxy says AUTH and SELECT for the driver, which needs neither).
Endpoint endpoint_of(const RedisTarget& target) {
  Endpoint e;
  e.unix_path = target.unix_path;
  e.host = target.host;
  e.port = target.port;
  if (target.password) {
    if (target.user.empty()) e.hello.push_back({"AUTH", *target.password});
    else e.hello.push_back({"AUTH", target.user, *target.password});
  }
  if (target.db != 0) e.hello.push_back({"SELECT", std::to_string(target.db)});
  return e;
}

// Where each master is now, in order (one endpoint in a one-master run).
std::vector<Endpoint> master_endpoints(RedisSession& redis) {
  std::vector<Endpoint> endpoints;
  for (int m = 0; m < redis.masters(); ++m) endpoints.push_back(endpoint_of(redis.master(m).target()));
  return endpoints;
}

DriverSetup driver_setup(const std::string& command, RedisSession& redis, const std::string& prefix, const std::string& out) {
  DriverSetup setup;
  setup.command = command;
  setup.masters = master_endpoints(redis);
  setup.key = prefix + "sem";
  setup.users_redis = !redis.embedded();
  setup.clock_library = shipped_library("libsemsim_client_clock.so");
  if (setup.clock_library.empty())
    throw SetupError("libsemsim_client_clock.so, which moves drivers' clocks, is not beside semsim (" +
                     executable_dir().string() + "): build it (cmake --build) or reinstall semsim");
  setup.log_dir = fs::path(out) / "drivers";
  return setup;
}

// A table file the run read, written to `copy` as the bytes it parsed, unless `copy` is that
// very file.
void keep_input(const std::string& source, const std::string& bytes, const fs::path& copy) {
  std::error_code ec;
  if (fs::equivalent(source, copy, ec)) return;
  write_output_file(copy.string(), bytes);
}

// run.ini: every option, so that `semsim scenario run.ini` replays the run. The clients and
// actions files it names are copies of what the run read (clients.csv, actions.csv beside it,
// named relative to it): the originals may change or vanish after the run.
// `bytes`: null when the inputs were given rather than read (the files are then named as they are).
void write_run_ini_with_inputs(const RunOptions& options, const InputBytes* bytes, const std::string& redis,
                               const std::string& prefix) {
  const fs::path out(options.out);
  std::ostringstream notes;
  const auto copied = [&](const std::string& source, const std::string& read, const char* key, const char* name) {
    if (source.empty() || !bytes) return false;
    keep_input(source, read, out / name);
    notes << "# " << key << ": a copy of " << fs::absolute(source).string() << " as the run read it\n";
    return true;
  };
  const bool clients = copied(options.clients_file, bytes ? bytes->clients : "", "clients-file", "clients.csv");
  const bool actions = copied(options.actions_file, bytes ? bytes->actions : "", "actions-file", "actions.csv");
  const bool masters = copied(options.masters_file, bytes ? bytes->masters : "", "masters-file", "masters.csv");
  const bool links = copied(options.links_file, bytes ? bytes->links : "", "links-file", "links.csv");
  std::ostringstream options_text;
  write_run_ini(options_text, options);
  const std::string path = (out / "run.ini").string();
  std::ostringstream ini;
  ini << "# semsim " << version() << " against " << redis << "\n"
      << "# keys under " << prefix << " (deleted at the end of the run)\n"
      << "# replay: semsim scenario " << shell_quote(path) << "\n"
      << notes.str();
  std::istringstream lines(options_text.str());
  for (std::string line; std::getline(lines, line);) {
    if (clients && line.starts_with("clients-file = ")) line = "clients-file = clients.csv";
    if (actions && line.starts_with("actions-file = ")) line = "actions-file = actions.csv";
    if (masters && line.starts_with("masters-file = ")) line = "masters-file = masters.csv";
    if (links && line.starts_with("links-file = ")) line = "links-file = links.csv";
    ini << line << "\n";
  }
  write_output_file(path, ini.str());
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

// After --command-timeout: what SCRIPT KILL did, on stderr whatever the command prints otherwise.
void say_script_kill(const RedisSession& redis, const ScriptKill& kill) {
  std::cerr << "semsim: sent SCRIPT KILL to " << redis.describe() << " after --command-timeout: ";
  if (kill.killed) std::cerr << "a script still running there was killed\n";
  else if (kill.answer.starts_with("NOTBUSY")) std::cerr << "no script was running (the server was slow, not busy)\n";
  else if (kill.answer.starts_with("UNKILLABLE"))
    std::cerr << "the script has already written, and Redis cannot kill it (" << kill.answer
              << "): the server stays busy until it ends" << (redis.embedded() ? "" : " or its owner restarts it")
              << "\n";
  else std::cerr << "it failed (" << kill.answer << ")\n";
}

// One run; the inputs as given, or else read from the files the options name.
// Each master's server setup: the run's, with the persistence masters.csv gives it.
std::vector<ServerSetup> master_setups(const RunOptions& options, const RunInputs& inputs) {
  std::vector<ServerSetup> setups;
  for (int m = 1; m <= options.masters; ++m) {
    ServerSetup setup = options.server;
    setup.persistence = inputs.master(m).persistence.value_or(options.server.persistence);
    setups.push_back(setup);
  }
  return setups;
}

RunOutput run(const RunOptions& options, std::optional<RunInputs> given, RedisSession& redis, std::ostream& log,
              RunFiles files) {
  // The input files first: bad input stops the run before any output exists.
  InputBytes input_bytes;  // what was read, for run.ini's copies
  RunInputs inputs = given ? std::move(*given) : read_run_inputs(options, &input_bytes);
  const std::vector<ServerSetup> setups = master_setups(options, inputs);
  redis.use_setup(setups.front());
  redis.use_masters(setups, options.more_redis_urls);
  // In virtual time semsim and the embedded server take turns: on one core (shared_core.h), but
  // for a wide run alone.
  std::optional<SharedCore> core;
  if (options.mode == TimeMode::virtual_time && (redis.home_core() || !wide_enough_for_two_cores(options)))
    core.emplace(redis);
  // In virtual time the run's key follows from its seed: a driver's library may quote it.
  const std::string prefix =
      redis.new_prefix(options.mode == TimeMode::virtual_time ? std::optional(options.seed) : std::nullopt);
  // On a user's servers, keys a killed run leaves behind expire on their own (key_safety_net.h):
  // a net on every master, each with its expiry on that master's own clock.
  std::vector<std::unique_ptr<KeySafetyNet>> nets;
  if (!redis.embedded())
    for (int m = 0; m < redis.masters(); ++m)
      nets.push_back(std::make_unique<KeySafetyNet>(
          redis.master(m).target(), prefix, std::chrono::duration_cast<std::chrono::milliseconds>(options.duration)));
  // Each master's link gives its net's expiry; off again when the run is over, whichever way.
  struct Expiry {
    RedisSession& redis;
    ~Expiry() {
      for (int m = 0; m < redis.masters(); ++m) redis.master(m).give_keys_expiry({}, nullptr);
    }
  } expiry{redis};
  for (std::size_t m = 0; m < nets.size(); ++m)
    redis.master(static_cast<int>(m)).give_keys_expiry(prefix, nets[m]->deadline());
  SemaphoreConfig config;
  config.name = prefix + "sem";
  config.limit = options.limit;
  config.timeout = options.timeout;
  config.lock_timeout = options.lock_timeout;
  config.lock_acquire_timeout = options.lock_acquire_timeout;
  config.drift_factor = options.drift_factor;
  const std::string driver = driver_command(options.variant);
  std::unique_ptr<Semaphore> semaphore = driver.empty() ? make_semaphore(options.variant, config) : nullptr;

  log << "semsim " << version() << ": " << run_detail(options) << "\n"
      << "redis: " << redis.describe() << ", keys under " << prefix
      << (!nets.empty() ? " (each expires " + std::to_string(KeySafetyNet::kMargin.count()) +
                    " min after the run's expected end if semsim dies before it deletes them)"
              : std::string())
      << "\n";
  if (const std::string warning = same_clock_warning(options, inputs); !warning.empty()) log << warning << "\n";
  if (options.fill_memory)
    log << "filled Redis to its memory limit with " << fill_memory(redis.link(), prefix, options.server.maxmemory)
        << " keys of 1 KiB\n";

  std::unique_ptr<HistoryWriter> history;
  Checker checker;
  // timeline.html is drawn from the events as they come, like the checks (no second read of history.csv
  // but for the witnesses beyond its bound of clients, below).
  std::optional<TimelineBuilder> timeline;
  // Witness rows beyond its bound of clients are read back from history.csv, which it names.
  if (files.history && files.summary) timeline.emplace(kTimelineMaxClients, (fs::path(options.out) / "history.csv").string());
  // In a log (no terminal), a line every 15 s of wall time; on a terminal the run's Progress line.
  std::optional<LogProgress> log_progress;
  const Stopwatch run_watch;
  if (options.progress && isatty(STDERR_FILENO) != 1) log_progress.emplace(std::cerr, options.duration.count());
  const auto sink = [&](const Event& e) {
    if (history) history->write(e);
    checker.add(e);
    if (timeline) timeline->add(e);
    if (log_progress) log_progress->event(e.true_us, [&] { return run_watch.seconds(); });
  };
  std::optional<Simulation> simulation;
  std::optional<DriverRun> drivers;
  if (driver.empty()) {
    simulation.emplace(options, std::move(inputs), *semaphore, redis.link(), sink);
    std::vector<MasterPorts> masters;
    for (int m = 0; m < redis.masters(); ++m)
      masters.push_back({&redis.master(m).link(), redis.master(m).clock(), &redis.master(m)});
    simulation->set_masters(std::move(masters), redis.embedded());
    // In the run row where keys can outlive the run and the history is not the same bytes for a
    // seed anyway (paced, on a user's server); a random prefix would break that promise in virtual time.
    simulation->set_key_prefix(prefix, /*in_run_row=*/!redis.embedded() && options.mode == TimeMode::paced);
    simulation->check_inputs();  // before any output: bad input leaves none
  } else {
    DriverSetup setup = driver_setup(driver, redis, prefix, options.out);
    std::vector<ServerControl*> controls;
    for (int m = 0; m < redis.masters(); ++m) {
      controls.push_back(&redis.master(m));
      if (!redis.master(m).clock()) continue;
      // Paced: real time, each master's own clock too. Warp: it follows the run's virtual clock.
      if (options.mode == TimeMode::paced) redis.master(m).clock()->release();
      else setup.redis_clocks.push_back(redis.master(m).clock());
    }
    drivers.emplace(options, std::move(inputs), std::move(setup), sink);
    drivers->set_server_control(std::move(controls), redis.embedded(), [&redis] { return master_endpoints(redis); });
    log << "drivers: each client runs `" << driver << "`; their stderr goes to "
        << (fs::path(options.out) / "drivers").string() << "/\n";
  }
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
    write_run_ini_with_inputs(options, given ? nullptr : &input_bytes, redis.describe(), prefix);
    // Paced runs write every row at once: a few thousand rows a second cost nothing, and a run
    // killed outright (no unwinding) still leaves all it did. Virtual runs buffer for speed.
    const std::size_t flush_rows = options.mode == TimeMode::paced ? 1 : 1024;
    history = std::make_unique<HistoryWriter>((fs::path(options.out) / "history.csv").string(), flush_rows);
    log << "replay: semsim scenario " << shell_quote((fs::path(options.out) / "run.ini").string()) << "\n";
  }

  RunOutput output;
  try {
    output.result = simulation ? simulation->run() : drivers->run();
  } catch (...) {
    clean_or_say_what_is_left(redis, prefix);
    throw;
  }
  if (output.result.timed_out)
    for (int m = 0; m < redis.masters(); ++m) say_script_kill(redis.master(m), redis.master(m).kill_running_script());
  if (history) history->close();
  // Paced mode promises Redis's clock and the simulated one agree; say so when they drifted apart.
  if (drivers) {
    output.real_time = drivers->real_time();
    output.library = drivers->library();
    if (!output.library.empty()) log << "library: " << output.library << " (as its driver says)\n";
    for (const std::string& note : drivers->notes()) log << "note: " << note << "\n";
  }
  if (options.mode == TimeMode::paced && !drivers && output.result.max_lag > Micros(10'000))
    log << "warning: paced mode fell behind the wall clock by up to " << output.result.max_lag.count() / 1000
        << " ms (too much load for real time): Redis-side expiry happened that much early in true time\n";
  for (std::size_t m = 0; m < nets.size(); ++m)
    if (const std::string why = nets[m]->stop(); !why.empty())
      log << "warning: the safety net that gives this run's keys an expiry could not run"
          << (nets.size() > 1 ? " on master " + std::to_string(m + 1) : std::string()) << " (" << why
          << "): had semsim been killed, its keys would have stayed\n";
  clean_or_say_what_is_left(redis, prefix);
  for (const auto& net : nets) net->cleaned();
  core.reset();  // the outputs (and gnuplot) go wherever the scheduler likes
  output.summary = checker.finish(RunStats{static_cast<std::int64_t>(output.result.commands), output.result.wall_s,
                                                  static_cast<std::int64_t>(output.result.round_trips)});
  if (files.summary) {
    const fs::path out(options.out);
    write_summary_csv((out / "summary.csv").string(), output.summary);
    write_throughput_csv((out / "throughput.csv").string(), output.summary);
    if (output.real_time) write_real_time_csv((out / "realtime.csv").string(), *output.real_time);
    if (timeline) timeline->write((out / "timeline.html").string(), output.summary);
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
  // Warp is a driver's default where it works: one whose clocks it cannot hold (found at `ready`,
  // before the plan starts) runs paced, as it would have before warp existed.
  if (variant_info(options.variant).real_processes && options.mode == TimeMode::virtual_time && !options.mode_given) {
    try {
      return run(options, std::nullopt, redis, log, files);
    } catch (const WarpUnfit& e) {
      if (interrupt_signal()) throw;
      log << "note: warp (virtual time, the default for a driver) cannot run it: " << e.what()
          << "; it runs in real time (paced)\n";
      RunOptions paced = options;
      paced.mode = TimeMode::paced;
      return run(paced, std::nullopt, redis, log, files);
    }
  }
  return run(options, std::nullopt, redis, log, files);
}

RunOutput execute_run(const RunOptions& options, RunInputs inputs, RedisSession& redis, std::ostream& log,
                      RunFiles files) {
  return run(options, std::optional<RunInputs>(std::move(inputs)), redis, log, files);
}

}  // namespace semsim
