// semsim: a simulation and correctness-testing harness for Redis counting semaphores.
#include <csignal>
#include <cstring>
#include <iostream>
#include <string>

#include "cli/commands.h"
#include "sim/redis/key_safety_net.h"
#include "sim/run/version.h"

namespace {

constexpr const char* kUsage = R"(usage: semsim COMMAND [options]     (semsim COMMAND --help for each)

commands:
  run        one run of one variant: history.csv, summary.csv, run.ini and charts under --out
  scenario   run scenario files and compare with their expectations
  check      property-based search (RapidCheck) for invariant violations, shrunk to a scenario
  compare    sweep variants x a parameter (skew, delay, clients, timeout, ...), several seeds each:
             runs, statistics, charts and report.html
  analyze    re-check a recorded history.csv and print/write its summary
  merge      the shards of a compare or check (--shard K/N, on many machines) put back together
  conformance  a library (driver:COMMAND) through a catalogue of situations: a verdict per cell,
             conformance.html and conformance.csv

exit codes: 0 ran / all met / no violation; 1 an expectation failed or a safety violation was found;
            2 bad input or a setup error (the message says which file, line and field);
            3 (check) a liveness violation alone; 4 (merge --partial) a partial result: shards missing
            that the whole result needs, said in its first line; 130 interrupted (the result so far
            says PARTIAL in its first line)
)";

}  // namespace

int main(int argc, char** argv) {
  // Every line out as soon as it is written: in a CI log (stdout a pipe, stderr beside it) the run's
  // header, its warnings and its summary then arrive in the order they were printed.
  std::cout << std::unitbuf;
  // First thing: a Ctrl-C or SIGTERM that comes while the options are read still stops the run
  // (exit 130), and so does a SIGINT sent to a semsim that a script started in the background,
  // which inherits SIGINT ignored (docs/contract.md, "Signals").
  semsim::install_interrupt_handlers();
  // Past a file-size limit (ulimit -f) a write fails with EFBIG and the output names it, rather
  // than SIGXFSZ killing semsim with its outputs half written. Children inherit the disposition.
  std::signal(SIGXFSZ, SIG_IGN);
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "help")) {
    std::cout << kUsage << "\n" << semsim::docs_footer();
    return argc < 2 ? 2 : 0;
  }
  if (!std::strcmp(argv[1], "--version")) {
    std::cout << "semsim " << semsim::version() << "\n";
    return 0;
  }
  const std::string command = argv[1];
  // Each subcommand parses its own options; argv[0] becomes "semsim COMMAND" for messages.
  if (command == "run") return semsim::run_command(argc - 1, argv + 1);
  if (command == "scenario") return semsim::scenario_command(argc - 1, argv + 1);
  if (command == "check") return semsim::check_command(argc - 1, argv + 1);
  if (command == "compare") return semsim::compare_command(argc - 1, argv + 1);
  if (command == "analyze") return semsim::analyze_command(argc - 1, argv + 1);
  if (command == "merge") return semsim::merge_command(argc - 1, argv + 1);
  if (command == "conformance") return semsim::conformance_command(argc - 1, argv + 1);
  // Internal: the key safety net's watcher, started by a run on a user's Redis (key_safety_net.h).
  if (command == "key-net-watch") return semsim::key_net_watch();
  std::cerr << "semsim: unknown command '" << command << "'\n" << kUsage;
  return 2;
}
