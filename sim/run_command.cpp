// semsim run: one run of one variant.
#include <iostream>

#include "algorithms/semaphore.h"
#include "reports/summary_csv.h"
#include "sim/client_table.h"
#include "sim/commands.h"
#include "sim/interrupt.h"
#include "sim/run_execution.h"

namespace semsim {

namespace po = boost::program_options;

int run_command(int argc, char** argv) {
  po::options_description general("semsim run: one run of one variant against a real Redis");
  general.add_options()("help,h", "this help")("list-variants", "list the built-in variants");
  po::options_description all;
  all.add(general).add(run_options_description());
  RunOptions options;
  try {
    po::variables_map vm;
    po::store(po::command_line_parser(argc, argv).options(all).run(), vm);
    po::notify(vm);
    if (vm.count("help")) {
      std::cout << all << "\n";
      return kExitOk;
    }
    if (vm.count("list-variants")) {
      for (const auto& v : builtin_variants()) std::cout << v << "\n";
      return kExitOk;
    }
    options = run_options_from(vm);
  } catch (const std::exception& e) {
    std::cerr << "semsim run: " << e.what() << "\n";
    return kExitBadInput;
  }

  install_interrupt_handlers();
  try {
    RedisSession redis(options.redis_url);
    const RunOutput out = execute_run(options, redis, std::cerr);
    print_summary(std::cout, out.summary);
    if (!out.result.completed) {
      std::cerr << "semsim run: stopped early (" << out.result.stop_reason << "); the history up to then is in "
                << options.out << "\n";
      return interrupt_signal() ? kExitInterrupted : kExitBadInput;
    }
    return kExitOk;
  } catch (const std::exception& e) {
    std::cerr << "semsim run: " << e.what() << "\n";
    return kExitBadInput;
  }
}

}  // namespace semsim
