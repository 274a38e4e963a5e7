#include "sim/property_search.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include <rapidcheck.h>

#include "reports/history_reader.h"
#include "reports/output_file.h"
#include "sim/run_execution.h"
#include "sim/scenario.h"
#include "sim/wall_clock.h"

namespace semsim {

namespace fs = std::filesystem;

Properties properties_for(const std::string& variant) {
  const VariantInfo& v = variant_info(variant);
  return {.safety = true, .liveness = v.liveness, .lease_honesty = v.lease_honesty};
}

std::string_view to_string(Violation v) {
  switch (v) {
    case Violation::safety: return "safety (over-admission)";
    case Violation::liveness: return "liveness (a free permit not granted)";
    case Violation::lease_honesty: return "lease honesty (an ok'd acquire/refresh whose permit was gone)";
    default: return "none";
  }
}

std::int64_t count_broken_promises(const std::string& history_path, std::int64_t timeout_us) {
  struct Lease {
    std::int64_t promised_until_us = 0;
    bool release_invoked = false, failed = false;
  };
  std::map<std::string, Lease> leases;
  // Outstanding acquire invokes per client (several may overlap in a script). A completion takes
  // the earliest: that can only make a promise shorter, never invent one.
  std::map<int, std::multiset<std::int64_t>> acquiring;
  std::map<std::string, std::multiset<std::int64_t>> refreshing;
  const auto take_earliest = [](std::multiset<std::int64_t>& s, std::int64_t fallback) {
    if (s.empty()) return fallback;
    const std::int64_t t = *s.begin();
    s.erase(s.begin());
    return t;
  };
  std::int64_t broken = 0;
  HistoryReader reader(history_path);
  Event e;
  while (reader.next(e)) {
    if (e.op == Op::acquire) {
      if (e.phase == Phase::invoke) {
        acquiring[e.client].insert(e.true_us);
        continue;
      }
      const std::int64_t invoked = take_earliest(acquiring[e.client], e.true_us);
      if (e.phase == Phase::ok) leases[e.identifier].promised_until_us = invoked + timeout_us;
    } else if (e.op == Op::refresh) {
      if (e.phase == Phase::invoke) {
        refreshing[e.identifier].insert(e.true_us);
        continue;
      }
      const std::int64_t invoked = take_earliest(refreshing[e.identifier], e.true_us);
      Lease& l = leases[e.identifier];
      if (e.phase == Phase::ok) l.promised_until_us = std::max(l.promised_until_us, invoked + timeout_us);
      // A refresh that lost to the client's own release is no broken promise.
      if (e.phase == Phase::fail && !l.release_invoked && !l.failed) {
        l.failed = true;
        if (e.true_us < l.promised_until_us) ++broken;
      }
    } else if (e.op == Op::release) {
      Lease& l = leases[e.identifier];
      if (e.phase == Phase::invoke) l.release_invoked = true;
      // The server ran the release no later than its reply came back: if that is before the
      // promised end, the permit vanished while the promise stood.
      if (e.phase == Phase::fail && !l.failed) {
        l.failed = true;
        if (e.true_us < l.promised_until_us) ++broken;
      }
    }
  }
  return broken;
}

CaseOutcome run_case(const GenCase& c, const SearchSettings& s, RedisSession& redis, const std::string& dir) {
  const Properties props = properties_for(s.variant);
  const RunOptions options = materialize(c, s.variant, s.lock_timeout_us, dir);
  std::ostringstream log;
  // The history is only written when a property reads it: most cases need the summary alone.
  const RunOutput run = execute_run(options, redis, log, RunFiles{.history = props.lease_honesty, .summary = false});
  if (!run.result.completed) throw std::runtime_error("a run stopped early: " + run.result.stop_reason);

  CaseOutcome out;
  out.summary = run.summary;
  const Summary& sum = run.summary;
  if (props.safety && sum.over_admission > 0) {
    out.violation = Violation::safety;
    out.detail = "over_admission=" + std::to_string(sum.over_admission) + " (max_holders " +
                 std::to_string(sum.max_holders) + ", limit " + std::to_string(sum.limit) + ")";
  } else if (props.liveness && sum.liveness_gaps > 0) {
    out.violation = Violation::liveness;
    out.detail = "liveness_gaps=" + std::to_string(sum.liveness_gaps) + " (longest no-grant " +
                 std::to_string(sum.longest_no_grant_us / 1000) + " ms, bound " + std::to_string(sum.liveness_bound_ms) + " ms)";
  } else if (props.lease_honesty) {
    out.broken_promises = count_broken_promises((fs::path(dir) / "history.csv").string(), c.timeout_us);
    if (out.broken_promises > 0) {
      out.violation = Violation::lease_honesty;
      out.detail = std::to_string(out.broken_promises) + " ok'd leases gone before invoke + timeout";
    }
  }
  return out;
}

namespace {

// Counts discards and accepted shrinks; RapidCheck reports both only through a listener.
class Listener : public rc::detail::TestListener {
 public:
  explicit Listener(SearchReport& report) : report_(report) {}
  void onTestCaseFinished(const rc::detail::CaseDescription& d) override {
    if (d.result.type == rc::detail::CaseResult::Type::Discard) ++report_.discarded;
  }
  void onShrinkTried(const rc::detail::CaseDescription&, bool accepted) override {
    if (accepted) ++report_.shrink_steps;
  }
  void onTestFinished(const rc::detail::TestMetadata&, const rc::detail::TestResult&) override {}

