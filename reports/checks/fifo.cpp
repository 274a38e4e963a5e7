#include "reports/checks/fifo.h"

#include <algorithm>

namespace semsim {

void FifoTracker::invoked(int client, std::uint64_t attempt, std::int64_t invoke_us) {
  clients_.grow_to(static_cast<std::size_t>(client) + 1);
  now_us_ = std::max(now_us_, invoke_us);
  settle(client);  // a previous acquire whose outcome never came
  clients_[static_cast<std::size_t>(client)].live_attempt = attempt;
  pending_.push_back({invoke_us, client, attempt});
  ++live_pending_;
}

const FifoTracker::Pending* FifoTracker::pending_within(std::int64_t after_us, std::int64_t until_us) const {
  const Pending* it = std::partition_point(pending_.begin(), pending_.end(),
                                           [&](const Pending& p) { return p.invoke_us <= after_us; });
  for (; it != pending_.end() && it->invoke_us <= until_us; ++it)
    if (live(*it)) return it;
  return nullptr;
}

// A rejection is settled once its fail instant is over (no acquire can still be invoked inside
// its window) and no acquire invoked inside its window is pending any more.
// blocked, prune and settle run at every acquire outcome: inlined into their callers here, one
// prologue instead of three (callgrind: the FIFO tracker was a quarter of the checker's cost).
[[gnu::always_inline]] inline bool FifoTracker::blocked(const Rejection& r) {
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

[[gnu::always_inline]] inline void FifoTracker::prune() {
  while (!pending_.empty() && !live(pending_.front())) pending_.pop_front();
  // A long-pending acquire at the front would keep every later settled entry: rebuild now and
  // then (amortised O(1) per acquire) so settled entries stay a small multiple of live ones.
  if (pending_.size() > 2 * live_pending_ + 64) pending_.keep_if([this](const Pending& p) { return live(p); });
  while (!waiting_.empty() && (waiting_.front().counted || !blocked(waiting_.front()))) waiting_.pop_front();
}

[[gnu::always_inline]] inline void FifoTracker::settle(int client) {
  if (static_cast<std::size_t>(client) >= clients_.size()) return;
  std::uint64_t& live_attempt = clients_[static_cast<std::size_t>(client)].live_attempt;
  if (live_attempt == 0) return;
  live_attempt = 0;
  --live_pending_;
  prune();
}

void FifoTracker::admitted(int client, std::int64_t invoke_us) {
  if (invoke_us > latest_admitted_invoke_us_) latest_admitted_invoke_us_ = invoke_us;
  // Rejections that failed at or after this invoke, were invoked before it, by another client.
  for (Rejection* it = waiting_.end(); it != waiting_.begin() && (it - 1)->fail_us >= invoke_us;) {
    --it;
    if (!it->counted && it->invoke_us < invoke_us && it->client != client) {
      it->counted = true;
      ++inversions_;
    }
  }
  settle(client);
}

void FifoTracker::rejected(int client, std::int64_t invoke_us, std::int64_t fail_us) {
  now_us_ = std::max(now_us_, fail_us);
  settle(client);
  if (latest_admitted_invoke_us_ > invoke_us) {
    ++inversions_;  // an acquire invoked after this one was already admitted
    return;
  }
  // Kept even with nothing pending in its window: an acquire may still be invoked at fail_us.
  waiting_.push_back({invoke_us, fail_us, client, false, ++rejections_kept_});
}

void FifoTracker::abandoned(int client) { settle(client); }

}  // namespace semsim
