#include "reports/checks/latency.h"

#include <algorithm>
#include <bit>

namespace semsim {

namespace {

constexpr int kExactBits = 14;  // values < 2^14 us are their own bucket
constexpr std::uint64_t kExact = std::uint64_t{1} << kExactBits;
static_assert(kExact == LatencyHistogram::kExactBelow);
constexpr std::uint64_t kHalf = kExact / 2;  // sub-buckets per power of two above kExact

std::size_t index_of(std::uint64_t v) {
  if (v < kExact) return v;
  unsigned shift = static_cast<unsigned>(std::bit_width(v)) - kExactBits;  // >= 1
  std::uint64_t top = v >> shift;                                           // in [kHalf, kExact)
  return kExact + (shift - 1) * kHalf + (top - kHalf);
}

std::int64_t value_of(std::size_t index) {
  if (index < kExact) return static_cast<std::int64_t>(index);
  std::uint64_t k = index - kExact;
  unsigned shift = static_cast<unsigned>(k / kHalf) + 1;
  std::uint64_t top = k % kHalf + kHalf;
  return static_cast<std::int64_t>(top << shift);
}

}  // namespace

void LatencyHistogram::add_slow(std::int64_t us) {
  // True time never runs backwards, so a negative latency is a malformed history; clamp it to 0
  // rather than index out of range.
  const std::uint64_t v = us < 0 ? 0 : static_cast<std::uint64_t>(us);
  if (v < kExact) {
    if (low_.empty()) low_.resize(kExact, 0);
    if (++low_[v] == 0) carry(static_cast<std::int64_t>(v));
  } else {
    const std::size_t i = index_of(v);
    if (i >= counts_.size()) counts_.resize(i + 1, 0);
    ++counts_[i];
  }
  ++count_;
}

void LatencyHistogram::carry(std::int64_t us) {
  const auto i = static_cast<std::size_t>(us);
  if (i >= counts_.size()) counts_.resize(i + 1, 0);
  counts_[i] += std::uint64_t{1} << 16;
}

std::uint64_t LatencyHistogram::at(std::size_t index) const {
  return (index < counts_.size() ? counts_[index] : 0) + (index < low_.size() ? low_[index] : 0);
}

std::optional<std::int64_t> LatencyHistogram::percentile_us(int percent) const {
  if (count_ == 0) return std::nullopt;
  std::uint64_t rank = (static_cast<std::uint64_t>(percent) * count_ + 99) / 100;  // ceil
  if (rank == 0) rank = 1;
  const std::size_t n = std::max(counts_.size(), low_.size());
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < n; ++i) {
    seen += at(i);
    if (seen >= rank) return value_of(i);
  }
  return value_of(n - 1);
}

std::vector<std::pair<std::int64_t, std::uint64_t>> LatencyHistogram::buckets() const {
  std::vector<std::pair<std::int64_t, std::uint64_t>> out;
  const std::size_t n = std::max(counts_.size(), low_.size());
  for (std::size_t i = 0; i < n; ++i)
    if (const std::uint64_t c = at(i)) out.emplace_back(value_of(i), c);
  return out;
}

}  // namespace semsim