 private:
  SearchReport& report_;
};

std::string expectation_for(Violation v) {
  switch (v) {
    case Violation::safety: return "over_admission_max = 0";
    case Violation::liveness: return "liveness_gaps_max = 0";
    default: return "";  // lease honesty has no summary column: the history shows it
  }
}

// Writes <out>/counterexample.ini next to clients.csv / actions.csv (paths relative to it, so the
// folder can be moved) and returns its path.
std::string write_counterexample(const SearchSettings& s, const SearchReport& r) {
  const RunOptions options = materialize(r.minimal, s.variant, s.lock_timeout_us, s.out);
  std::ostringstream ini;
  write_run_ini(ini, options);
  const std::string path = (fs::path(s.out) / "counterexample.ini").string();
  std::ofstream out(path);
  out << "# semsim check: " << to_string(r.violation) << "\n"
      << "#   " << r.minimal_outcome.detail << "\n"
      << "# found by: " << s.reproduce << "\n"
      << "#   at case " << r.first_failure_case << " (" << describe(r.first) << ")\n"
      << "#   shrunk in " << r.shrink_steps << " steps to: " << describe(r.minimal) << "\n"
      << "# replay: semsim scenario " << path << "\n";
  std::istringstream lines(ini.str());
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("clients-file = ")) line = "clients-file = clients.csv";
    if (line.starts_with("actions-file = ")) line = "actions-file = actions.csv";
    out << line << "\n";
  }
  out << "\n[expect]\n";
  if (const std::string e = expectation_for(r.violation); !e.empty()) out << e << "\n";
  else out << "# " << to_string(r.violation) << ": see history.csv (no summary column states it)\n";
  check_written(out, path);
  return path;
}

// Replays the written file the way `semsim scenario` does; true if an expectation fails again.
bool replay_fails(const std::string& path, const std::string& out, RedisSession& redis) {
  Scenario sc = load_scenario(path);
  bool failed = false;
  for (RunOptions options : sc.runs) {
    options.out = (fs::path(out) / "replay").string();
    options.charts = false;
    std::ostringstream log;
    const RunOutput run = execute_run(options, redis, log);
    const auto values = summary_values(run.summary);
    for (const Expectation& e : sc.expectations)
      if (e.kind != Expectation::Kind::trend && !judge(e, values).met) failed = true;
  }
  return failed;
}

}  // namespace

