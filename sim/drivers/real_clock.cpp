#include "sim/drivers/real_clock.h"

#include <time.h>

#include <chrono>
#include <thread>

namespace semsim {

namespace {
std::int64_t read(clockid_t id) {
  timespec ts{};
  ::clock_gettime(id, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}
}  // namespace

std::int64_t monotonic_ns() { return read(CLOCK_MONOTONIC); }
std::int64_t realtime_ns() { return read(CLOCK_REALTIME); }
void sleep_ns(std::int64_t ns) {
  if (ns > 0) std::this_thread::sleep_for(std::chrono::nanoseconds(ns));
}

}  // namespace semsim
