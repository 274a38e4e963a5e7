#include "sim/search/property_search.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <deque>
#include <memory>
#include <optional>
#include <vector>
#include <sstream>

#include <rapidcheck.h>

#include "reports/checks/leases.h"
#include "reports/history/history_reader.h"
#include "reports/history/output_file.h"
#include "reports/history/text_format.h"
#include "sim/core/interrupt.h"
#include "sim/core/wall_clock.h"
#include "sim/run/run_execution.h"
#include "sim/scenario/run_options_io.h"
#include "sim/scenario/scenario.h"
#include "sim/search/case_pool.h"

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
  LeaseTracker leases;
  leases.set_timeout_us(timeout_us);
  HistoryReader reader(history_path);
  Event e;
  while (reader.next(e)) {
    if (e.op == Op::crash) leases.crashed(e.client);
    else leases.add(e);
  }
  return leases.broken();
}

CaseOutcome run_case(const GenCase& c, const SearchSettings& s, RedisSession& redis, const std::string& dir) {
  const Properties props = properties_for(s.variant);
  CaseRun run_of_case = case_run(c, s.variant, s.lock_timeout_us, dir);
  std::ostringstream log;
  // Nothing of a case touches the disk: every property reads the summary (lease honesty too:
  // broken_leases).
  const RunOutput run = execute_run(run_of_case.options, std::move(run_of_case.inputs), redis, log,
                                    RunFiles{.history = false, .summary = false});
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
                 std::to_string(sum.longest_no_grant_us / 1000) + " ms, bound " + std::to_string(sum.liveness_bound_us / 1000) + " ms)";
  } else if (props.lease_honesty && sum.broken_leases > 0) {
    out.broken_promises = sum.broken_leases;
    out.violation = Violation::lease_honesty;
    out.detail = "broken_leases=" + std::to_string(out.broken_promises) + " (ok'd leases gone before invoke + timeout)";
  }
  return out;
}

namespace {

std::string expectation_for(Violation v) {
  switch (v) {
    case Violation::safety: return "over_admission_max = 0";
    case Violation::liveness: return "liveness_gaps_max = 0";
    case Violation::lease_honesty: return "broken_leases_max = 0";
    case Violation::none: break;
  }
  throw std::logic_error("a counterexample without a violation");
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
      << "# preconditions: " << preconditions_verdict(r.minimal, s.variant, s.lock_timeout_us) << "\n"
      << "# replay: semsim scenario " << shell_quote(path) << "\n";
  std::istringstream lines(ini.str());
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("clients-file = ")) line = "clients-file = clients.csv";
    if (line.starts_with("actions-file = ")) line = "actions-file = actions.csv";
    if (line.starts_with("masters-file = ")) line = "masters-file = masters.csv";
    out << line << "\n";
  }
  // The property that broke, as an expectation that the replay fails again.
  out << "\n[expect]\n" << expectation_for(r.violation) << "\n";
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

SearchReport search(const SearchSettings& s, RedisSession& redis) { return search(s, std::vector<RedisSession*>{&redis}); }

namespace {

// The search does what RapidCheck's own driver would (cases from one seed, sizes growing, the
// first failure shrunk greedily: the first shrink that fails the same way is taken, until none
// does), but runs cases on every Redis at once (case_pool.h) and judges them in case order: the
// first failing case, its shrinks and the counterexample are the same whatever the number of
// servers. Cases past the first failure may have run too; they are not counted.
class Search {
 public:
  Search(const SearchSettings& s, const std::vector<RedisSession*>& redis)
      : s_(s), redis_(redis), gen_(gen_settings(s)), pool_(redis) {}

  SearchReport run() {
    make_scratch_root();
    std::optional<rc::Shrinkable<GenCase>> first = find_first_failure();
    if (first && report_.error.empty()) shrink(*first);
    report_.seconds = watch_.seconds();
    if (s_.progress) std::cerr << "\r\033[K" << std::flush;
    if (!report_.error.empty() && interrupt_signal()) {
      // Ctrl-C: what was searched so far is the answer, and the case folders hold nothing to keep.
      report_.error = report_.first_failure_case == 0
                          ? "interrupted after " + std::to_string(report_.cases_run) + " of " +
                                std::to_string(s_.shard.owned(s_.cases)) +
                                " cases, no violation so far (a partial search: no verdict on the cases not run)"
                          : "interrupted while shrinking the " + std::string(to_string(report_.violation)) +
                                " violation of case #" + std::to_string(report_.first_failure_case) +
                                ": no counterexample written";
      fs::remove_all(scratch_root_);
    }
    if (!report_.error.empty()) return report_;  // the case folders stay, to look at
    // No violation in cases that never exercised the variant is no pass (exercise.h).
    if (!first && !report_.exercise.exercised())
      report_.not_exercised = report_.exercise.why_not(std::to_string(report_.cases_run) + " cases");
    if (first) confirm_and_write();
    fs::remove_all(scratch_root_);
    if (first) report_.replay_failed = replay_fails(report_.counterexample, s_.out, *redis_.front());
    return report_;
  }

