#include "reports/checks/sweep_metrics.h"

#include <charconv>

#include "reports/history/text_format.h"

namespace semsim {

namespace {

using Value = std::optional<double>;

Value ms(std::optional<std::int64_t> us) {
  if (!us) return std::nullopt;
  return static_cast<double>(*us) / 1000.0;
}

Value ratio(double numerator, double denominator) {
  if (denominator <= 0) return std::nullopt;
  return numerator / denominator;
}

double d(std::int64_t v) { return static_cast<double>(v); }

}  // namespace

const std::vector<SweepMetric>& sweep_metrics() {
  using K = MetricKind;
  // name, label, kind, decimals, derived, value
  static const std::vector<SweepMetric> metrics = {
      {"over_admission", "over-admission (most holders above the limit)", K::mean, 0, false,
       [](const Summary& s) -> Value { return s.over_admission; }},
      {"over_admitting", "share of runs with any over-admission", K::share, 0, true,
       [](const Summary& s) -> Value { return s.over_admission > 0 ? 1 : 0; }},
      {"over_limit_ms", "time over the limit (ms)", K::mean, 3, false,
       [](const Summary& s) -> Value { return d(s.over_limit_us) / 1000.0; }},
      {"over_limit_share", "fraction of time over the limit", K::mean, 6, true,
       [](const Summary& s) { return ratio(d(s.over_limit_us), d(s.end_us - s.start_us)); }},
      {"steals", "steals (grants above the limit)", K::mean, 0, false,
       [](const Summary& s) -> Value { return d(s.steals); }},
      {"steals_per_1000_grants", "steals per 1000 grants", K::mean, 6, true,
       [](const Summary& s) { return ratio(1000.0 * d(s.steals), d(s.granted)); }},
      {"fifo_inversions", "FIFO inversions", K::mean, 0, false,
       [](const Summary& s) -> Value { return d(s.fifo_inversions); }},
      {"jain_index", "Jain's index of grants", K::mean, 6, false, [](const Summary& s) { return s.jain_index; }},
      {"skew_success_slope", "skew-success slope (success rate per ms of clock offset)", K::mean, 6, false,
       [](const Summary& s) { return s.skew_success_slope; }},
      {"acquire_p50_ms", "acquire latency p50 (ms)", K::mean, 3, false,
       [](const Summary& s) { return ms(s.acquire_p50_us); }},
      {"acquire_p99_ms", "acquire latency p99 (ms)", K::mean, 3, false,
       [](const Summary& s) { return ms(s.acquire_p99_us); }},
      {"granted", "grants", K::mean, 0, false, [](const Summary& s) -> Value { return d(s.granted); }},
      {"grants_per_client_s", "grants per client per second", K::mean, 6, true,
       [](const Summary& s) { return ratio(d(s.granted), d(s.clients) * d(s.duration_ms) / 1000.0); }},
  };
  return metrics;
}

std::vector<const SweepMetric*> derived_sweep_metrics() {
  std::vector<const SweepMetric*> out;
  for (const SweepMetric& m : sweep_metrics())
    if (m.derived) out.push_back(&m);
  return out;
}

std::string format_metric(const SweepMetric& m, const Summary& s) {
  const Value v = m.of(s);
  return v ? fixed(*v, m.decimals) : std::string();
}

std::optional<double> metric_as_written(const SweepMetric& m, const Summary& s) {
  return metric_from_text(format_metric(m, s));
}

std::optional<double> metric_from_text(std::string_view text) {
  if (text.empty()) return std::nullopt;
  double v = 0;
  std::from_chars(text.data(), text.data() + text.size(), v);
  return v;
}

}  // namespace semsim
