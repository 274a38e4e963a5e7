// Fills the embedded Redis up to its memory limit with unrelated keys (a TTL of an hour, longer
// than any lease) under the run's prefix; during the run the harness goes on writing 1 KiB every
// millisecond (another application sharing the server), so that Redis must evict: `volatile-ttl`
// then evicts the keys closest to expiry (ttl-key's holder keys), `allkeys-*` any key (the
// semaphores' ZSETs too), and `noeviction` refuses the writes.
#pragma once

#include <cstdint>
#include <string>

#include "sim/redis/redis_link.h"

namespace semsim {

// Writes 1 KiB keys <prefix>filler:<n> until used memory is within 256 KiB of `maxmemory`, Redis
// refuses a write (OOM) or starts evicting. Returns how many it wrote.
std::uint64_t fill_memory(RedisLink& link, const std::string& prefix, std::uint64_t maxmemory);

}  // namespace semsim
