// The metrics a sweep (semsim compare) reports per point, each a number per run: raw counts from
// the summary and rates that compare across runs of different length and load. Every one is a
// column of compare_PARAM.csv and has statistics in compare_PARAM_stats.csv. Definitions in
// reports/DEFINITIONS.md ("Sweeps").
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reports/checks/summary.h"

namespace semsim {

enum class MetricKind {
  mean,   // a number per run: its mean over runs, with a Student t interval
  share,  // 0 or 1 per run: the share of runs where it holds, with a Wilson interval
};

struct SweepMetric {
  std::string name;   // CSV column and chart name (compare_NAME.svg)
  std::string label;  // for chart titles and the report
  MetricKind kind = MetricKind::mean;
  int decimals = 0;      // as compare_PARAM.csv writes it (summary columns as summary.csv does)
  bool derived = false;  // not a summary column: compare_PARAM.csv adds it after them
  std::optional<double> (*of)(const Summary&) = nullptr;  // nullopt: undefined in that run
};

// In the order of the report and the stats file.
const std::vector<SweepMetric>& sweep_metrics();

// The metrics that are not summary columns (over_admitting, over_limit_share, ...), in order.
std::vector<const SweepMetric*> derived_sweep_metrics();

// A metric's value in one run as compare_PARAM.csv holds it (6 decimals; integers exact), so
// that the statistics are those of the numbers in the file.
std::optional<double> metric_as_written(const SweepMetric& m, const Summary& s);
std::string format_metric(const SweepMetric& m, const Summary& s);  // "" when undefined
// A metric's value from its text in compare_PARAM.csv, as metric_as_written reads it back.
std::optional<double> metric_from_text(std::string_view text);

}  // namespace semsim
