// Charts drawn by gnuplot (a child process running a script file written next to the data).
// Each chart is written as NAME.svg and NAME.png (pngcairo when gnuplot has it, else png), with
// its data in NAME.dat and script in NAME.gp, so a person can edit and redraw it.
// When gnuplot is not on PATH, one warning line goes to `warn` and no chart is drawn: a missing
// plotting tool is not a failed run. The functions return whether charts were drawn.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "reports/checks/summary.h"
#include "reports/checks/sweep_stats.h"

namespace semsim {

// holders.{svg,png}: holders over time (max per bucket), the limit line, over-admission shaded.
// skew_success.{svg,png}: per-client success rate against mean clock offset.
// latency.{svg,png}: cumulative distribution of acquire latency.
bool draw_run_charts(const std::string& out_dir, const Summary& s, std::ostream& warn);

// From a sweep's statistics (reports/checks/sweep_stats.h): for every metric, its mean against the
// parameter value (axis `x_label`, e.g. "skew (ms)") with the 95% interval as error bars, one line per variant:
// compare_METRIC.{svg,png} (compare_over_admission, compare_jain_index, ...), data in
// compare_N.dat (one file per variant). Equal or single values still get a readable axis.
bool draw_comparison_charts(const std::vector<PointStat>& stats, const std::string& x_label,
                            const std::string& out_dir, std::ostream& warn);

}  // namespace semsim
