// semsim scenario FILE...: runs scenario files and compares the results with their expectations.
#include <algorithm>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>

#include <boost/program_options.hpp>

#include "algorithms/registry.h"
#include "cli/commands.h"
#include "reports/checks/exercise.h"
#include "reports/checks/summary_csv.h"
#include "sim/core/interrupt.h"
#include "sim/drivers/real_time_report.h"
#include "sim/redis/shipped_files.h"
#include "sim/run/repeated_runs.h"
#include "sim/run/run_execution.h"
#include "sim/scenario/client_table.h"
#include "sim/scenario/run_options_io.h"
#include "sim/scenario/scenario.h"

namespace semsim {

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace {

struct Tally {
  int met = 0, failed = 0;
};

void report(std::ostream& out, const std::string& label, const Expectation& e, const Judgement& j, Tally& tally) {
  (j.met ? tally.met : tally.failed)++;
  std::ostringstream what;
  what << e.describe();
  out << "  " << (j.met ? "ok    " : "FAILED") << "  " << std::left << std::setw(27) << label << " " << std::setw(34)
      << what.str() << " observed " << (j.observed.empty() ? "n/a" : j.observed) << "\n";
}

// --variant: the file's plan, with another variant (its first variant's runs). A driver runs in
// warp, as by default (paced when warp cannot hold it, or on --redis): a model's counterexample,
// written in virtual time, replays on the real code at the same instants.
void use_variant(Scenario& sc, const std::string& variant) {
  const std::size_t points = sc.sweep_option.empty() ? 1 : sc.sweep_values.size();
  std::vector<RunOptions> runs(sc.runs.begin(), sc.runs.begin() + static_cast<std::ptrdiff_t>(points));
  for (RunOptions& o : runs) {
    o.variant = variant;
    if (variant_info(variant).real_processes) o.mode_given = false;
  }
  sc.variants = {variant};
  sc.runs = std::move(runs);
}

}  // namespace

int scenario_command(int argc, char** argv) {
  po::options_description o("semsim scenario FILE... [options]: run scenario files, check their expectations");
  o.add_options()("help,h", "this help")("file", po::value<std::vector<std::string>>(), "scenario files (.ini)")(
      "out", po::value<std::string>()->default_value("semsim-out/scenarios"), "where each run's files go")(
      "redis", po::value<std::string>(), "run against this Redis instead of an embedded one (see semsim run --help)")(
      "charts", po::bool_switch(), "draw each run's charts (off by default: slower)")(
      "verbose,v", po::bool_switch(), "print each run's summary table")(
      "variant", po::value<std::string>(),
      "run this variant instead of the file's (e.g. replay a counterexample.ini of `semsim check` against your own "
      "library: --variant \"driver:COMMAND\", docs/drivers.md); a driver runs in warp (virtual time), paced where "
      "warp cannot hold it")(
      "repeat", po::value<std::string>()->default_value("1"),
      "run each N times, seeds seed, seed + 1, ... (in OUT/.../seed-S/): how many met each expectation");
  po::positional_options_description positional;
  positional.add("file", -1);
  std::vector<Scenario> scenarios;
  std::string out_base, redis_url, variant;
  bool charts = false, verbose = false;
  int repeat = 1;
  try {
    po::variables_map vm;
    po::store(po::command_line_parser(argc, argv).options(o).positional(positional).run(), vm);
    po::notify(vm);
    if (vm.count("help")) {
      std::cout << o << "\nA scenario file holds the options of `semsim run` and an [expect] section:\n"
                << "  over_admission = 1 | over_admission_max = 0 | granted_min = 100 | over_admission_trend = increasing\n"
                << "(any summary.csv column; see scenarios/README.md). Every run must also exercise its variant\n"
                << "(exercised = yes: a grant, at most half the operations unknown) unless the file says exercised = no.\n"
                << "A FILE that is a bare name and does not exist here is looked up among the shipped scenarios:\n"
                << shipped_scenarios_help() << " (e.g. steal-10ms.ini).\n\n"
                << docs_footer();
      return kExitOk;
    }
    if (!vm.count("file")) throw std::invalid_argument("no scenario file given");
    out_base = vm["out"].as<std::string>();
    if (vm.count("redis")) redis_url = vm["redis"].as<std::string>();
    charts = vm["charts"].as<bool>();
    verbose = vm["verbose"].as<bool>();
    if (vm.count("variant")) {
      variant = vm["variant"].as<std::string>();
      variant_info(variant);  // an unknown one is bad input now
    }
    try {
      repeat = static_cast<int>(parse_integer(vm["repeat"].as<std::string>(), 1, 10'000));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("--repeat " + vm["repeat"].as<std::string>() + ": " + e.what());
    }
    // Every file is read before anything runs: a typo in the tenth file costs no time.
    for (const auto& f : vm["file"].as<std::vector<std::string>>()) scenarios.push_back(load_scenario(resolve_scenario_path(f)));
    if (!variant.empty())
      for (Scenario& sc : scenarios) use_variant(sc, variant);
  } catch (const std::exception& e) {
    std::cerr << "semsim scenario: " << e.what() << "\n";
    return exit_code_after_error();  // the files are read here: a Ctrl-C may stop that
  }

  Tally tally;
  try {
    RedisSession redis(redis_url);
    for (Scenario& sc : scenarios) {
      std::cout << "scenario " << sc.name << " (" << sc.path << ")\n";
      const std::size_t points = sc.sweep_option.empty() ? 1 : sc.sweep_values.size();
      const std::vector<std::string> labels = variant_labels(sc.variants);
      for (std::size_t v = 0; v < sc.variants.size(); ++v) {
        std::vector<std::map<std::string, std::string>> results;
        std::vector<std::string> why_not;  // per run (as results): why it did not exercise the variant
        std::vector<std::optional<std::string>> off_plan;  // per driver run: why it did not go as planned, or ""
        for (std::size_t p = 0; p < points; ++p) {
          RunOptions options = sc.runs[v * points + p];
          options.charts = charts;
          // A script variant's folder is its INI's base name (script:dir/lease.ini -> lease), with
          // its folders where two scripts share one.
          std::string folder = labels[v];
          for (char& c : folder)
            if (c == '/' || c == ':') c = '_';
          if (points > 1) folder += "-" + std::to_string(p);
          options.out = (fs::path(out_base) / sc.name / folder).string();
          if (!redis_url.empty()) {
            options.redis_url = redis_url;
            // Warp needs Redis's clock to follow virtual time: a user's Redis keeps its own.
            if (variant_info(options.variant).real_processes) options.mode = TimeMode::paced;
          }
          std::ostringstream log;
          std::vector<RunOutput> runs;
          if (repeat == 1) {
            runs.push_back(execute_run(options, redis, log));
          } else {
            RepeatedRuns repeated = repeat_run(options, repeat, redis, log, [](const RunOptions& one, const RunOutput& run) {
              std::cout << "  " << describe_repeat(one, run) << "\n";
            });
            std::cout << "  " << repeated.verdict() << "\n";
            runs = std::move(repeated.runs);
          }
          for (const RunOutput& run : runs) {
            if (verbose) {
              std::cout << log.str();
              print_summary(std::cout, run.summary);
              if (run.real_time) std::cout << describe(*run.real_time) << "\n";
            }
            if (!run.result.completed) {
              std::cerr << "semsim scenario: " << sc.name << ": the run stopped early: " << run.result.stop_reason << "\n";
              return exit_code_after_error();
            }
            results.push_back(summary_values(run.summary));
            Exercise exercise;
            exercise.add(run.summary);
            why_not.push_back(exercise.why_not("this run"));
            off_plan.push_back(run.real_time ? std::optional(why_not_as_planned(*run.real_time)) : std::nullopt);
          }
        }
        const std::string& variant = sc.variants[v];
        const auto applies = [&](const Expectation& e) {
          return e.variant.empty() || e.variant == variant || e.variant == labels[v] || e.variant == variant_label(variant);
        };
        // results: point-major, `repeat` runs per point (seeds seed, seed + 1, ...).
        const std::size_t per_point = results.size() / points;
        const auto seed_label = [&](std::size_t r) {
          return per_point > 1 ? " seed " + std::to_string(sc.runs[v * points].seed + r) : std::string();
        };
        const auto run_label = [&](std::size_t i) {  // results[i]
          const std::size_t p = i / per_point;
          return (points > 1 ? variant + " " + sc.sweep_option + "=" + sc.sweep_values[p] : variant) + seed_label(i % per_point);
        };
        // Every run must exercise its variant (reports/DEFINITIONS.md, Exercised), unless the file
        // says otherwise (`exercised = no`): a claim met by a run that granted nothing is met vacuously.
        if (std::none_of(sc.expectations.begin(), sc.expectations.end(),
                         [&](const Expectation& e) { return applies(e) && e.metric == "exercised"; })) {
          const Expectation implied = parse_expectation("exercised", "yes");
          for (std::size_t p = 0; p < results.size(); ++p) {
            const Judgement j = judge(implied, results[p]);
            report(std::cout, run_label(p), implied, j, tally);
            if (!j.met) std::cout << "          " << why_not[p] << "\n";
          }
        }
        // A driver run must also have staged what the scenario plans (a pause that came before the
        // acquire it was to pause, an acquire never made): else its claims are met by accident.
        Expectation planned;
        planned.metric = "as planned";
        planned.value = "yes";
        for (std::size_t p = 0; p < results.size(); ++p)
          if (off_plan[p]) {
            const Judgement j{off_plan[p]->empty(), off_plan[p]->empty() ? "yes" : "no"};
            report(std::cout, run_label(p), planned, j, tally);
            if (!j.met) std::cout << "          " << *off_plan[p] << "\n";
          }
        for (const Expectation& e : sc.expectations) {
          if (!applies(e)) continue;
          if (e.kind == Expectation::Kind::trend) {
            for (std::size_t r = 0; r < per_point; ++r) {
              std::vector<std::string> seen;
              for (std::size_t p = 0; p < points; ++p) {
                const auto& values = results[p * per_point + r];
                seen.push_back(values.count(e.metric) ? values.at(e.metric) : "");
              }
              report(std::cout, variant + " over " + sc.sweep_option + seed_label(r), e, judge_trend(e, seen), tally);
            }
            continue;
          }
          int met = 0;
          for (std::size_t p = 0; p < points; ++p)
            for (std::size_t r = 0; r < per_point; ++r) {
              const Judgement j = judge(e, results[p * per_point + r]);
              met += j.met;
              report(std::cout, run_label(p * per_point + r), e, j, tally);
            }
          if (per_point > 1)
            std::cout << "  " << e.describe() << ": met in " << met << " of " << results.size() << " runs\n";
        }
      }
    }
  } catch (const std::exception& e) {
    std::cerr << "semsim scenario: " << what_failed(e) << "\n";
    return exit_code_after_error();
  }
  std::cout << "expectations: " << tally.met << " passed, " << tally.failed << " failed\n";
  return exit_code(tally.failed ? Finding::unmet_expectation : Finding::none);
}

}  // namespace semsim
