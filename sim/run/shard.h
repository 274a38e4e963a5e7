// --shard K/N (compare, check): one of N shards of a sweep or a search makes exactly the runs or
// cases whose global index i (0-based, in the order of the unsharded command) has i mod N = K-1,
// with the seeds they would have unsharded. `semsim merge` puts the shards back together.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace semsim {

struct Shard {
  int index = 1;  // K, 1..count
  int count = 1;  // N; 1: the whole command, unsharded

  bool sharded() const { return count > 1; }
  bool owns(std::int64_t global_index) const { return global_index % count == index - 1; }
  // How many of the global indices 0..total-1 this shard owns.
  std::int64_t owned(std::int64_t total) const { return total / count + (index - 1 < total % count ? 1 : 0); }
  std::string text() const { return std::to_string(index) + "/" + std::to_string(count); }  // "K/N"
  friend bool operator==(const Shard&, const Shard&) = default;
};

// "K/N" with 1 <= K <= N <= 100000; throws std::invalid_argument saying what is wrong.
Shard parse_shard(std::string_view text);

}  // namespace semsim
