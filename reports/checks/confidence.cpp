#include "reports/checks/confidence.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

namespace semsim {

namespace {

constexpr double kZ975 = 1.959963984540054;  // the standard normal's 97.5th percentile

// t quantiles, 97.5%, df = 1..30 (any statistics table; checked against numerical integration).
constexpr std::array<double, 30> kT975 = {
    12.706205, 4.302653, 3.182446, 2.776445, 2.570582, 2.446912, 2.364624, 2.306004, 2.262157, 2.228139,
    2.200985,  2.178813, 2.160369, 2.144787, 2.131450, 2.119905, 2.109816, 2.100922, 2.093024, 2.085963,
    2.079614,  2.073873, 2.068658, 2.063899, 2.059539, 2.055529, 2.051831, 2.048407, 2.045230, 2.042272};

}  // namespace

double t_quantile_975(int df) {
  if (df < 1) df = 1;
  if (df <= static_cast<int>(kT975.size())) return kT975[static_cast<std::size_t>(df - 1)];
  // Cornish-Fisher expansion of t in powers of 1/df around the normal quantile.
  const double z = kZ975, z3 = z * z * z, z5 = z3 * z * z, z7 = z5 * z * z, v = df;
  return z + (z3 + z) / (4 * v) + (5 * z5 + 16 * z3 + 3 * z) / (96 * v * v) +
         (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * v * v * v);
}

double mean_of(const std::vector<double>& values) {
  if (values.empty()) return 0;
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

std::optional<Interval> mean_interval(const std::vector<double>& values) {
  const std::size_t n = values.size();
  if (n < 2) return std::nullopt;
  const double mean = mean_of(values);
  // Equal values: the point itself, not a rounding error's width around it.
  if (std::all_of(values.begin(), values.end(), [&](double x) { return x == values.front(); }))
    return Interval{mean, mean};
  double squares = 0;
  for (double x : values) squares += (x - mean) * (x - mean);
  const double sd = std::sqrt(squares / static_cast<double>(n - 1));
  const double half = t_quantile_975(static_cast<int>(n - 1)) * sd / std::sqrt(static_cast<double>(n));
  return Interval{mean - half, mean + half};
}

std::optional<Interval> wilson_interval(int successes, int n) {
  if (n <= 0) return std::nullopt;
  const double p = static_cast<double>(successes) / n, z2 = kZ975 * kZ975;
  const double centre = (p + z2 / (2.0 * n)) / (1 + z2 / n);
  const double half = kZ975 / (1 + z2 / n) * std::sqrt(p * (1 - p) / n + z2 / (4.0 * n * n));
  // Rounding must not push the bounds outside [0, 1].
  return Interval{std::max(0.0, centre - half), std::min(1.0, centre + half)};
}

}  // namespace semsim
