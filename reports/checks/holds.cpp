#include "reports/checks/holds.h"

#include <algorithm>

#include "marks/coverage_marks.h"

namespace semsim {

HoldTracker::HoldTracker(int limit, std::size_t max_episodes, std::size_t series_points)
    : limit_(limit), max_episodes_(max_episodes), series_(series_points) {}

HoldTracker::ClientHold& HoldTracker::at(int client) {
  if (static_cast<std::size_t>(client) >= clients_.size()) clients_.resize(client + 1);
  return clients_[client];
}

void HoldTracker::remove_certain(int client) {
  ClientHold& h = clients_[client];
  int last = certain_.back();
  certain_[h.pos] = last;
  clients_[last].pos = h.pos;
  certain_.pop_back();
  h.certain = false;
}

void HoldTracker::grant(int client, std::int64_t t_us, const std::string& identifier, std::int64_t clock_offset_us) {
  ClientHold& h = at(client);
  if (h.possible && !h.certain) --possible_only_;
  h.possible = false;
  if (h.certain) return;  // already holds: one client, one permit
  h.certain = true;
  h.since_us = t_us;
  h.order = grants_++;
  h.identifier = identifier;
  h.clock_offset_us = clock_offset_us;
  h.pos = certain_.size();
  certain_.push_back(client);
  granted_now_.push_back(client);
}

void HoldTracker::possible(int client) {
  ClientHold& h = at(client);
  if (h.certain || h.possible) return;
  h.possible = true;
  ++possible_only_;
}

void HoldTracker::end(int client) {
  ClientHold& h = at(client);
  if (h.certain) remove_certain(client);
  if (h.possible) --possible_only_;
  h.possible = false;
}

int HoldTracker::granted_since(std::int64_t since_us, std::int64_t now_us, std::optional<std::int64_t> timeout_us) const {
  return static_cast<int>(std::count_if(certain_.begin(), certain_.end(), [&](int c) {
    const ClientHold& h = clients_[c];
    return h.since_us >= since_us && (!timeout_us || h.since_us + *timeout_us > now_us);
  }));
}

std::vector<HoldRef> HoldTracker::witness() const {
  std::vector<int> holders = certain_;
  std::size_t n = std::min<std::size_t>(holders.size(), static_cast<std::size_t>(limit_) + 1);
  auto earlier = [&](int a, int b) { return clients_[a].order < clients_[b].order; };
  std::partial_sort(holders.begin(), holders.begin() + static_cast<std::ptrdiff_t>(n),
                    holders.end(), earlier);
  std::vector<HoldRef> out;
  for (std::size_t i = 0; i < n; ++i) {
    const ClientHold& h = clients_[holders[i]];
    out.push_back({holders[i], h.identifier, h.since_us, h.clock_offset_us});
  }
  return out;
}

void HoldTracker::episode_instant(std::int64_t t_us, int n) {
  if (n > limit_) {
    // Steals: grants of this instant that are still held and sit above the limit.
    std::sort(granted_now_.begin(), granted_now_.end());  // one client may be granted twice in an instant
    granted_now_.erase(std::unique(granted_now_.begin(), granted_now_.end()), granted_now_.end());
    std::int64_t fresh = 0;
    for (int c : granted_now_)
      if (clients_[c].certain && clients_[c].since_us == t_us) ++fresh;
    const std::int64_t stolen = std::min<std::int64_t>(fresh, n - limit_);
    if (stolen > 0) mark(Mark::steal);
    steals_ += stolen;
    if (!in_episode_) {
      in_episode_ = true;
      peak_ = n;
      ++episode_count_;
      if (episodes_.size() < max_episodes_) episodes_.push_back({t_us, t_us, false, n, witness()});
    }
    peak_ = std::max(peak_, n);
    if (static_cast<std::size_t>(episode_count_) <= episodes_.size()) episodes_.back().peak_holders = peak_;
  } else if (in_episode_) {
    in_episode_ = false;
    if (static_cast<std::size_t>(episode_count_) <= episodes_.size()) episodes_.back().end_us = t_us;
  }
}

void HoldTracker::finish(std::int64_t end_us, Summary& s) const {
  s.max_holders = max_holders_;
  s.max_possible_holders = max_possible_;
  s.over_admission = std::max(0, max_holders_ - limit_);
  s.over_limit_us = over_limit_.until(end_us);
  s.possible_over_limit_us = possible_over_limit_.until(end_us);
  s.steals = steals_;
  s.episode_count = episode_count_;
  s.episodes = episodes_;
  if (in_episode_ && static_cast<std::size_t>(episode_count_) <= s.episodes.size()) {
    s.episodes.back().end_us = end_us;
    s.episodes.back().open = true;
  }
  s.safety = max_holders_ > limit_    ? Verdict::invalid
             : max_possible_ > limit_ ? Verdict::unknown
                                      : Verdict::valid;
  s.holders = series_.points(end_us);
  s.holders_bucket_us = series_.bucket_us();
}

}  // namespace semsim
