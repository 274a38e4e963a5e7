#include "reports/checks/liveness.h"

#include <algorithm>

namespace semsim {

void LivenessTracker::acquire_invoked(int client, std::int64_t invoke_us) {
  acquire_settled(client);  // an earlier acquire whose outcome never came
  if (static_cast<std::size_t>(client) >= pending_since_.size()) pending_since_.resize(client + 1, -1);
  pending_since_[client] = invoke_us;
  pending_.insert(invoke_us);
}

void LivenessTracker::acquire_settled(int client) {
  if (static_cast<std::size_t>(client) >= pending_since_.size() || pending_since_[client] < 0) return;
  pending_.erase(pending_.find(pending_since_[client]));
  pending_since_[client] = -1;
}

void LivenessTracker::acquire_refused(int client) {
  if (static_cast<std::size_t>(client) >= pending_since_.size() || pending_since_[client] < 0) return;
  const std::int64_t since = pending_since_[client];
  acquire_settled(client);
  // The held instants from the invoke on (all before now) gain a waiter; from now on the wait
  // is known as it happens.
  auto first = std::lower_bound(held_.begin(), held_.end(), since,
                                [](const Instant& i, std::int64_t t) { return i.t_us < t; });
  if (first == held_.end()) return;
  ++first->added_waiters;
  --added_at_next_;
}

void LivenessTracker::instant_done(std::int64_t t_us, bool free, int waiting, bool granted) {
  held_.push_back({t_us, free, granted, waiting, added_at_next_});
  added_at_next_ = 0;
  release_held();
}

void LivenessTracker::release_held() {
  while (!held_.empty() && (pending_.empty() || held_.front().t_us < *pending_.begin())) {
    const Instant& i = held_.front();
    learnt_waiters_ += i.added_waiters;
    judge(i.t_us, i.free && i.waiting + learnt_waiters_ > 0, i.granted);
    held_.pop_front();
  }
}

void LivenessTracker::close(std::int64_t t_us) {
  if (!in_stretch_) return;
  in_stretch_ = false;
  std::int64_t d = t_us - since_us_;
  if (d > longest_us_) longest_us_ = d;
  if (d > bound_us_) ++gaps_;
}

void LivenessTracker::judge(std::int64_t t_us, bool starving, bool granted) {
  if (granted || !starving) close(t_us);
  if (starving && !in_stretch_) {
    in_stretch_ = true;
    since_us_ = t_us;
  }
}

void LivenessTracker::finish(std::int64_t end_us, Summary& s) const {
  LivenessTracker copy = *this;
  copy.pending_.clear();  // an acquire with no outcome was not refused: no wait learnt from it
  copy.release_held();
  copy.close(end_us);
  s.liveness_bound_us = bound_us();
  s.liveness_gaps = copy.gaps_;
  s.longest_no_grant_us = copy.longest_us_;
  s.liveness = copy.gaps_ > 0 ? Verdict::invalid : Verdict::valid;
}

}  // namespace semsim
