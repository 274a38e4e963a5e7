// Acquire latency: true time from an acquire's invoke to its ok or fail (info outcomes have no
// latency). Kept in a log-linear histogram so memory does not grow with the history:
//   values below 16384 us (16.384 ms) are counted exactly, larger ones in buckets 2^-13 wide
//   relative to the value (a reported percentile is at most 0.013% below the true value).
// Percentiles use the nearest-rank method: the p-th percentile of N values is the smallest
// recorded value v such that at least ceil(p/100 * N) values are <= v.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace semsim {

class LatencyHistogram {
 public:
  void add(std::int64_t us) {
    if (us >= 0 && static_cast<std::uint64_t>(us) < low_.size()) {  // most calls
      if (++low_[static_cast<std::size_t>(us)] == 0) carry(us);
      ++count_;
    } else {
      add_slow(us);
    }
  }
  std::uint64_t count() const { return count_; }
  // `percent` in 1..100 (integer: nearest rank is exact in integer arithmetic). nullopt if empty.
  std::optional<std::int64_t> percentile_us(int percent) const;
  // Non-empty buckets as (lowest value in the bucket, count), ascending.
  std::vector<std::pair<std::int64_t, std::uint64_t>> buckets() const;

  bool operator==(const LatencyHistogram&) const = default;

  static constexpr std::int64_t kExactBelow = std::int64_t{1} << 14;  // values below are their own bucket

 private:
  void add_slow(std::int64_t us);
  void carry(std::int64_t us);  // low_[us] wrapped: 2^16 more in counts_[us]
  std::uint64_t at(std::size_t index) const;
  // The exact buckets' counts modulo 2^16 (32 KiB, allocated at the first value): a checker adds a
  // latency at almost every outcome, anywhere in them, and 64-bit counters there (128 KiB) took an
  // L1 miss nearly every time (callgrind's cache simulation). The rest of each count is in counts_.
  std::vector<std::uint16_t> low_;
  std::vector<std::uint64_t> counts_;
  std::uint64_t count_ = 0;
};

}  // namespace semsim
