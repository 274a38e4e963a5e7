#include "reports/fifo.h"

namespace semsim {

void FifoTracker::invoked(int client, std::uint64_t attempt, std::int64_t invoke_us) {
  if (static_cast<std::size_t>(client) >= live_attempt_.size()) live_attempt_.resize(client + 1, 0);
  live_attempt_[client] = attempt;
  pending_.push_back({invoke_us, client, attempt});
}

void FifoTracker::done(int client) {
  if (static_cast<std::size_t>(client) < live_attempt_.size()) live_attempt_[client] = 0;
  prune();
}

void FifoTracker::prune() {
  while (!pending_.empty() && live_attempt_[pending_.front().client] != pending_.front().attempt)
    pending_.pop_front();
  // A rejection can only be inverted by an acquire invoked no later than its fail; once every
  // such acquire has completed it is settled.
  std::int64_t oldest_pending = pending_.empty() ? INT64_MAX : pending_.front().invoke_us;
  while (!waiting_.empty() && (waiting_.front().counted || waiting_.front().fail_us < oldest_pending))
    waiting_.pop_front();
}

void FifoTracker::admitted(int client, std::int64_t invoke_us) {
  if (invoke_us > latest_admitted_invoke_us_) latest_admitted_invoke_us_ = invoke_us;
  // Rejections that failed before this ok but after this invoke, and were invoked before it.
  for (auto it = waiting_.rbegin(); it != waiting_.rend() && it->fail_us >= invoke_us; ++it)
    if (!it->counted && it->invoke_us < invoke_us && it->client != client) {
      it->counted = true;
      ++inversions_;
    }
  done(client);
}

void FifoTracker::rejected(int client, std::int64_t invoke_us, std::int64_t fail_us) {
  done(client);
  if (latest_admitted_invoke_us_ > invoke_us) {
    ++inversions_;  // an acquire invoked after this one was already admitted
    return;
  }
  // Still pending acquires invoked in (invoke_us, fail_us] may be admitted later.
  if (!pending_.empty() && pending_.back().invoke_us > invoke_us)
    waiting_.push_back({invoke_us, fail_us, client, false});
}

void FifoTracker::abandoned(int client) { done(client); }

}  // namespace semsim
