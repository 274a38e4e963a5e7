// One driver's clocks, as semsim plans them: the control page that the client clock library
// preloaded into the driver's processes reads (sim/drivers/clock_library/client_clock_page.h).
// Paced: skew and drift are set once at the run's start, a jump is one write of the page, and the
// real clocks go on. Warp: every clock shows what semsim writes, and the page says which of the
// driver's threads wait until when.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include <sys/types.h>

namespace semsim {

class DriverClock {
 public:
  // Creates the page file at `path`: the clock passes real time through until set() is called.
  explicit DriverClock(std::filesystem::path path);
  ~DriverClock();
  DriverClock(const DriverClock&) = delete;
  DriverClock& operator=(const DriverClock&) = delete;

  const std::filesystem::path& path() const { return path_; }
  // From now on the driver's wall clock reads the real one + offset + (monotonic - anchor) * drift.
  void set(std::int64_t offset_ns, std::int64_t anchor_mono_ns, double drift_ppm);
  // The clock reads `by_ns` more from now on (negative: it jumps back).
  void jump(std::int64_t by_ns);
  // How far the page puts the driver's wall clock from the real one at monotonic instant `mono_ns`.
  std::int64_t shift_at(std::int64_t mono_ns) const;

  // Warp: the driver's clocks read the page from now on (the real ones never), its random bytes
  // come from `seed`.
  void warp(std::uint64_t seed);
  // Warp: CLOCK_MONOTONIC reads `mono_ns` and CLOCK_REALTIME `wall_ns` from now on.
  void show(std::int64_t mono_ns, std::int64_t wall_ns);
  // Warp: a thread in a wait the library made virtual.
  struct Waiter {
    int slot = 0;
    pid_t pid = 0, tid = 0;
    bool sliced = false;  // it looks at the clock on its own (a condition variable): no signal ends it
    std::int64_t deadline_ns = 0;
  };
  std::vector<Waiter> waiters() const;
  void forget(int slot);  // its thread is gone
  void forget_all();      // every thread of the driver is gone (a crash)
  // Warp: the signal that ends a thread's wait (0 until a process of the driver started), and what
  // the library saw escape it (SEMSIM_WARP_ESCAPE_* bits).
  int wake_signal() const;
  std::uint32_t escapes() const;

 private:
  void write();
  std::filesystem::path path_;
  void* page_ = nullptr;
  std::int64_t offset_ns_ = 0, anchor_ns_ = 0;
  double drift_ppm_ = 0;
  bool shift_ = false;
  bool warp_ = false;
};

}  // namespace semsim
