// semsim analyze HISTORY.csv: re-checks a recorded history; the same summary the run gave.
#include <filesystem>
#include <iostream>

#include <boost/program_options.hpp>

#include "cli/commands.h"
#include "reports/outputs/analysis.h"
#include "reports/outputs/charts.h"
#include "reports/outputs/timeline.h"
#include "reports/history/run_rows.h"
#include "sim/core/duration.h"

namespace semsim {

namespace po = boost::program_options;

int analyze_command(int argc, char** argv) {
  po::options_description o("semsim analyze HISTORY.csv [options]: re-check a recorded history");
  o.add_options()("help,h", "this help")("history", po::value<std::string>(), "the history.csv to check")(
      "out", po::value<std::string>(), "write summary.csv, timeline.html and charts into this folder")(
      "limit", po::value<long long>(), "override the limit recorded in the history's first row (1..1000000)")(
      "liveness-bound", po::value<std::string>(),
      "a grant must follow within this long while permits are free (a duration, e.g. 1100.5ms; default: the "
      "run row's timeout_ms + 1000 ms)")(
      "no-charts", po::bool_switch(), "do not draw charts");
  po::positional_options_description positional;
  positional.add("history", 1);
  std::string history, out;
  CheckOptions check;
  bool charts = true;
  try {
    po::variables_map vm;
    po::store(po::command_line_parser(argc, argv).options(o).positional(positional).run(), vm);
    po::notify(vm);
    if (vm.count("help")) {
      std::cout << o << "\n" << docs_footer();
      return kExitOk;
    }
    if (!vm.count("history")) throw std::invalid_argument("no history file given (semsim analyze HISTORY.csv)");
    history = vm["history"].as<std::string>();
    if (vm.count("out")) out = vm["out"].as<std::string>();
    // An override gets the bounds of the history's own run row (run_rows.h).
    if (vm.count("limit")) {
      const long long limit = vm["limit"].as<long long>();
      if (limit < 1 || limit > kMaxRunLimit)
        throw std::invalid_argument("--limit " + std::to_string(limit) + ": must be 1.." + std::to_string(kMaxRunLimit));
      check.limit = static_cast<int>(limit);
    }
    if (vm.count("liveness-bound")) {
      const std::string text = vm["liveness-bound"].as<std::string>();
      const Micros bound = parse_duration(text);  // to the microsecond: 1100.5ms is 1,100,500 us
      if (bound <= Micros(0)) throw std::invalid_argument("--liveness-bound " + text + ": must be more than 0");
      check.liveness_bound_us = bound.count();
    }
    charts = !vm["no-charts"].as<bool>();
  } catch (const std::exception& e) {
    std::cerr << "semsim analyze: " << e.what() << "\n";
    return kExitBadInput;
  }
  try {
    const Summary s = analyze_history(history, check);
    print_summary(std::cout, s);
    if (!out.empty()) {
      std::filesystem::create_directories(out);
      write_summary_csv((std::filesystem::path(out) / "summary.csv").string(), s);
      write_timeline_html(history, (std::filesystem::path(out) / "timeline.html").string(), s);
      if (charts) draw_run_charts(out, s, std::cerr);
    }
    return kExitOk;
  } catch (const std::exception& e) {
    std::cerr << "semsim analyze: " << e.what() << "\n";
    return kExitBadInput;
  }
}

}  // namespace semsim
