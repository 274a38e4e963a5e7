// Durations on the command line and in files: a number with a unit (us, ms, s, m), e.g. "10ms",
// "-10ms", "1.5s". A bare "0" is allowed.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

namespace semsim {

using Micros = std::chrono::microseconds;

// Every duration (times, delays, skews, jumps, timeouts) is within this bound, either way: 100
// hours. Sums of a few of them, and drift (at most 1e6 ppm) times the run's length, then stay
// far inside 64-bit microseconds.
inline constexpr Micros kMaxDuration{360'000'000'000};

// Throws std::invalid_argument saying what is wrong with `text`.
Micros parse_duration(std::string_view text);
// The shortest exact form: "10ms", "1500us", "2s", "-10ms".
std::string format_duration(Micros d);

}  // namespace semsim
