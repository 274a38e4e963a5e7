#include "reports/checks/liveness.h"

#include <algorithm>

namespace semsim {

void LivenessTracker::track(int client, std::uint32_t attempt, std::int64_t invoke_us) {
  pending_.push_back({invoke_us, client, attempt});
  // A long-pending acquire at the front would keep every later settled entry: drop them when the
  // queue has doubled since (amortised O(1) an acquire), so settled entries stay a small
  // multiple of live ones.
  if (pending_.size() >= prune_at_) {
    pending_.keep_if([this](const Pending& p) { return live(p); });
    prune_at_ = 2 * pending_.size() + 64;
  }
}

void LivenessTracker::crashed(int client) {
  if (static_cast<std::size_t>(client) >= clients_.size()) return;
  Client& c = clients_[static_cast<std::size_t>(client)];
  c.settled = c.invoked;
}

const LivenessTracker::Pending* LivenessTracker::earliest_pending() {
  while (!pending_.empty() && !live(pending_.front())) pending_.pop_front();
  return pending_.empty() ? nullptr : &pending_.front();
}

void LivenessTracker::learn_wait(std::int64_t since) {
  // The held instants from the invoke on (all before now) gain a waiter; from now on the wait
  // is known as it happens.
  Instant* first = std::lower_bound(held_.begin(), held_.end(), since,
                                    [](const Instant& i, std::int64_t t) { return i.t_us < t; });
  if (first == held_.end()) return;
  ++first->added_waiters;
  --added_at_next_;
}

// A decided instant (instant_done) after held ones is not held apart from the decided one
// before it when they judge the same, without a grant: judging it would change nothing.
void LivenessTracker::hold(std::int64_t t_us, bool free, int waiting, bool granted) {
  const bool decided = !free || waiting > 0;
  if (decided && !granted && added_at_next_ == 0) {
    const Instant& last = held_.back();
    if ((!last.free || last.waiting > 0) && last.free == free) return;
  }
  held_.push_back({t_us, free, granted, waiting, added_at_next_});
  added_at_next_ = 0;
  release_held();
}

void LivenessTracker::release_held() {
  const Pending* earliest = earliest_pending();
  while (!held_.empty() && (earliest == nullptr || held_.front().t_us < earliest->invoke_us)) {
    const Instant& i = held_.front();
    learnt_waiters_ += i.added_waiters;
    judge(i.t_us, i.free && i.waiting + learnt_waiters_ > 0, i.granted);
    held_.pop_front();
  }
}

void LivenessTracker::finish(std::int64_t end_us, Summary& s) const {
  LivenessTracker copy = *this;
  // An acquire with no outcome was not refused: no wait learnt from it.
  copy.pending_.clear();
  copy.release_held();
  copy.close(end_us);
  s.liveness_bound_us = bound_us();
  s.liveness_gaps = copy.gaps_;
  s.longest_no_grant_us = copy.longest_us_;
  s.liveness = copy.gaps_ > 0 ? Verdict::invalid : Verdict::valid;
}

}  // namespace semsim
