// Statistics over the runs of a sweep: for each point (variant, value) and each metric, the
// number of runs where the metric is defined, its mean, and a 95% interval (reports/checks/confidence.h).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reports/checks/confidence.h"
#include "reports/checks/summary.h"
#include "reports/checks/sweep_metrics.h"

namespace semsim {

// One run of a sweep: the point it belongs to and what the checker found.
struct SweepRun {
  std::string variant;
  double value = 0;  // the swept parameter (ms for durations, else the number)
  Summary summary;
};

struct PointStat {
  std::string variant;
  double value = 0;
  const SweepMetric* metric = nullptr;
  int n = 0;                     // runs where the metric is defined
  double mean = 0;               // of those runs (for a share: the share)
  std::optional<Interval> ci95;  // undefined with fewer than two runs (t) or none (Wilson)
};

// One run as compare_PARAM.csv holds it: its point and each metric's value as written there
// (sweep_metrics() order; nullopt: undefined). `semsim merge` reads shards' runs back as these.
struct WrittenSweepRun {
  std::string variant;
  double value = 0;
  std::vector<std::optional<double>> metrics;
};

// Points in the order they first appear in `runs`; within a point, metrics in sweep_metrics() order.
std::vector<PointStat> sweep_stats(const std::vector<SweepRun>& runs);
std::vector<PointStat> sweep_stats(const std::vector<WrittenSweepRun>& runs);

// compare_PARAM_stats.csv: variant,parameter,value,metric,n,mean,ci95_low,ci95_high,interval
std::string sweep_stats_csv_header();
std::string sweep_stats_csv_row(std::string_view parameter, const PointStat& s);

}  // namespace semsim
