// The only places in sim/ that read the wall clock (the tidy test allows this file alone):
// paced mode follows it, progress lines and wall_s report it. Nothing that decides what happens
// in virtual mode reads it.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "sim/core/true_time.h"

namespace semsim {

// Paced mode: virtual time t happens no earlier than start + t on the wall clock.
class Pacer {
 public:
  Pacer() : start_(std::chrono::steady_clock::now()) {}
  // Sleeps until true time `t` is due, in short steps so that `stop()` is noticed; returns false
  // if stop() said so before then.
  template <typename Stop>
  bool wait_until(TrueTime t, Stop stop) {
    const auto due = start_ + t.time_since_epoch();
    for (;;) {
      if (stop()) return false;
      const auto now = std::chrono::steady_clock::now();
      if (now >= due) return true;
      std_sleep(std::min<std::chrono::steady_clock::duration>(due - now, std::chrono::milliseconds(50)));
    }
  }
  // True time now by the wall clock: how long since the run started.
  Micros elapsed() const {
    return std::chrono::duration_cast<Micros>(std::chrono::steady_clock::now() - start_);
  }
  // How far behind the wall clock the simulation runs at true time t (0 when on time).
  Micros lag(TrueTime t) const {
    const auto late = std::chrono::steady_clock::now() - (start_ + t.time_since_epoch());
    return std::max(Micros(0), std::chrono::duration_cast<Micros>(late));
  }

 private:
  static void std_sleep(std::chrono::steady_clock::duration d);
  std::chrono::steady_clock::time_point start_;
};

// Seconds since it was made.
class Stopwatch {
 public:
  Stopwatch() : start_(std::chrono::steady_clock::now()) {}
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

// One progress line on stderr, rewritten at most every 200 ms, and only on a terminal (and when
// `wanted`: runs in parallel would overwrite each other's). Any loop that runs for a --duration
// shows it the same way (the simulation, in virtual or paced time; a driver run):
//   [semsim] 4.200 s of 10.000 s (42%)  1234 grants  56789 events  4.2 s wall
// The destructor clears the line, so that what is printed next starts on a clean line.
class Progress {
 public:
  explicit Progress(bool wanted = true);
  ~Progress();
  void update(Micros elapsed, Micros duration, std::uint64_t grants, std::uint64_t events);
  // The text of one line, without the terminal's control characters (for tests).
  static std::string line(Micros elapsed, Micros duration, std::uint64_t grants, std::uint64_t events,
                          double wall_s);

 private:
  bool enabled_;
  bool shown_ = false;
  Stopwatch watch_;
  double last_ = 0;
};

}  // namespace semsim
