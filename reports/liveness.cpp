#include "reports/liveness.h"

namespace semsim {

void LivenessTracker::close(std::int64_t t_us) {
  if (!in_stretch_) return;
  in_stretch_ = false;
  std::int64_t d = t_us - since_us_;
  if (d > longest_us_) longest_us_ = d;
  if (d > bound_us_) ++gaps_;
}

void LivenessTracker::instant_done(std::int64_t t_us, bool starving, bool granted) {
  if (granted || !starving) close(t_us);
  if (starving && !in_stretch_) {
    in_stretch_ = true;
    since_us_ = t_us;
  }
}

void LivenessTracker::finish(std::int64_t end_us, Summary& s) const {
  LivenessTracker copy = *this;
  copy.close(end_us);
  s.liveness_bound_ms = bound_ms();
  s.liveness_gaps = copy.gaps_;
  s.longest_no_grant_us = copy.longest_us_;
  s.liveness = copy.gaps_ > 0 ? Verdict::invalid : Verdict::valid;
}

}  // namespace semsim
