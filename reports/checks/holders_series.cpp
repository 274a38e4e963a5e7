#include "reports/checks/holders_series.h"

#include <algorithm>

namespace semsim {

HoldersSeries::HoldersSeries(std::size_t target_points, std::int64_t initial_bucket_us)
    : target_(std::max<std::size_t>(target_points, 2)), bucket_us_(std::max<std::int64_t>(initial_bucket_us, 1)) {}

void HoldersSeries::extend_to(std::size_t index) {
  // Merge until `index` fits in 2 * target buckets.
  while (index >= 2 * target_) {
    std::vector<int> merged((max_.size() + 1) / 2, 0);
    for (std::size_t i = 0; i < max_.size(); ++i) merged[i / 2] = std::max(merged[i / 2], max_[i]);
    max_ = std::move(merged);
    bucket_us_ *= 2;
    index /= 2;
    current_index_ /= 2;
  }
  // The level in force since the last change covers every bucket up to and including index.
  while (max_.size() <= index) max_.push_back(current_);
}

void HoldersSeries::enter_bucket(std::int64_t t_us, int holders) {
  if (!started_) {
    started_ = true;
    origin_us_ = t_us;
    max_.assign(1, holders);
    current_ = holders;
    current_index_ = 0;
    current_end_us_ = origin_us_ + bucket_us_;
    return;
  }
  std::size_t index = static_cast<std::size_t>((t_us - origin_us_) / bucket_us_);
  if (index >= 2 * target_ || index >= max_.size()) {
    extend_to(index);
    index = static_cast<std::size_t>((t_us - origin_us_) / bucket_us_);
  }
  current_ = holders;
  current_index_ = index;
  current_end_us_ = origin_us_ + static_cast<std::int64_t>(index + 1) * bucket_us_;
  max_[index] = std::max(max_[index], holders);
}

std::vector<HoldersPoint> HoldersSeries::points(std::int64_t end_us) const {
  HoldersSeries copy = *this;
  if (started_ && end_us > origin_us_) {
    std::size_t index = static_cast<std::size_t>((end_us - origin_us_) / copy.bucket_us_);
    copy.extend_to(index);
  }
  std::vector<HoldersPoint> out;
  out.reserve(copy.max_.size());
  for (std::size_t i = 0; i < copy.max_.size(); ++i)
    out.push_back({copy.origin_us_ + static_cast<std::int64_t>(i) * copy.bucket_us_, copy.max_[i]});
  return out;
}

}  // namespace semsim
