// A simulated client's own clock: true time plus a constant offset (skew), a linear drift (ppm)
// and step jumps scheduled at true times. Algorithms read time only through this. Redis's own
// clock in a simulation is one too (the server's skew, drift and server_jump actions).
#pragma once

#include <vector>

#include "sim/core/true_time.h"

namespace semsim {

class ClientClock {
 public:
  ClientClock() = default;
  ClientClock(Micros offset, double drift_ppm) : offset_(offset), drift_ppm_(drift_ppm) {}

  // From true time `at` on, the clock reads `by` more (negative: it jumps back).
  void jump(TrueTime at, Micros by);
  // What the clock reads at true time `true_now`.
  Micros read(TrueTime true_now) const;

 private:
  struct Jump {
    TrueTime at;
    Micros by;
  };
  Micros offset_{0};
  double drift_ppm_ = 0;
  std::vector<Jump> jumps_;
};

}  // namespace semsim
