// True time: when things happen in the simulation (the scheduler's clock, event, delivery and
// arrival times). A type of its own, so that what a client's clock reads (plain Micros, skewed,
// drifting, jumping: algorithms/api/client.h) cannot be passed where true time is meant. Durations
// stay Micros: TrueTime - TrueTime is Micros, TrueTime + Micros is TrueTime. There is no now():
// true time comes only from the scheduler.
#pragma once

#include <chrono>
#include <cstdint>

#include "sim/core/duration.h"

namespace semsim {

struct TrueClock {
  using duration = Micros;
  using rep = Micros::rep;
  using period = Micros::period;
  using time_point = std::chrono::time_point<TrueClock, Micros>;
  static constexpr bool is_steady = true;
};

using TrueTime = TrueClock::time_point;

// The run's start: true time 0.
inline constexpr TrueTime kRunStart{};

// True time `us` microseconds after the run's start (tests, and numbers read from files).
inline constexpr TrueTime at_us(std::int64_t us) { return kRunStart + Micros(us); }

}  // namespace semsim
