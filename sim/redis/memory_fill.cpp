#include "sim/redis/memory_fill.h"

#include <stdexcept>

namespace semsim {

namespace {
std::uint64_t info_number(RedisLink& link, const std::string& section, const std::string& field) {
  const std::string text = link.execute({{"INFO", section}}).at(0).text;
  const auto at = text.find(field + ":");
  if (at == std::string::npos) throw std::runtime_error("INFO " + section + " has no " + field);
  return std::stoull(text.substr(at + field.size() + 1));
}
}  // namespace

std::uint64_t fill_memory(RedisLink& link, const std::string& prefix, std::uint64_t maxmemory) {
  // Batches of 64 keys while far from the limit, then one key at a time, until 256 KiB are left:
  // Redis counts a client's 16 KiB query and reply buffers too, and a write refused for them
  // would say nothing about eviction.
  constexpr std::uint64_t kNear = 512 * 1024, kHeadroom = 256 * 1024;
  const std::string value(1024, 'x');
  const std::uint64_t evicted_before = info_number(link, "stats", "evicted_keys");
  std::uint64_t written = 0;
  for (;;) {
    const std::uint64_t used = info_number(link, "memory", "used_memory");
    if (used + kHeadroom >= maxmemory || info_number(link, "stats", "evicted_keys") != evicted_before) break;
    const std::uint64_t n = used + kNear < maxmemory ? 64 : 1;
    std::vector<Command> batch;
    for (std::uint64_t i = 0; i < n; ++i) batch.push_back({"SET", prefix + "filler:" + std::to_string(written + i), value, "PX", "3600000"});
    bool refused = false;
    for (const Reply& r : link.execute(std::move(batch))) refused = refused || r.is_error();
    written += n;
    if (refused) break;  // OOM: full
  }
  return written;
}

}  // namespace semsim
