#pragma once
// Redis's own clock as the simulation moves it: true time plus a fixed skew (--server-skew), a
// drift (--server-drift, ppm) and the jumps scripted so far (`server_jump` actions). In virtual
// mode on the embedded server it is what redis-server reads (RedisClock); it is also the server
// time the simulator hands variants that ask for it (Client::server_now).
#include <cmath>

#include "sim/duration.h"

namespace semsim {

class ServerClock {
 public:
  ServerClock() = default;
  ServerClock(Micros skew, double drift_ppm) : skew_(skew), drift_ppm_(drift_ppm) {}

  Micros read(Micros true_now) const {
    const auto drift = static_cast<long long>(std::llround(drift_ppm_ * static_cast<double>(true_now.count()) / 1e6));
    return true_now + skew_ + Micros(drift) + jumped_;
  }
  void jump(Micros by) { jumped_ += by; }

 private:
  Micros skew_{0};
  double drift_ppm_ = 0;
  Micros jumped_{0};
};

}  // namespace semsim
