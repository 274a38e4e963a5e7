// A run's progress in a log (standard error not a terminal: CI): a whole line at a steady pace,
//   [semsim] 12.500 s of 60.000 s simulated (21%), 123456 events, 15 s wall
// so that a long run is never silent for minutes. On a terminal the simulation's own Progress line
// (rewritten in place) shows it instead. It reads the wall clock only to pace its lines: nothing
// of the run depends on it.
#pragma once

#include <cstdint>
#include <ostream>

namespace semsim {

class LogProgress {
 public:
  // `duration_us`: the run's --duration; a line at most every `period_s` seconds of wall time.
  LogProgress(std::ostream& out, std::int64_t duration_us, double period_s = 15) : out_(out), duration_us_(duration_us), period_s_(period_s) {}

  // One event of the history, at true time `true_us`; `wall_s()` (seconds since the run began) is
  // asked every 1024 events, so that the run pays nothing for it.
  template <class WallSeconds>
  void event(std::int64_t true_us, WallSeconds wall_s) {
    if (events_++ == 0) start_us_ = true_us;
    if (events_ % 1024 == 0) line_if_due(true_us, wall_s());
  }

  // Writes the line if `period_s` has passed since the last (or since the start).
  void line_if_due(std::int64_t true_us, double wall_s);

 private:
  std::ostream& out_;
  std::int64_t duration_us_, start_us_ = 0;
  double period_s_, last_s_ = 0;
  std::uint64_t events_ = 0;
};

}  // namespace semsim
