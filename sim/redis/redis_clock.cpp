#include "sim/redis/redis_clock.h"

#include <sys/mman.h>

#include <atomic>
#include <stdexcept>

#include "sim/core/shared_page.h"
#include "sim/redis/clock_library/clock_page.h"
#include "sim/redis/shipped_files.h"

namespace semsim {

namespace fs = std::filesystem;

RedisClock::RedisClock(const fs::path& path) : path_(path) {
  const semsim_clock_page initial{SEMSIM_CLOCK_MAGIC, 0, 0, 0};
  page_ = create_shared_page(path, &initial, sizeof initial);
}

RedisClock::~RedisClock() { ::munmap(page_, sizeof(semsim_clock_page)); }

void RedisClock::write(bool virtual_time, long long ns) {
  auto* page = static_cast<semsim_clock_page*>(page_);
  std::atomic_ref<std::uint32_t> seq(page->seq);
  const std::uint32_t s = seq.load(std::memory_order_relaxed);
  seq.store(s + 1, std::memory_order_relaxed);  // odd: a write in progress
  std::atomic_thread_fence(std::memory_order_release);
  page->flags = virtual_time ? SEMSIM_CLOCK_VIRTUAL : 0;
  page->realtime_ns = ns;
  seq.store(s + 2, std::memory_order_release);
}

long long RedisClock::epoch_ns(Micros server_us) const {
  const Range r = settable();
  if (server_us < r.earliest || server_us > r.latest)
    throw std::out_of_range("Redis's clock cannot be set " + std::to_string(server_us.count()) +
                            " us from the virtual epoch: outside 1970..2262, what the clock library represents");
  return (kVirtualEpochUs + server_us.count()) * 1000;
}

void RedisClock::set(Micros server_us) { write(true, epoch_ns(server_us)); }

void RedisClock::release() { write(false, 0); }

Command RedisClock::at(Micros server_us, Command command) const {
  command.insert(command.begin(), {"SEMSIM.AT", std::to_string(epoch_ns(server_us))});
  return command;
}

fs::path clock_library() { return shipped_library("libsemsim_clock.so"); }

}  // namespace semsim
