#pragma once
// Redis's own clock in virtual time: the control page that the clock library preloaded into the
// embedded redis-server reads (sim/redis/clock_library/). semsim sets Redis's wall clock before it
// delivers each request; TTLs, lock expiry and TIME then follow the simulation.
#include <filesystem>
#include <string>

#include "sim/core/server_clock.h"

namespace semsim {

// The wall-clock instant that true time 0 of a virtual run shows on Redis: 2026-01-01T00:00:00Z,
// fixed, so that TIME replies and TTLs are the same bytes in every run.
inline constexpr long long kVirtualEpochUs = 1'767'225'600'000'000;

// The readings the clock library can show: from the Unix epoch (it reads nanoseconds since then,
// and falls back on the real clock below 0) to the last nanosecond of 64 bits (2262-04-11).
inline constexpr ServerClock::Range kVirtualClockRange{Micros(-kVirtualEpochUs),
                                                       Micros(9'223'372'036'854'775'807LL / 1000 - kVirtualEpochUs)};

class RedisClock final : public ServerClock {
 public:
  // Creates the page file at `path` (real time until set() is called). Every server reading it
  // loads the library as a module too, for at()'s SEMSIM.AT prefix.
  explicit RedisClock(const std::filesystem::path& path);
  ~RedisClock();
  RedisClock(const RedisClock&) = delete;
  RedisClock& operator=(const RedisClock&) = delete;

  const std::filesystem::path& path() const { return path_; }
  void set(Micros server_us) override;
  void release() override;
  Command at(Micros server_us, Command command) const override;
  Range settable() const override { return kVirtualClockRange; }

 private:
  // The nanoseconds since the epoch the library reads for this server reading; throws
  // std::out_of_range outside settable().
  long long epoch_ns(Micros server_us) const;
  void write(bool virtual_time, long long ns);
  std::filesystem::path path_;
  void* page_ = nullptr;
};

// The clock library beside the semsim executable (build folder, or PREFIX/lib/semsim of an
// installed semsim); empty if it is not there.
std::filesystem::path clock_library();

}  // namespace semsim
