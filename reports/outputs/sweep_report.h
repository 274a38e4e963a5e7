// report.html of a sweep (semsim compare): one self-contained page, nothing loaded from the
// network. It says how to reproduce the sweep (the command, semsim's and Redis's versions, the
// run options), and for every metric its chart (the SVG drawn beside it, inlined) and a table of
// the mean and 95% interval per variant and value.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "reports/checks/sweep_stats.h"

namespace semsim {

struct SweepReport {
  std::string parameter;       // skew, delay, clients, timeout, ...
  bool in_ms = true;           // its values are durations in ms (else counts)
  std::string command;         // the command line that reproduces the sweep
  std::string semsim_version;  // as `semsim --version` prints it
  std::string redis;           // "embedded redis-server 7.0.15", ...
  std::string options;         // the runs' common options, as run.ini lists them
  int seeds = 0;               // runs per point
  std::uint64_t first_seed = 0;  // their seeds: first_seed .. first_seed + seeds - 1
  bool charts = true;          // drawn for this sweep: else no chart is inlined (old files may remain)
  std::vector<PointStat> stats;
  std::string partial = {};    // set when the sweep stopped early: what the page says first
};

// Writes OUT_DIR/report.html, inlining OUT_DIR/compare_METRIC.svg where it exists (a chart that
// was not drawn, --no-charts or gnuplot missing, is left out and the page says so). Throws
// std::runtime_error if the page cannot be written.
void write_sweep_report(const std::string& out_dir, const SweepReport& report);

}  // namespace semsim
