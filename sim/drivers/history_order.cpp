#include "sim/drivers/history_order.h"

#include <algorithm>

namespace semsim {

void HistoryOrder::add(Event e) {
  if (e.true_us < emitted_us_) {
    ++late_;
    late_max_us_ = std::max(late_max_us_, emitted_us_ - e.true_us);
    e.true_us = emitted_us_;
  }
  const std::int64_t t = e.true_us;
  waiting_.emplace(t, std::move(e));
}

void HistoryOrder::release_before(std::int64_t t_us) {
  while (!waiting_.empty() && waiting_.begin()->first < t_us) {
    Event e = std::move(waiting_.extract(waiting_.begin()).mapped());  // out before the sink: a sink that throws
    e.seq = next_seq_++;                                               // does not get the row again
    emitted_us_ = e.true_us;
    sink_(e);
  }
}

}  // namespace semsim
