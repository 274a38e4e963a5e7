// Charts drawn by gnuplot (a child process running a script file written next to the data).
// Each chart is written as NAME.svg and NAME.png (pngcairo when gnuplot has it, else png), with
// its data in NAME.dat and script in NAME.gp, so a person can edit and redraw it.
// When gnuplot is not on PATH, one warning line goes to `warn` and no chart is drawn: a missing
// plotting tool is not a failed run. The functions return whether charts were drawn.
#pragma once

#include <iosfwd>
#include <string>

#include "reports/summary.h"

namespace semsim {

// holders.{svg,png}: holders over time (max per bucket), the limit line, over-admission shaded.
// skew_success.{svg,png}: per-client success rate against mean clock offset.
// latency.{svg,png}: cumulative distribution of acquire latency.
bool draw_run_charts(const std::string& out_dir, const Summary& s, std::ostream& warn);

// From a sweep CSV (sweep_csv_header(): parameter,value,<summary columns>): over_admission,
// jain_index and fifo_inversions against the parameter value, one line per variant.
// compare_over_admission / compare_jain_index / compare_fifo_inversions .{svg,png}.
// Throws HistoryError on a malformed sweep file.
bool draw_comparison_charts(const std::string& sweep_csv, const std::string& out_dir,
                            std::ostream& warn);

}  // namespace semsim
