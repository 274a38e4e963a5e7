#include "sim/run/log_progress.h"

#include <algorithm>
#include <cstdio>

namespace semsim {

void LogProgress::line_if_due(std::int64_t true_us, double wall_s) {
  if (wall_s - last_s_ < period_s_) return;
  last_s_ = wall_s;
  const std::int64_t done = std::clamp<std::int64_t>(true_us - start_us_, 0, std::max<std::int64_t>(duration_us_, 0));
  char line[200];
  std::snprintf(line, sizeof line, "[semsim] %.3f s of %.3f s simulated (%.0f%%), %llu events, %.0f s wall",
                static_cast<double>(done) / 1e6, static_cast<double>(duration_us_) / 1e6,
                duration_us_ > 0 ? 100.0 * static_cast<double>(done) / static_cast<double>(duration_us_) : 100.0,
                static_cast<unsigned long long>(events_), wall_s);
  out_ << line << std::endl;  // flushed: a CI log shows it now
}

}  // namespace semsim
