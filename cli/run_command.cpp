// semsim run: one run of one variant.
#include <iostream>

#include <boost/program_options.hpp>

#include "algorithms/api/semaphore.h"
#include "cli/commands.h"
#include "reports/checks/exercise.h"
#include "reports/checks/expectations.h"
#include "reports/checks/summary_csv.h"
#include "sim/core/interrupt.h"
#include "sim/drivers/real_time_report.h"
#include "sim/run/repeated_runs.h"
#include "sim/run/run_execution.h"
#include "sim/scenario/client_table.h"
#include "sim/scenario/run_options_io.h"

namespace semsim {

namespace po = boost::program_options;

int run_command(int argc, char** argv) {
  po::options_description general("semsim run: one run of one variant against a real Redis");
  general.add_options()("help,h", "this help")("list-variants", "list the built-in variants")(
      "expect", po::value<std::vector<std::string>>()->composing(),
      "METRIC=VALUE, METRIC_min=V, METRIC_max=V: exit 1 unless the summary meets it (repeatable; "
      "METRIC is any summary.csv column, e.g. --expect over_admission_max=0); with any --expect the run "
      "must also have exercised its variant (exercised=yes) unless an --expect names exercised")(
      "fail-on-violation", po::bool_switch(),
      "exit 1 on a safety violation (safety invalid), 3 on a liveness violation alone, 2 when the run "
      "never exercised its variant (no grant, or most operations unknown); without it (and without "
      "--expect) run exits 0 whatever it found")(
      "repeat", po::value<std::string>()->default_value("1"),
      "N runs of the same plan, seeds --seed, --seed + 1, ..., each in OUT/seed-S/, and repeat.csv: how many were "
      "invalid (with driver:COMMAND a verdict is a statistic; --expect is judged on every run)");
  po::options_description all;
  all.add(general).add(run_options_description());
  RunOptions options;
  std::vector<Expectation> expectations;
  int repeat = 1;
  bool fail_on_violation = false;
  try {
    po::variables_map vm;
    po::store(po::command_line_parser(argc, argv).options(all).run(), vm);
    po::notify(vm);
    if (vm.count("help")) {
      std::cout << all << "\n" << docs_footer();
      return kExitOk;
    }
    if (vm.count("list-variants")) {
      for (const auto& v : builtin_variants()) std::cout << v << "\n";
      return kExitOk;
    }
    options = run_options_from(vm);
    try {
      repeat = static_cast<int>(parse_integer(vm["repeat"].as<std::string>(), 1, 10'000));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("--repeat " + vm["repeat"].as<std::string>() + ": " + e.what());
    }
    fail_on_violation = vm["fail-on-violation"].as<bool>();
    if (vm.count("expect")) {
      for (const std::string& text : vm["expect"].as<std::vector<std::string>>()) {
        const auto eq = text.find('=');
        if (eq == std::string::npos) throw std::invalid_argument("--expect " + text + ": use METRIC=VALUE");
        Expectation e = parse_expectation(text.substr(0, eq), text.substr(eq + 1));
        if (e.kind == Expectation::Kind::trend) throw std::invalid_argument("--expect " + text + ": a trend needs a sweep (semsim scenario)");
        expectations.push_back(e);
      }
    }
  } catch (const std::exception& e) {
    std::cerr << "semsim run: " << e.what() << "\n";
    return kExitBadInput;
  }

  try {
    RedisSession redis(options.redis_url, options.server);
    int failed = 0;
    const auto say = [&](bool met, const std::string& what, const std::string& observed) {
      failed += !met;
      std::cout << (met ? "ok      " : "FAILED  ") << what << "   observed " << (observed.empty() ? "n/a" : observed) << "\n";
    };
    // --fail-on-violation: the worst any run found (safety, then never exercised, then liveness).
    Finding found = Finding::none;
    const auto judge_all = [&](const RunOutput& out) {
      const auto values = summary_values(out.summary);
      if (!out.summary.exercised) {
        Exercise exercise;
        exercise.add(out.summary);
        std::cerr << "semsim run: warning: the variant was never exercised: " << exercise.why_not("this run")
                  << "; its verdicts say nothing about it (reports/DEFINITIONS.md, Exercised)\n";
      }
      bool names_exercised = false;
      for (const Expectation& e : expectations) {
        const Judgement j = judge(e, values);
        say(j.met, e.describe(), j.observed);
        names_exercised = names_exercised || e.metric == "exercised";
      }
      // An expectation met by a run that exercised nothing is met vacuously: not a pass.
      if (!expectations.empty() && !names_exercised)
        say(out.summary.exercised, "exercised = yes (implied by --expect)", values.at("exercised"));
      // Nor one met by a driver run that did not stage what its plan said.
      if (out.real_time && !as_planned(*out.real_time)) {
        std::cerr << "semsim run: warning: the run did not go as planned: " << why_not_as_planned(*out.real_time)
                  << "; what its plan stages did not happen (reports/DEFINITIONS.md, Unplanned lag of a driver run)\n";
        if (!expectations.empty()) say(false, "as planned (implied by --expect for a driver run)", why_not_as_planned(*out.real_time));
      }
      if (out.summary.safety == Verdict::invalid) found = Finding::safety_violation;
      else if (!out.summary.exercised && found != Finding::safety_violation) found = Finding::not_exercised;
      else if (out.summary.liveness == Verdict::invalid && found == Finding::none) found = Finding::liveness_violation_alone;
    };
    const auto exit_for = [&] {
      if (failed) return exit_code(Finding::unmet_expectation);
      return exit_code(fail_on_violation ? found : Finding::none);
    };
    if (repeat > 1) {
      const RepeatedRuns runs = repeat_run(options, repeat, redis, std::cerr, [&](const RunOptions& one, const RunOutput& out) {
        std::cout << describe_repeat(one, out) << "\n";
        if (out.result.completed) judge_all(out);
      });
      std::cout << runs.verdict() << " (" << options.out << "/repeat.csv)\n";
      if (!runs.runs.back().result.completed) {
        std::cerr << "semsim run: stopped early (" << runs.runs.back().result.stop_reason << ")\n";
        return exit_code_after_error();
      }
      return exit_for();
    }
    const RunOutput out = execute_run(options, redis, std::cerr);
    print_summary(std::cout, out.summary);
    if (out.real_time) {
      std::cout << describe(*out.real_time) << "\n";
      if (const std::string w = stall_warning(*out.real_time, options.timeout.count()); !w.empty()) std::cout << w << "\n";
    }
    if (!out.result.completed) {
      std::cerr << "semsim run: stopped early (" << out.result.stop_reason << "); the history up to then is in "
                << options.out << "\n";
      return exit_code_after_error();
    }
    judge_all(out);
    return exit_for();
  } catch (const std::exception& e) {
    std::cerr << "semsim run: " << what_failed(e) << "\n";
    return exit_code_after_error();
  }
}

}  // namespace semsim
