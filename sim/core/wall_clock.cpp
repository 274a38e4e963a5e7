#include "sim/core/wall_clock.h"

#include <cstdio>
#include <thread>
#include <unistd.h>

namespace semsim {

void Pacer::std_sleep(std::chrono::steady_clock::duration d) { std::this_thread::sleep_for(d); }

Progress::Progress(bool wanted) : enabled_(wanted && isatty(STDERR_FILENO) == 1) {}

Progress::~Progress() {
  if (shown_) std::fputs("\n", stderr);
}

void Progress::update(TrueTime now_true, TrueTime end_true, std::uint64_t events, std::uint64_t grants) {
  if (!enabled_) return;
  const Micros now = now_true.time_since_epoch(), end = end_true.time_since_epoch();
  const double t = watch_.seconds();
  if (t - last_ < 0.2) return;
  last_ = t;
  shown_ = true;
  const double done = end.count() > 0 ? 100.0 * static_cast<double>(now.count()) / static_cast<double>(end.count()) : 100;
  std::fprintf(stderr, "\r[semsim] %5.1f%%  true time %.3fs of %.3fs  %llu events  %llu grants  %.1fs wall   ", done,
               static_cast<double>(now.count()) / 1e6, static_cast<double>(end.count()) / 1e6,
               static_cast<unsigned long long>(events), static_cast<unsigned long long>(grants), t);
  std::fflush(stderr);
}

}  // namespace semsim
