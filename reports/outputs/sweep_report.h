// report.html of a sweep (semsim compare, semsim merge): one self-contained page, nothing loaded
// from the network, made to be read in a minute. Right under the title, the verdicts (one row per
// variant: over-admitted in k of n runs, the worst over-admission, the first point of the sweep
// where it appears, liveness); a table of contents; the charts where the variants differ, then
// the other charts (each the SVG drawn beside it, inlined, with its table of mean [95% interval]
// per variant and value); the metrics that are the same everywhere, named with their value
// instead of drawn flat; how to reproduce the sweep; the run options folded (<details>).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "reports/checks/summary.h"
#include "reports/checks/sweep_stats.h"
#include "reports/outputs/sweep_promise.h"

namespace semsim {

// What the verdict table needs of one run of the sweep (a row of compare_PARAM.csv has it all).
struct RunVerdict {
  std::string variant;
  double value = 0;  // the swept parameter, as in compare_PARAM.csv
  int over_admission = 0;
  Verdict safety = Verdict::valid;
  Verdict liveness = Verdict::valid;
  std::string folder = {};  // its run folder, relative to report.html's ("": none to link)
};
// `folders[i]`: runs[i]'s folder relative to report.html's (shorter: not linked).
std::vector<RunVerdict> run_verdicts(const std::vector<SweepRun>& runs, const std::vector<std::string>& folders = {});

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
  std::vector<RunVerdict> runs;  // every run: the verdict table (without them, the page has none)
  std::string caption;           // the context line the charts carry (sweep_caption)
  // Where reports/DEFINITIONS.md is: copied beside report.html and linked there, so that the link
  // holds in a published copy of the folder ("" or no such file: named, not linked).
  std::string definitions;
  std::string partial = {};    // set when the sweep is partial: what the page says first, and its verdict table too
  // The variants asked for, in order: one verdict row each, "not run" for a variant without a run
  // (a partial sweep). Empty: those of `stats`.
  std::vector<std::string> variants = {};
  std::string meaning = {};  // what a value of the parameter stands for (sweep_parameter.h), said under the context
  // Each variant's preconditions and the points outside them (sweep_promise.h): a column of the
  // verdict table, a section of their own, a dagger in the tables and a ring on the charts.
  // Empty: not judged, and the page says nothing of them.
  std::vector<VariantPromise> promises = {};
};

// The one-line context of a sweep's charts, from its common options as run.ini lists them
// ("key = value" lines): "10 clients, limit 2, delay uniform:0ms..1ms, timeout 10s, hold ...,
// 2 seeds per point". The swept parameter is left out (it is the x axis).
std::string sweep_caption(const std::string& options, const std::string& parameter, int seeds);

// Writes OUT_DIR/report.html (and OUT_DIR/DEFINITIONS.md, above), inlining OUT_DIR/compare_METRIC.svg where it exists (a chart that
// was not drawn, --no-charts or gnuplot missing, is left out and the page says so). Throws
// std::runtime_error if the page cannot be written.
void write_sweep_report(const std::string& out_dir, const SweepReport& report);

}  // namespace semsim
