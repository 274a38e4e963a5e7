#include "reports/checks/fifo.h"

#include <algorithm>

namespace semsim {

const FifoTracker::Pending* FifoTracker::pending_within(std::int64_t after_us, std::int64_t until_us) const {
  const Pending* it = std::partition_point(pending_.begin(), pending_.end(),
                                           [&](const Pending& p) { return p.invoke_us <= after_us; });
  for (; it != pending_.end() && it->invoke_us <= until_us; ++it)
    if (live(*it)) return it;
  return nullptr;
}

// A rejection is settled once its fail instant is over (no acquire can still be invoked inside
// its window) and no acquire invoked inside its window is pending any more.
bool FifoTracker::blocked(const Rejection& r) {
  if (r.fail_us >= now_us_) return true;
  if (blocked_number_ == r.number && live(blocker_)) return true;
  // The front of pending_ is live (prune drops settled ones first): the earliest pending invoke.
  if (pending_.empty() || pending_.front().invoke_us > r.fail_us) return false;
  const Pending* p = pending_.front().invoke_us > r.invoke_us ? &pending_.front()
                                                               : pending_within(r.invoke_us, r.fail_us);
  if (p == nullptr) return false;
  blocker_ = *p;
  blocked_number_ = r.number;
  return true;
}

void FifoTracker::prune() {
  // Settled entries anywhere (a long-pending acquire at the front would keep every later one).
  pending_.keep_if([this](const Pending& p) { return live(p); });
  while (!waiting_.empty() && (waiting_.front().counted || !blocked(waiting_.front()))) waiting_.pop_front();
  prune_countdown_ = pending_.size() + waiting_.size() + 64;
}

void FifoTracker::crashed(int client) {
  if (static_cast<std::size_t>(client) >= clients_.size()) return;
  Client& me = clients_[static_cast<std::size_t>(client)];
  live_pending_ -= me.invoked - me.settled;
  me.settled = me.invoked;
}

void FifoTracker::admitted(int client, std::int64_t invoke_us) {
  if (invoke_us > latest_admitted_invoke_us_) latest_admitted_invoke_us_ = invoke_us;
  // Rejections that failed at or after this invoke, were invoked before it, by another client.
  for (Rejection* it = waiting_.end(); it != waiting_.begin() && (it - 1)->fail_us >= invoke_us;) {
    --it;
    // Without a branch: which of them it inverts is as good as random (docs/performance.md, the
    // eighth session: the tracker alone 6.9% faster).
    const bool inverts = !it->counted & (it->invoke_us < invoke_us) & (it->client != client);
    it->counted |= inverts;
    inversions_ += inverts;
  }
  settle(client);
}

}  // namespace semsim
