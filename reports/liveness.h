// Liveness: a permit was free, somebody wanted one, and nobody got one.
//
// At an instant (after all its events), the run is *starving* when fewer than `limit` clients
// certainly hold and at least one client is waiting (rejected since its last grant, not crashed;
// see waits.h). A no-grant stretch is a maximal stretch of starving true time without an acquire
// ok: it ends at a grant (a new one starts there if the run is still starving), when the run
// stops starving, or at the end of the history. longest_no_grant_ms is the longest such stretch;
// liveness_gaps counts the stretches longer than the bound; liveness is invalid if there is one.
//
// The bound defaults to the semaphore's timeout_ms + 1000 ms: after a crash or a lost release,
// Redis rightly keeps the permit until the timeout, and retries need a moment after that.
#pragma once

#include <cstdint>

#include "reports/summary.h"

namespace semsim {

class LivenessTracker {
 public:
  explicit LivenessTracker(std::int64_t bound_ms = 0) : bound_us_(bound_ms * 1000) {}
  void set_bound_ms(std::int64_t bound_ms) { bound_us_ = bound_ms * 1000; }
  std::int64_t bound_ms() const { return bound_us_ / 1000; }

  void instant_done(std::int64_t t_us, bool starving, bool granted);
  void finish(std::int64_t end_us, Summary& s) const;

 private:
  void close(std::int64_t t_us);

  std::int64_t bound_us_;
  bool in_stretch_ = false;
  std::int64_t since_us_ = 0;
  std::int64_t gaps_ = 0;
  std::int64_t longest_us_ = 0;
};

}  // namespace semsim
