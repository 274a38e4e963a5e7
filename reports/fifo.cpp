#include "reports/fifo.h"

namespace semsim {

void FifoTracker::invoked(int client, std::uint64_t attempt, std::int64_t invoke_us) {
  if (static_cast<std::size_t>(client) >= clients_.size()) clients_.resize(client + 1);
  if (clients_[client].live_attempt != 0) settle(client, false);  // an outcome never came
  clients_[client].live_attempt = attempt;
  pending_.push_back({invoke_us, client, attempt});
  ++live_pending_;
}

void FifoTracker::compact() {
  while (!pending_.empty() && !live(pending_.front())) pending_.pop_front();
  // A stuck acquire at the front would keep every later settled entry: rebuild now and then,
  // amortised O(1) per acquire, so the deque stays within a small multiple of the live ones.
  if (pending_.size() > 2 * live_pending_ + 64) {
    std::deque<Pending> kept;
    for (const Pending& p : pending_)
      if (live(p)) kept.push_back(p);
    pending_.swap(kept);
  }
}

void FifoTracker::settle(int client, bool admitted) {
  if (static_cast<std::size_t>(client) >= clients_.size()) return;
  ClientState& c = clients_[client];
  if (c.live_attempt == 0) return;
  for (std::size_t r : c.waiters) {
    Rejection& rej = rejections_[r];
    if (admitted && !rej.counted) {
      rej.counted = true;
      ++inversions_;
    }
    if (--rej.candidates == 0) free_.push_back(r);
  }
  c.waiters.clear();
  c.live_attempt = 0;
  --live_pending_;
  compact();
}

void FifoTracker::admitted(int client, std::int64_t invoke_us) {
  if (invoke_us > latest_admitted_invoke_us_) latest_admitted_invoke_us_ = invoke_us;
  settle(client, true);
}

void FifoTracker::rejected(int client, std::int64_t invoke_us, std::int64_t /*fail_us*/) {
  settle(client, false);
  if (latest_admitted_invoke_us_ > invoke_us) {
    ++inversions_;  // an acquire invoked after this one was already admitted
    return;
  }
  // Acquires still pending were invoked no later than now (the fail); those invoked after this
  // one may yet be admitted. They sit at the back of the deque.
  std::size_t slot = SIZE_MAX;
  for (auto it = pending_.rbegin(); it != pending_.rend() && it->invoke_us > invoke_us; ++it) {
    if (!live(*it) || it->client == client) continue;
    if (slot == SIZE_MAX) {
      if (free_.empty()) {
        slot = rejections_.size();
        rejections_.emplace_back();
      } else {
        slot = free_.back();
        free_.pop_back();
        rejections_[slot] = Rejection{};
      }
    }
    ++rejections_[slot].candidates;
    clients_[it->client].waiters.push_back(slot);
  }
}

void FifoTracker::abandoned(int client) { settle(client, false); }

}  // namespace semsim
