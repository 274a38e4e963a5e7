#include "reports/checks/leases.h"

#include <algorithm>

namespace semsim {

std::int64_t LeaseTracker::take_earliest(std::multiset<std::int64_t>& invokes, std::int64_t fallback) {
  if (invokes.empty()) return fallback;
  const std::int64_t t = *invokes.begin();
  invokes.erase(invokes.begin());
  return t;
}

// The server ran the failing operation no later than its reply came back: if that is before the
// promised end, the permit vanished while the promise stood.
void LeaseTracker::broke(Lease& l, std::int64_t t_us) {
  l.failed = true;
  if (t_us < l.promised_until_us) ++broken_;
}

void LeaseTracker::add(const Event& e) {
  if (!timeout_us_) return;
  const std::int64_t timeout = *timeout_us_;
  if (e.op == Op::acquire) {
    if (e.phase == Phase::invoke) {
      acquiring_[e.client].insert(e.true_us);
      return;
    }
    auto pending = acquiring_.find(e.client);
    const std::int64_t invoked = pending == acquiring_.end() ? e.true_us : take_earliest(pending->second, e.true_us);
    if (pending != acquiring_.end() && pending->second.empty()) acquiring_.erase(pending);
    if (e.phase == Phase::ok) leases_[e.identifier].promised_until_us = invoked + timeout;
  } else if (e.op == Op::refresh) {
    if (e.phase == Phase::invoke) {
      refreshing_[e.identifier].insert(e.true_us);
      return;
    }
    auto pending = refreshing_.find(e.identifier);
    const std::int64_t invoked = pending == refreshing_.end() ? e.true_us : take_earliest(pending->second, e.true_us);
    if (pending != refreshing_.end() && pending->second.empty()) refreshing_.erase(pending);
    Lease& l = leases_[e.identifier];
    if (e.phase == Phase::ok) l.promised_until_us = std::max(l.promised_until_us, invoked + timeout);
    // A refresh that lost to the client's own release is no broken promise.
    if (e.phase == Phase::fail && !l.release_invoked && !l.failed) broke(l, e.true_us);
  } else if (e.op == Op::release) {
    Lease& l = leases_[e.identifier];
    if (e.phase == Phase::invoke) {
      l.release_invoked = true;
      return;
    }
    if (e.phase == Phase::fail && !l.failed) broke(l, e.true_us);
    // The release is over: nothing later can break this lease, unless a refresh of it is still
    // on its way (it lost to the release and, its lease being kept, counts nothing either).
    if (!refreshing_.contains(e.identifier)) leases_.erase(e.identifier);
  }
}

}  // namespace semsim
