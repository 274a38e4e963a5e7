// The reports API for the command line and the simulator.
//
//   live:     Checker checker; ... checker.add(e) for every event (also written by HistoryWriter)
//             Summary s = checker.finish({commands, wall_s});
//   offline:  Summary s = analyze_history("out/history.csv");   // semsim analyze
//   then:     write_summary_csv("out/summary.csv", s); print_summary(std::cout, s);
//             draw_run_charts("out", s, std::cerr); write_timeline_html("out/history.csv", "out/timeline.html", s);
//
// analyze_history on a history written by a run gives the same Summary as the Checker fed live
// (same events, same options), provided commands and wall_s are in the final run row or given
// the same way to both.
#pragma once

#include <string>

#include "reports/checks/checker.h"
#include "reports/checks/summary.h"
#include "reports/checks/summary_csv.h"
#include "reports/history/history_reader.h"
#include "reports/history/history_writer.h"
#include "reports/history/run_rows.h"
#include "reports/outputs/charts.h"
#include "reports/outputs/timeline.h"

namespace semsim {

// Reads and checks a history file. Throws HistoryError naming FILE:LINE on a malformed row or
// an out-of-order event, and naming FILE when it has no run row (the run's options, first).
Summary analyze_history(const std::string& path, const CheckOptions& options = {},
                        const RunStats& stats = {});

}  // namespace semsim
