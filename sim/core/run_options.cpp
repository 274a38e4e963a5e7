#include "sim/core/run_options.h"

#include <stdexcept>

namespace semsim {

long long parse_integer(const std::string& s, long long lo, long long hi) {
  std::size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(s, &used);
  } catch (const std::exception&) {
    used = 0;  // std::stoll's own message ("stoll") says nothing useful
  }
  if (used == 0 || used != s.size()) throw std::invalid_argument("not a whole number");
  if (v < lo || v > hi)
    throw std::invalid_argument("must be between " + std::to_string(lo) + " and " + std::to_string(hi));
  return v;
}

std::string to_string(TimeMode mode) { return mode == TimeMode::paced ? "paced" : "virtual"; }

}  // namespace semsim
