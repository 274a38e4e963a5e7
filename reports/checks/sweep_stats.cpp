#include "reports/checks/sweep_stats.h"

#include <utility>

#include "reports/history/text_format.h"

namespace semsim {

std::vector<PointStat> sweep_stats(const std::vector<SweepRun>& runs) {
  std::vector<WrittenSweepRun> written;
  for (const SweepRun& r : runs) {
    WrittenSweepRun& w = written.emplace_back(WrittenSweepRun{r.variant, r.value, {}});
    for (const SweepMetric& m : sweep_metrics()) w.metrics.push_back(metric_as_written(m, r.summary));
  }
  return sweep_stats(written);
}

std::vector<PointStat> sweep_stats(const std::vector<WrittenSweepRun>& runs) {
  // Points by first appearance: a sweep has tens of points, a linear search is plenty.
  std::vector<std::pair<std::string, double>> points;
  std::vector<std::vector<const WrittenSweepRun*>> members;
  for (const WrittenSweepRun& r : runs) {
    std::size_t i = 0;
    while (i < points.size() && !(points[i].first == r.variant && points[i].second == r.value)) ++i;
    if (i == points.size()) {
      points.emplace_back(r.variant, r.value);
      members.emplace_back();
    }
    members[i].push_back(&r);
  }
  std::vector<PointStat> out;
  for (std::size_t i = 0; i < points.size(); ++i) {
    for (std::size_t k = 0; k < sweep_metrics().size(); ++k) {
      const SweepMetric& m = sweep_metrics()[k];
      std::vector<double> values;
      for (const WrittenSweepRun* r : members[i])
        if (const auto v = r->metrics.at(k)) values.push_back(*v);
      PointStat p{points[i].first, points[i].second, &m, static_cast<int>(values.size()), mean_of(values), {}};
      if (m.kind == MetricKind::share) {
        int yes = 0;
        for (double v : values) yes += v > 0 ? 1 : 0;
        p.ci95 = wilson_interval(yes, p.n);
      } else {
        p.ci95 = mean_interval(values);
      }
      out.push_back(std::move(p));
    }
  }
  return out;
}

std::string sweep_stats_csv_header() { return "variant,parameter,value,metric,n,mean,ci95_low,ci95_high,interval"; }

std::string sweep_stats_csv_row(std::string_view parameter, const PointStat& s) {
  const auto bound = [&](double Interval::*side) {
    return s.ci95 ? fixed((*s.ci95).*side, 6) : std::string();
  };
  return csv_field(s.variant) + "," + csv_field(parameter) + "," + fixed(s.value, 6) + "," + s.metric->name + "," +
         std::to_string(s.n) + "," + (s.n > 0 ? fixed(s.mean, 6) : std::string()) + "," + bound(&Interval::low) + "," +
         bound(&Interval::high) + "," + (s.metric->kind == MetricKind::share ? "wilson" : "t");
}

}  // namespace semsim
