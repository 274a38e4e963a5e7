#include "reports/checks/waits.h"

namespace semsim {

// Ties go to the lower client id, so the answer does not depend on event order within a tie.
void WaitTracker::Longest::consider(std::int64_t d, int c, bool is_open) {
  if (d > us || (d == us && client >= 0 && c < client)) {
    us = d;
    client = c;
    open = is_open;
  }
}

void WaitTracker::stop(int client, std::int64_t t_us, bool open) {
  Client& s = at(client);
  if (!s.waiting) return;
  s.waiting = false;
  --waiting_;
  longest_.consider(t_us - s.since_us, client, open);
}

void WaitTracker::granted(int client, std::int64_t ok_us) { stop(client, ok_us, false); }
void WaitTracker::crashed(int client, std::int64_t t_us) { stop(client, t_us, false); }
void WaitTracker::stopped_wanting(int client, std::int64_t t_us) { stop(client, t_us, false); }

void WaitTracker::finish(std::int64_t end_us, Summary& s) const {
  // The waits still open end here (without writing the clients' parts: they may be the caller's).
  Longest longest = longest_;
  for (std::size_t c = 0; c < clients_.size(); ++c)
    if (clients_[c].waiting) longest.consider(end_us - clients_[c].since_us, static_cast<int>(c), true);
  s.longest_wait_us = longest.us;
  s.longest_wait_client = longest.client;
  s.longest_wait_open = longest.open;
}

}  // namespace semsim