 private:
  static GenSettings gen_settings(const SearchSettings& s) {
    GenSettings g;
    g.max_clients = s.max_clients;
    g.lock_timeout_us = s.lock_timeout_us;
    g.server_jumps = s.server_jumps;
    g.server_faults = s.server_faults;
    g.time_step_us = variant_info(s.variant).timeout_step.count();
    g.masters = s.masters;
    g.limit = s.limit;
    g.timeout_us = s.timeout_us;
    g.lock = variant_info(s.variant).lock;
    if (s.preconditions) g.pre = preconditions_for(s.variant);
    if (s.allow_delay) g.pre.no_delay = false;
    for (const std::string& name : s.dropped) drop_precondition(g.pre, name);
    return g;
  }

  // The folder of this search's case files: made here, under --out, with a name no other folder
  // has (mkdtemp), so that removing it removes only what this search made: --out may be `.`, and
  // hold the user's own `case` folder.
  void make_scratch_root() {
    fs::create_directories(s_.out);
    std::string name = (fs::path(s_.out) / "cases.XXXXXX").string();
    if (!::mkdtemp(name.data()))
      throw std::runtime_error("cannot make a folder for the cases under " + s_.out + ": " + std::strerror(errno));
    scratch_root_ = name;
  }

  // Where worker `job` runs its cases.
  std::string scratch(std::size_t job) const { return (scratch_root_ / ("job-" + std::to_string(job + 1))).string(); }

  void progress(bool force) {
    if (!s_.progress || (!force && watch_.seconds() - last_progress_ < 0.2)) return;
    last_progress_ = watch_.seconds();
    std::cerr << "\r\033[K";
    if (report_.first_failure_case == 0) {
      // The rest at the rate so far: cases grow with their index, so an early estimate is low.
      const long long owned = s_.shard.owned(s_.cases);
      const double rate = report_.cases_run / std::max(1e-9, watch_.seconds());
      std::cerr << "semsim check: case " << report_.cases_run << "/" << owned << ", " << std::fixed
                << std::setprecision(1) << rate << " cases/s";
      if (report_.cases_run > 0 && report_.cases_run < owned)
        std::cerr << ", about " << static_cast<long long>((owned - report_.cases_run) / rate + 0.5) << " s left";
    } else
      std::cerr << "semsim check: " << to_string(report_.violation) << " at case " << report_.first_failure_case
                << "; shrinking: " << report_.shrink_steps << " steps, " << report_.shrink_tries << " tries";
    std::cerr << std::flush;
  }

  // A case on its way through the pool.
  struct Slot {
    rc::Shrinkable<GenCase> shrinkable;
    GenCase value;  // taken here: RapidCheck builds values lazily, with state of the thread that generated them
    CaseOutcome outcome;
    std::string error;
    std::uint64_t ticket = 0;
  };

  // Runs the cases that `next` gives (nullopt: no more), up to four per server ahead of the one
  // being judged, and judges them in order. Returns the first whose outcome `fails` accepts, or
  // nothing (also on an error, in report_.error). `counted` is called with each outcome judged.
  template <typename Next, typename Fails, typename Counted>
  std::optional<Slot> first_failing(Next next, Fails fails, Counted counted) {
    std::deque<std::unique_ptr<Slot>> window;
    // Whatever way this returns, no task may still write to a slot of the window.
    struct Drain {
      CasePool& pool;
      ~Drain() { pool.drop_queued(); }
    } drain{pool_};
    for (bool more = true;;) {
      while (more && window.size() < 4 * pool_.size()) {
        std::optional<rc::Shrinkable<GenCase>> c = next();
        if (!(more = c.has_value())) break;
        Slot* slot = window.emplace_back(std::make_unique<Slot>(Slot{*c, c->value(), {}, {}, 0})).get();
        slot->ticket = pool_.submit([this, slot](RedisSession& redis, std::size_t worker) {
          try {
            slot->outcome = run_case(slot->value, s_, redis, scratch(worker));
          } catch (const std::exception& e) {
            slot->error = e.what();
          }
        });
      }
      if (window.empty()) return std::nullopt;
      Slot& head = *window.front();
      pool_.wait_for(head.ticket);
      if (!head.error.empty()) {
        report_.error = head.error;
        return std::nullopt;
      }
      counted(head.outcome);
      progress(false);
      if (fails(head.outcome)) return std::move(head);
      window.pop_front();
    }
  }