SearchReport search(const SearchSettings& s, RedisSession& redis) {
  SearchReport report;
  GenSettings g;
  g.max_clients = s.max_clients;
  g.lock_timeout_us = s.lock_timeout_us;
  g.server_jumps = s.server_jumps;
  g.server_faults = s.server_faults;
  if (s.preconditions) g.pre = preconditions_for(s.variant);
  if (s.allow_delay) g.pre.no_delay = false;
  const std::string scratch = (fs::path(s.out) / "case").string();

  Stopwatch watch;
  double last_progress = -1;
  const auto progress = [&](bool force) {
    if (!s.progress || (!force && watch.seconds() - last_progress < 0.2)) return;
    last_progress = watch.seconds();
    std::cerr << "\r\033[K";
    if (report.first_failure_case == 0)
      std::cerr << "semsim check: case " << report.cases_run << "/" << s.cases << ", "
                << std::fixed << std::setprecision(1) << report.cases_run / std::max(1e-9, watch.seconds()) << " cases/s";
    else
      std::cerr << "semsim check: " << to_string(report.violation) << " at case " << report.first_failure_case
                << "; shrinking: " << report.shrink_steps << " steps, " << report.shrink_tries << " tries";
    std::cerr << std::flush;
  };

  bool failed_once = false;
  const auto property = [&] {
    const GenCase c = *gen_case(g);
    // normalize() already keeps cases inside the preconditions; this guards that guard.
    RC_PRE(meets(c, g));
    if (!report.error.empty()) return;  // the search is broken: let RapidCheck finish quickly
    ++(failed_once ? report.shrink_tries : report.cases_run);
    CaseOutcome o;
    try {
      o = run_case(c, s, redis, scratch);
    } catch (const std::exception& e) {
      report.error = e.what();
      return;
    }
    progress(false);
    if (o.violation == Violation::none) return;
    if (!failed_once) {
      failed_once = true;
      report.first = c;
      report.first_failure_case = report.cases_run;
      report.seconds_to_first_failure = watch.seconds();
      report.violation = o.violation;
    } else if (o.violation != report.violation) {
      return;  // shrink towards the property first broken, not another one
    }
    // RapidCheck accepts a shrink only if it fails too and tries no other case after the last
    // accepted one fails: the last failing invocation is the minimal counterexample.
    report.minimal = c;
    report.minimal_outcome = o;
    RC_FAIL(o.detail);
  };

  rc::detail::TestParams params;
  params.seed = s.seed;
  params.maxSuccess = s.cases;
  params.maxSize = 100;
  params.maxDiscardRatio = 10;
  // Explicit parameters rather than RC_PARAMS: the search must not change with the caller's
  // environment, and the listener gives us discards and shrink steps.
  Listener listener(report);
  {
    // RapidCheck loads its global configuration on a failure and prints it to stderr (with a
    // random seed we do not use). Load it now, silently: our parameters above decide the search.
    std::ostringstream sink;
    std::streambuf* saved = std::cerr.rdbuf(sink.rdbuf());
    rc::detail::configuration();
    std::cerr.rdbuf(saved);
  }
  rc::detail::TestMetadata metadata{"semsim check " + s.variant, "semsim check " + s.variant};
  const rc::detail::TestResult result = rc::detail::checkTestable(property, metadata, params, listener);
  report.seconds = watch.seconds();
  if (s.progress) std::cerr << "\r\033[K" << std::flush;
  if (!report.error.empty()) return report;
  if (result.is<rc::detail::GaveUpResult>()) {
    report.error = "RapidCheck gave up: " + result.get<rc::detail::GaveUpResult>().description;
    return report;
  }
  if (result.is<rc::detail::Error>()) {
    report.error = "RapidCheck: " + result.get<rc::detail::Error>().description;
    return report;
  }
  if (!failed_once) {
    fs::remove_all(scratch);
    return report;
  }

  report.found = true;
  // The recorded case must still fail when run alone: virtual mode is deterministic.
  const CaseOutcome again = run_case(report.minimal, s, redis, scratch);
  if (again.violation != report.violation)
    report.error = "the shrunk case did not fail again when re-run alone (" + std::string(to_string(again.violation)) + ")";
  fs::remove_all(scratch);
  report.counterexample = write_counterexample(s, report);
  report.replay_failed = replay_fails(report.counterexample, s.out, redis);
  return report;
}

}  // namespace semsim
