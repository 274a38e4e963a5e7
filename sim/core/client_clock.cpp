#include "sim/core/client_clock.h"

#include <cmath>

namespace semsim {

void ClientClock::jump(TrueTime at, Micros by) { jumps_.push_back({at, by}); }

Micros ClientClock::read(TrueTime true_now) const {
  const Micros since_start = true_now.time_since_epoch();
  // Drift accumulates from the run's start: a +100 ppm clock is 100 µs ahead after 1 s.
  const auto drift = static_cast<long long>(std::llround(static_cast<double>(since_start.count()) * drift_ppm_ / 1e6));
  Micros t = since_start + offset_ + Micros(drift);
  for (const Jump& j : jumps_)
    if (true_now >= j.at) t += j.by;
  return t;
}

}  // namespace semsim
