#include "sim/core/duration.h"

#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace semsim {

Micros parse_duration(std::string_view text) {
  const std::string s(text);
  const auto bad = [&](const std::string& why) {
    return std::invalid_argument("bad duration '" + s + "': " + why +
                                 " (a number with a unit: us, ms, s, m; e.g. 10ms)");
  };
  if (s.empty()) throw bad("empty");
  char* end = nullptr;
  const double value = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || !std::isfinite(value)) throw bad("no number");
  const std::string unit(end);
  double scale = 0;
  if (unit == "us") scale = 1;
  else if (unit == "ms") scale = 1e3;
  else if (unit == "s") scale = 1e6;
  else if (unit == "m") scale = 60e6;
  else if (unit.empty() && value == 0) scale = 0;
  else throw bad(unit.empty() ? "no unit" : "unknown unit '" + unit + "'");
  const double us = value * scale;
  if (std::abs(us) > static_cast<double>(kMaxDuration.count()))
    throw bad("out of range (at most " + format_duration(kMaxDuration) + " either way)");
  return Micros(static_cast<long long>(std::llround(us)));
}

std::string format_duration(Micros d) {
  const long long us = d.count();
  if (us == 0) return "0ms";
  if (us % 60'000'000 == 0 && std::llabs(us) >= 600'000'000) return std::to_string(us / 60'000'000) + "m";
  if (us % 1'000'000 == 0) return std::to_string(us / 1'000'000) + "s";
  if (us % 1'000 == 0) return std::to_string(us / 1'000) + "ms";
  return std::to_string(us) + "us";
}

}  // namespace semsim
