// 95% confidence intervals for the statistics of a sweep (semsim compare): a Student t interval
// for a mean over runs, a Wilson score interval for a share of runs. Definitions in
// reports/DEFINITIONS.md ("Statistics over seeds").
#pragma once

#include <optional>
#include <vector>

namespace semsim {

struct Interval {
  double low = 0;
  double high = 0;
};

// The two-sided 95% quantile of Student's t (its 97.5th percentile) with `df` >= 1 degrees of
// freedom: the standard table for df 1..30, a Cornish-Fisher expansion above (off by < 2e-6).
double t_quantile_975(int df);

// mean ± t(n−1) · s / √n, s the sample standard deviation (n − 1 in the denominator).
// Undefined (nullopt) for fewer than two values; [mean, mean] when all values are equal.
std::optional<Interval> mean_interval(const std::vector<double>& values);

// The Wilson score interval of `successes` out of `n` runs (z = 1.959964); nullopt when n = 0.
std::optional<Interval> wilson_interval(int successes, int n);

double mean_of(const std::vector<double>& values);  // 0 for none

}  // namespace semsim
