#include "sim/drivers/driver_clock.h"

#include <sys/mman.h>

#include <atomic>

#include "sim/core/shared_page.h"
#include "sim/drivers/clock_library/client_clock_page.h"

namespace semsim {

DriverClock::DriverClock(std::filesystem::path path) : path_(std::move(path)) {
  semsim_client_clock_page initial{};
  initial.magic = SEMSIM_CLIENT_CLOCK_MAGIC;
  page_ = create_shared_page(path_, &initial, sizeof initial);
}

DriverClock::~DriverClock() { ::munmap(page_, sizeof(semsim_client_clock_page)); }

void DriverClock::write() {
  auto* page = static_cast<semsim_client_clock_page*>(page_);
  std::atomic_ref<std::uint32_t> seq(page->seq);
  const std::uint32_t s = seq.load(std::memory_order_relaxed);
  seq.store(s + 1, std::memory_order_relaxed);  // odd: a write in progress
  std::atomic_thread_fence(std::memory_order_release);
  page->flags = shift_ ? SEMSIM_CLIENT_CLOCK_SHIFT : 0;
  page->offset_ns = offset_ns_;
  page->anchor_ns = anchor_ns_;
  page->drift_ppm = drift_ppm_;
  seq.store(s + 2, std::memory_order_release);
}

void DriverClock::set(std::int64_t offset_ns, std::int64_t anchor_mono_ns, double drift_ppm) {
  offset_ns_ = offset_ns;
  anchor_ns_ = anchor_mono_ns;
  drift_ppm_ = drift_ppm;
  shift_ = true;
  write();
}

void DriverClock::jump(std::int64_t by_ns) {
  offset_ns_ += by_ns;
  shift_ = true;
  write();
}

std::int64_t DriverClock::shift_at(std::int64_t mono_ns) const {
  if (!shift_) return 0;
  // As the library computes it (double arithmetic, truncated), so that semsim's rows and the
  // driver's agree to the nanosecond.
  if (drift_ppm_ == 0) return offset_ns_;
  return offset_ns_ + static_cast<std::int64_t>(static_cast<double>(mono_ns - anchor_ns_) * drift_ppm_ / 1e6);
}

}  // namespace semsim
