// semsim run: one run of one variant.
#include <iostream>

#include <boost/program_options.hpp>

#include "algorithms/api/semaphore.h"
#include "cli/commands.h"
#include "reports/checks/expectations.h"
#include "reports/checks/summary_csv.h"
#include "sim/core/interrupt.h"
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
      "METRIC is any summary.csv column, e.g. --expect over_admission_max=0)");
  po::options_description all;
  all.add(general).add(run_options_description());
  RunOptions options;
  std::vector<Expectation> expectations;
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

  install_interrupt_handlers();
  try {
    RedisSession redis(options.redis_url, options.server);
    const RunOutput out = execute_run(options, redis, std::cerr);
    print_summary(std::cout, out.summary);
    if (!out.result.completed) {
      std::cerr << "semsim run: stopped early (" << out.result.stop_reason << "); the history up to then is in "
                << options.out << "\n";
      return exit_code_after_error();
    }
    const auto values = summary_values(out.summary);
    int failed = 0;
    for (const Expectation& e : expectations) {
      const Judgement j = judge(e, values);
      failed += !j.met;
      std::cout << (j.met ? "ok      " : "FAILED  ") << e.describe() << "   observed " << (j.observed.empty() ? "n/a" : j.observed) << "\n";
    }
    return exit_code(failed ? Finding::unmet_expectation : Finding::none);
  } catch (const std::exception& e) {
    std::cerr << "semsim run: " << e.what() << "\n";
    return exit_code_after_error();
  }
}

}  // namespace semsim
