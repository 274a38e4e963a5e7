// One driver's wall clock, as semsim plans it: the control page that the client clock library
// preloaded into the driver's processes reads (sim/drivers/clock_library/). Skew and drift are set
// once at the run's start; a jump is one write of the page.
#pragma once

#include <cstdint>
#include <filesystem>

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

 private:
  void write();
  std::filesystem::path path_;
  void* page_ = nullptr;
  std::int64_t offset_ns_ = 0, anchor_ns_ = 0;
  double drift_ppm_ = 0;
  bool shift_ = false;
};

}  // namespace semsim
