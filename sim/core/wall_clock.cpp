#include "sim/core/wall_clock.h"

#include <algorithm>
#include <cstdio>
#include <thread>
#include <unistd.h>

namespace semsim {

void Pacer::std_sleep(std::chrono::steady_clock::duration d) { std::this_thread::sleep_for(d); }

Progress::Progress(bool wanted) : enabled_(wanted && isatty(STDERR_FILENO) == 1) {}

Progress::~Progress() {
  if (shown_) std::fputs("\r\033[K", stderr);
}

std::string Progress::line(Micros elapsed, Micros duration, std::uint64_t grants, std::uint64_t events,
                           double wall_s) {
  const Micros now = std::min(elapsed, duration);
  const double done = duration.count() > 0 ? 100.0 * static_cast<double>(now.count()) / static_cast<double>(duration.count()) : 100;
  char text[160];
  std::snprintf(text, sizeof text, "[semsim] %.3f s of %.3f s (%.0f%%)  %llu grants  %llu events  %.1f s wall",
                static_cast<double>(now.count()) / 1e6, static_cast<double>(duration.count()) / 1e6, done,
                static_cast<unsigned long long>(grants), static_cast<unsigned long long>(events), wall_s);
  return text;
}

void Progress::update(Micros elapsed, Micros duration, std::uint64_t grants, std::uint64_t events) {
  if (!enabled_) return;
  const double t = watch_.seconds();
  if (t - last_ < 0.2) return;
  last_ = t;
  shown_ = true;
  std::fprintf(stderr, "\r\033[K%s", line(elapsed, duration, grants, events, t).c_str());
  std::fflush(stderr);
}

}  // namespace semsim
