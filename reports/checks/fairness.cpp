#include "reports/checks/fairness.h"

#include <cmath>
#include <string>
#include <utility>

#include "reports/history/text_format.h"

namespace semsim {

std::optional<double> jain_index(const std::vector<ClientStats>& clients) {
  double sum = 0, sum_sq = 0;
  double n = 0;
  for (const ClientStats& c : clients) {
    if (c.attempts == 0) continue;
    double x = static_cast<double>(c.granted);
    sum += x;
    sum_sq += x * x;
    n += 1;
  }
  if (n == 0 || sum_sq == 0) return std::nullopt;
  return sum * sum / (n * sum_sq);
}

SkewSuccess skew_success(const std::vector<ClientStats>& clients) {
  const auto undefined = [](std::string because) { return SkewSuccess{std::nullopt, std::nullopt, std::move(because)}; };
  // Two passes (means first) for numerical stability.
  double n = 0, mx = 0, my = 0;
  for (const ClientStats& c : clients) {
    if (c.granted + c.rejected == 0) continue;
    mx += c.mean_offset_ms;
    my += static_cast<double>(c.granted) / static_cast<double>(c.granted + c.rejected);
    n += 1;
  }
  if (n < 2) return undefined("fewer than two clients had an acquire granted or refused");
  mx /= n;
  my /= n;
  double sxx = 0, syy = 0, sxy = 0;
  for (const ClientStats& c : clients) {
    if (c.granted + c.rejected == 0) continue;
    double dx = c.mean_offset_ms - mx;
    double dy = static_cast<double>(c.granted) / static_cast<double>(c.granted + c.rejected) - my;
    sxx += dx * dx;
    syy += dy * dy;
    sxy += dx * dy;
  }
  // Relative thresholds: offsets that differ only by rounding are "no variation".
  if (sxx <= 1e-18)
    return undefined("every client's clock had the same offset (" + fixed(mx, 3) +
                                 " ms at acquires, on average): no spread of offsets to set against success");
  if (syy <= 1e-18)
    return undefined("every client had the same success rate (" + fixed(my, 3) + ")");
  return {sxy / std::sqrt(sxx * syy), sxy / sxx, {}};
}

}  // namespace semsim
