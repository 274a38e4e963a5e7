// The machine's own clocks, for runs of real processes (drivers). The only file of sim/drivers
// that reads them (tests/unit/tidy_test.cpp allows it): a driver run happens in real time, and its
// true clock is CLOCK_MONOTONIC, the one every process on the machine shares (a driver's MONO_NS).
#pragma once

#include <cstdint>

namespace semsim {

// CLOCK_MONOTONIC in ns: true time of a driver run, on every process of the machine alike.
std::int64_t monotonic_ns();
// CLOCK_REALTIME in ns: semsim's own wall clock, which no client clock library moves.
std::int64_t realtime_ns();
// Waits `ns` of real time (a poll of what a process or a socket does).
void sleep_ns(std::int64_t ns);

inline constexpr std::int64_t kNsPerMs = 1'000'000;
inline constexpr std::int64_t kNsPerUs = 1'000;

}  // namespace semsim
