#include "reports/checks/waits.h"

namespace semsim {

WaitTracker::State& WaitTracker::at(int client) {
  if (static_cast<std::size_t>(client) >= clients_.size()) clients_.resize(client + 1);
  return clients_[client];
}

void WaitTracker::rejected(int client, std::int64_t invoke_us) {
  State& s = at(client);
  if (s.waiting) return;
  s.waiting = true;
  s.since_us = invoke_us;
  ++waiting_;
}

void WaitTracker::stop(int client, std::int64_t t_us, bool open) {
  State& s = at(client);
  if (!s.waiting) return;
  s.waiting = false;
  --waiting_;
  std::int64_t d = t_us - s.since_us;
  // Ties go to the lower client id, so the answer does not depend on event order within a tie.
  if (d > longest_us_ || (d == longest_us_ && longest_client_ >= 0 && client < longest_client_)) {
    longest_us_ = d;
    longest_client_ = client;
    longest_open_ = open;
  }
}

void WaitTracker::granted(int client, std::int64_t ok_us) { stop(client, ok_us, false); }
void WaitTracker::crashed(int client, std::int64_t t_us) { stop(client, t_us, false); }
void WaitTracker::stopped_wanting(int client, std::int64_t t_us) { stop(client, t_us, false); }

void WaitTracker::finish(std::int64_t end_us, Summary& s) const {
  WaitTracker copy = *this;
  for (std::size_t c = 0; c < copy.clients_.size(); ++c)
    if (copy.clients_[c].waiting) copy.stop(static_cast<int>(c), end_us, true);
  s.longest_wait_us = copy.longest_us_;
  s.longest_wait_client = copy.longest_client_;
  s.longest_wait_open = copy.longest_open_;
}

}  // namespace semsim
