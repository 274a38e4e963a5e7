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
  page->flags = (shift_ ? SEMSIM_CLIENT_CLOCK_SHIFT : 0) | (warp_ ? SEMSIM_CLIENT_CLOCK_WARP : 0);
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

namespace {
semsim_client_clock_page& page_of(void* page) { return *static_cast<semsim_client_clock_page*>(page); }
}  // namespace

void DriverClock::warp(std::uint64_t seed) {
  page_of(page_).seed = seed;
  warp_ = true;
  write();
}

void DriverClock::show(std::int64_t mono_ns, std::int64_t wall_ns) {
  semsim_client_clock_page& page = page_of(page_);
  std::atomic_ref<std::uint32_t> seq(page.seq);
  const std::uint32_t s = seq.load(std::memory_order_relaxed);
  seq.store(s + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  page.mono_ns = mono_ns;
  page.wall_ns = wall_ns;
  seq.store(s + 2, std::memory_order_release);
}

std::vector<DriverClock::Waiter> DriverClock::waiters() const {
  std::vector<Waiter> out;
  semsim_client_clock_page& page = page_of(page_);
  for (int i = 0; i < SEMSIM_WARP_THREADS; ++i) {
    semsim_warp_thread& t = page.threads[i];
    const std::uint32_t state = std::atomic_ref<std::uint32_t>(t.state).load(std::memory_order_acquire);
    if (state == SEMSIM_WARP_RUNNING) continue;
    const pid_t tid = std::atomic_ref<std::int32_t>(t.tid).load(std::memory_order_relaxed);
    if (tid == 0) continue;
    out.push_back({i, t.pid, tid, state == SEMSIM_WARP_SLICED, t.deadline_ns});
  }
  return out;
}

void DriverClock::forget(int slot) {
  semsim_warp_thread& t = page_of(page_).threads[slot];
  std::atomic_ref<std::uint32_t>(t.state).store(SEMSIM_WARP_RUNNING, std::memory_order_relaxed);
  std::atomic_ref<std::int32_t>(t.tid).store(0, std::memory_order_release);
}

void DriverClock::forget_all() {
  for (int i = 0; i < SEMSIM_WARP_THREADS; ++i) forget(i);
}

int DriverClock::wake_signal() const {
  return std::atomic_ref<std::int32_t>(page_of(page_).wake_signal).load(std::memory_order_acquire);
}

std::uint32_t DriverClock::escapes() const {
  return std::atomic_ref<std::uint32_t>(page_of(page_).escapes).load(std::memory_order_acquire);
}

}  // namespace semsim
