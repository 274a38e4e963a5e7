// Charts drawn by gnuplot (a child process running a script file written next to the data).
// Each chart is written as NAME.svg and NAME.png (pngcairo when gnuplot has it, else png), with
// its data in NAME.dat and script in NAME.gp, so a person can edit and redraw it.
// When gnuplot is not on PATH, one warning line goes to `warn` and no chart is drawn: a missing
// plotting tool is not a failed run. The functions return whether charts were drawn.
//
// Every chart is made to be read alone, in print too: series differ by marker shape and dash as
// well as colour, no colour is pale, and a one-line `caption` under the title
// says its context (clients, limit, delay, timeout, seeds per point), so that a PNG pasted into a
// document still says what it shows.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "reports/checks/summary.h"
#include "reports/checks/sweep_stats.h"
#include "reports/outputs/sweep_promise.h"

namespace semsim {

// The context of a chart in one line, from run options as run.ini lists them ("key = value"
// lines): "10 clients, limit 2, skew fixed:0ms, delay uniform:0ms..1ms, timeout 10s, hold
// fixed:50ms, 1s runs". `leave_out`: an option not to name (a sweep's parameter: the x axis).
std::string options_caption(const std::string& options, const std::string& leave_out = "");

// holders.{svg,png}: holders over time (max per bucket), the limit line, over-admission in red
// with the first episodes marked wide enough to see however short they are.
// skew_success.{svg,png}: per-client success rate against mean clock offset.
// latency.{svg,png}: cumulative distribution of acquire latency.
bool draw_run_charts(const std::string& out_dir, const Summary& s, std::ostream& warn,
                     const std::string& caption = "");

// How a sweep's parameter values are laid out on the x axis: evenly spaced values on a linear
// axis; values spread over a factor of 10 or more, all above 0, on a log axis; any other uneven
// sweep (0, 1, 5, 10, 50) one step per value, labelled with the value (categorical).
enum class XScale { linear, log, categorical };
XScale x_scale(std::vector<double> values);

// What a metric does across a sweep. A metric that is the same at every point for every variant
// (all zero, say) is not drawn as a flat line: the report names it with its value instead.
struct MetricShape {
  enum Kind { varies, same_everywhere, undefined_everywhere } kind = undefined_everywhere;
  double value = 0;              // same_everywhere: that value
  bool variants_differ = false;  // at some value, two variants' 95% intervals do not overlap
};
MetricShape metric_shape(const std::vector<PointStat>& stats, const SweepMetric& m);

// From a sweep's statistics (reports/checks/sweep_stats.h): for every metric that varies, its
// mean against the parameter value (axis `x_label`, e.g. "skew (ms)") with the 95% interval as
// error bars, one line per variant: compare_METRIC.{svg,png} (compare_over_admission, ...), data
// in compare_N.dat (one file per variant). A metric that does not vary gets no chart (an old one
// of that name is removed). Equal or single values still get a readable axis.
// `promises`: the points outside their variant's preconditions (sweep_promise.h) get a black ring,
// "outside its preconditions" in the key (its hover text too), and a last column `outside` (1, else 0) in their data file.
bool draw_comparison_charts(const std::vector<PointStat>& stats, const std::string& x_label,
                            const std::string& out_dir, std::ostream& warn, const std::string& caption = "",
                            const std::vector<VariantPromise>& promises = {});

}  // namespace semsim