  // The cases, generated from the seed on this thread as the pool asks for them (cheap next to
  // running them): a case's size grows with its index, as RapidCheck's do; cases outside the
  // preconditions are discarded. The first that breaks a property, or nothing. What is counted
  // (cases run, discarded) stops at that case, whatever was generated past it.
  std::optional<rc::Shrinkable<GenCase>> find_first_failure() {
    constexpr int kMaxSize = 100, kMaxDiscardRatio = 10;
    rc::Random random(s_.seed);
    const rc::Gen<GenCase> gen = gen_case(gen_);
    int generated = 0, discarded = 0;
    std::vector<int> discarded_before;  // per generated case
    bool gave_up = false;
    std::vector<int> numbers;  // per case run: its global number, 1-based
    const auto next = [&]() -> std::optional<rc::Shrinkable<GenCase>> {
      while (generated < s_.cases) {
        const int size = s_.cases > 1 ? generated * kMaxSize / (s_.cases - 1) : kMaxSize;
        rc::Shrinkable<GenCase> c = gen(random.split(), std::min(size, kMaxSize));
        // normalize() already keeps cases inside the preconditions; this guards that guard.
        if (meets(c.value(), gen_)) {
          // Another shard's case is generated all the same: the random stream and the sizes of the
          // cases after it are those of the whole search.
          if (!s_.shard.owns(generated++)) continue;
          discarded_before.push_back(discarded);
          numbers.push_back(generated);
          return c;
        }
        if (++discarded > kMaxDiscardRatio * s_.cases) {
          gave_up = true;
          break;
        }
      }
      return std::nullopt;
    };
    std::optional<Slot> failing = first_failing(
        next, [](const CaseOutcome& o) { return o.violation != Violation::none; },
        [&](const CaseOutcome& o) {
          ++report_.cases_run;
          report_.exercise.add(o.summary);
        });
    if (!failing) {
      // All of this shard's cases judged, or those up to where an error or the discards stopped it.
      report_.judged_through = !report_.error.empty() ? (report_.cases_run ? numbers[static_cast<std::size_t>(report_.cases_run - 1)] : 0)
                               : gave_up             ? generated
                                                     : s_.cases;
      report_.discarded = discarded;
      if (gave_up && report_.error.empty())
        report_.error = "gave up: more than " + std::to_string(kMaxDiscardRatio) + " discarded cases per case run";
      return std::nullopt;
    }
    report_.discarded = discarded_before[static_cast<std::size_t>(report_.cases_run - 1)];
    report_.first = failing->value;
    report_.first_failure_case = report_.judged_through = numbers[static_cast<std::size_t>(report_.cases_run - 1)];
    report_.seconds_to_first_failure = watch_.seconds();
    report_.violation = failing->outcome.violation;
    report_.minimal = report_.first;
    report_.minimal_outcome = std::move(failing->outcome);
    return failing->shrinkable;
  }

  // Greedy shrinking towards the property first broken, not another one: the first shrink that
  // fails the same way is taken, until none does.
  void shrink(rc::Shrinkable<GenCase> current) {
    const auto same = [&](const CaseOutcome& o) { return o.violation == report_.violation; };
    for (;;) {
      rc::Seq<rc::Shrinkable<GenCase>> shrinks = current.shrinks();
      const auto next = [&]() -> std::optional<rc::Shrinkable<GenCase>> {
        if (rc::Maybe<rc::Shrinkable<GenCase>> s = shrinks.next()) return std::move(*s);
        return std::nullopt;
      };
      std::optional<Slot> smaller = first_failing(next, same, [&](const CaseOutcome&) { ++report_.shrink_tries; });
      if (!smaller) return;
      ++report_.shrink_steps;
      current = smaller->shrinkable;
      report_.minimal = smaller->value;
      report_.minimal_outcome = std::move(smaller->outcome);
    }
  }

  // The recorded case must still fail when run alone (virtual mode is deterministic); then it is
  // written as a scenario to replay.
  void confirm_and_write() {
    report_.found = true;
    const CaseOutcome again = run_case(report_.minimal, s_, *redis_.front(), scratch(0));
    if (again.violation != report_.violation)
      report_.error =
          "the shrunk case did not fail again when re-run alone (" + std::string(to_string(again.violation)) + ")";
    report_.counterexample = write_counterexample(s_, report_);
  }

  const SearchSettings& s_;
  const std::vector<RedisSession*>& redis_;
  const GenSettings gen_;
  CasePool pool_;
  SearchReport report_;
  fs::path scratch_root_;  // made by this search (make_scratch_root)
  Stopwatch watch_;
  double last_progress_ = -1;
};

}  // namespace

SearchReport search(const SearchSettings& s, const std::vector<RedisSession*>& redis) { return Search(s, redis).run(); }

}  // namespace semsim
