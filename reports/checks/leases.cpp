#include "reports/checks/leases.h"

#include <algorithm>

#include "reports/history/key_values.h"

namespace semsim {

LeaseTracker::Client& LeaseTracker::client(int id) {
  clients_.grow_to(static_cast<std::size_t>(id) + 1);
  return clients_[static_cast<std::size_t>(id)];
}

LeaseTracker::Lease& LeaseTracker::lease(Client& c, const std::string& identifier) {
  Lease* free = nullptr;
  for (Lease& l : c.leases) {
    if (l.live && l.identifier == identifier) return l;
    if (!l.live && !free) free = &l;
  }
  if (!free) free = &c.leases.emplace_back();
  free->live = true;
  free->identifier.assign(identifier);
  free->promised_until_us = 0;
  free->release_invoked = free->released = free->failed = false;
  free->refreshing.clear();
  return *free;
}

std::int64_t LeaseTracker::Invokes::take_earliest(std::int64_t fallback) {
  if (n_ == 0) return fallback;
  --n_;
  const auto earliest = std::min_element(more_.begin(), more_.end());
  if (earliest == more_.end() || first_us_ <= *earliest) {
    const std::int64_t t = first_us_;
    if (!more_.empty()) {
      first_us_ = more_.back();
      more_.pop_back();
    }
    return t;
  }
  const std::int64_t t = *earliest;
  *earliest = more_.back();
  more_.pop_back();
  return t;
}

// The server ran the failing operation no later than its reply came back: if that is before the
// promised end, the permit vanished while the promise stood.
void LeaseTracker::broke(Lease& l, std::int64_t t_us) {
  l.failed = true;
  if (t_us < l.promised_until_us) ++broken_;
}

// Once its release has an outcome and no refresh of it is on its way, nothing can break it.
void LeaseTracker::forget_if_over(Lease& l) {
  if (l.released && l.refreshing.size() == 0) l.live = false;
}

void LeaseTracker::add_row(const Event& e) {
  const std::int64_t timeout = *timeout_us_;
  Client& c = client(e.client);
  if (e.op == Op::acquire) {
    if (e.phase == Phase::invoke) {
      c.acquiring.push(e.true_us);
      return;
    }
    const std::int64_t invoked = c.acquiring.take_earliest(e.true_us);
    if (e.phase == Phase::ok) lease(c, e.identifier).promised_until_us = invoked + timeout;
  } else if (e.op == Op::refresh) {
    Lease& l = lease(c, e.identifier);
    if (e.phase == Phase::invoke) {
      l.refreshing.push(e.true_us);
      return;
    }
    const std::int64_t invoked = l.refreshing.take_earliest(e.true_us);
    if (e.phase == Phase::ok) l.promised_until_us = std::max(l.promised_until_us, invoked + timeout);
    // A refresh that lost to the client's own release is no broken promise.
    if (e.phase == Phase::fail && !l.release_invoked && !l.failed) broke(l, e.true_us);
    forget_if_over(l);
  } else if (e.op == Op::release) {
    Lease& l = lease(c, e.identifier);
    if (e.phase == Phase::invoke) {
      l.release_invoked = true;
      return;
    }
    if (e.phase == Phase::fail && !l.failed) broke(l, e.true_us);
    l.released = true;
    forget_if_over(l);
  } else if (e.op == Op::lease) {
    // What Redis held of the permit, asked by the harness (a script's lease_honesty): gone
    // (admitted=0, ttl_ms=-2), or a key whose TTL ends before the promise by more than Redis's
    // millisecond. The row's instant is no earlier than Redis's answer, so the expiry is never
    // put earlier than it was.
    // Once the client's own release is on its way, only the row asked before it was sent
    // (at=release) speaks of the lease: a later one may see what that release did.
    Lease* l = find(c, e.identifier);
    if (!l || l->failed || e.true_us >= l->promised_until_us) return;
    const KeyValues kv = KeyValues::parse(e.detail);
    if (l->release_invoked && kv.get("at") != "release") return;
    const auto admitted = kv.get_int("admitted"), ttl_ms = kv.get_int("ttl_ms");
    const bool gone = (admitted && *admitted == 0) || (ttl_ms && *ttl_ms == -2) ||
                      (exact_instants_ && ttl_ms && *ttl_ms >= 0 && e.true_us + *ttl_ms * 1000 + 1000 <= l->promised_until_us);
    if (gone) broke(*l, e.true_us);
  }
}

LeaseTracker::Lease* LeaseTracker::find(Client& c, const std::string& identifier) {
  for (Lease& l : c.leases)
    if (l.live && l.identifier == identifier) return &l;
  return nullptr;
}

// A crashed client starts again with nothing: its leases and pending acquires end here.
void LeaseTracker::crashed(int id) {
  if (static_cast<std::size_t>(id) >= clients_.size()) return;
  Client& c = clients_[static_cast<std::size_t>(id)];
  c.acquiring.clear();
  for (Lease& l : c.leases) l.live = false;
}

}  // namespace semsim
