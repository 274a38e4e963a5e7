// A driver run's history in true-time order. Rows come from many processes, each stamped with
// the CLOCK_MONOTONIC instant its driver read, and reach semsim a little later and out of order
// across drivers; history.csv and the checker need them sorted by (true_us, seq). Rows wait here
// until nothing earlier can still come (the run says so: release_before), then go out in order,
// numbered. A row that still comes later than that (a driver stalled between reading its clock and
// writing the line) is placed at the last instant already written, and counted.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <utility>

#include "reports/history/event.h"

namespace semsim {

class HistoryOrder {
 public:
  using Sink = std::function<void(const Event&)>;
  explicit HistoryOrder(Sink sink) : sink_(std::move(sink)) {}

  // `e.seq` is ignored: rows are numbered as they go out.
  void add(Event e);
  // No row before true time `t_us` will be added any more: emit those, in order.
  void release_before(std::int64_t t_us);
  void flush() { release_before(INT64_MAX); }

  std::uint64_t rows() const { return next_seq_; }
  std::int64_t last_emitted_us() const { return emitted_us_; }
  std::int64_t late_rows() const { return late_; }
  std::int64_t late_max_us() const { return late_max_us_; }

 private:
  Sink sink_;
  std::multimap<std::int64_t, Event> waiting_;  // by true_us; equal times in arrival order
  std::int64_t emitted_us_ = INT64_MIN;
  std::uint64_t next_seq_ = 0;
  std::int64_t late_ = 0, late_max_us_ = 0;
};

}  // namespace semsim
