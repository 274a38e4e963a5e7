// semsim analyze HISTORY.csv: re-checks a recorded history; the same summary the run gave.
#include <filesystem>
#include <iostream>

#include <boost/program_options.hpp>

#include "cli/commands.h"
#include "reports/outputs/analysis.h"
#include "reports/outputs/charts.h"
#include "reports/outputs/timeline.h"
#include "sim/core/duration.h"

namespace semsim {

namespace po = boost::program_options;

int analyze_command(int argc, char** argv) {
  po::options_description o("semsim analyze HISTORY.csv [options]: re-check a recorded history");
  o.add_options()("help,h", "this help")("history", po::value<std::string>(), "the history.csv to check")(
      "out", po::value<std::string>(), "write summary.csv, timeline.html and charts into this folder")(
      "limit", po::value<int>(), "override the limit recorded in the history's first row")(
      "liveness-bound", po::value<std::string>(), "a grant must follow within this long while permits are free")(
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
    if (vm.count("limit")) check.limit = vm["limit"].as<int>();
    if (vm.count("liveness-bound"))
      check.liveness_bound_ms = parse_duration(vm["liveness-bound"].as<std::string>()).count() / 1000;
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
