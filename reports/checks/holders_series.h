// Holders over time with a bounded number of points, however long the history: buckets of a
// fixed width, each keeping the most holders seen at any instant in it. When the buckets would
// exceed 2 * target points, neighbours merge pairwise and the width doubles, so the series stays
// between target and 2 * target points and a short over-admission is never averaged away.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "reports/checks/summary.h"

namespace semsim {

class HoldersSeries {
 public:
  explicit HoldersSeries(std::size_t target_points = 2000, std::int64_t initial_bucket_us = 1000);

  // From true time t_us on, `holders` hold (until the next call). Calls in time order.
  void level(std::int64_t t_us, int holders) {
    if (started_ && t_us < current_end_us_) {  // most calls: still in the current bucket
      current_ = holders;
      max_[current_index_] = std::max(max_[current_index_], holders);
    } else {
      enter_bucket(t_us, holders);
    }
  }
  // From t_us on, as many hold as before (calls in time order): only a new bucket needs work.
  void same_level(std::int64_t t_us) {
    if (!started_ || t_us >= current_end_us_) enter_bucket(t_us, current_);
  }
  // The series up to end_us.
  std::vector<HoldersPoint> points(std::int64_t end_us) const;
  std::int64_t bucket_us() const { return bucket_us_; }

 private:
  void extend_to(std::size_t index);
  void enter_bucket(std::int64_t t_us, int holders);

  std::size_t target_;
  std::int64_t bucket_us_;
  bool started_ = false;
  std::int64_t origin_us_ = 0;
  int current_ = 0;
  std::size_t current_index_ = 0;
  std::int64_t current_end_us_ = 0;  // where the bucket current_index_ ends (calls come in time order)
  std::vector<int> max_;
};

}  // namespace semsim
