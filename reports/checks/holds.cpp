#include "reports/checks/holds.h"

#include <algorithm>

#include "marks/coverage_marks.h"

namespace semsim {

HoldTracker::HoldTracker(int limit, std::size_t max_episodes, std::size_t series_points)
    : limit_(limit), max_episodes_(max_episodes), series_(series_points) {}

HoldTracker::ClientHolds& HoldTracker::at(int client) {
  if (static_cast<std::size_t>(client) >= clients_.size()) clients_.resize(static_cast<std::size_t>(client) + 1);
  return clients_[static_cast<std::size_t>(client)];
}

void HoldTracker::close(std::uint32_t slot) {
  Hold& h = holds_[slot];
  const std::uint32_t last = certain_.back();
  certain_[h.pos] = last;
  holds_[last].pos = h.pos;
  certain_.pop_back();
  h.open = false;
  free_.push_back(slot);
}

void HoldTracker::end_possible(ClientHolds& c) {
  possible_ -= c.possible;
  c.possible = 0;
}

void HoldTracker::grant(int client, std::int64_t t_us, const std::string& identifier, std::int64_t clock_offset_us) {
  ClientHolds& c = at(client);
  end_possible(c);
  for (std::uint32_t slot : c.open)
    if (holds_[slot].identifier == identifier) return;  // already held: the hold keeps its start
  std::uint32_t slot;
  if (free_.empty()) {
    slot = static_cast<std::uint32_t>(holds_.size());
    holds_.emplace_back();
  } else {
    slot = free_.back();
    free_.pop_back();
  }
  Hold& h = holds_[slot];
  h.client = client;
  h.open = true;
  h.since_us = t_us;
  h.order = grants_++;
  h.identifier.assign(identifier);  // a reused slot keeps its string's buffer
  h.clock_offset_us = clock_offset_us;
  h.pos = certain_.size();
  certain_.push_back(slot);
  c.open.push_back(slot);
  granted_now_.push_back(slot);
}

void HoldTracker::possible(int client) {
  ++at(client).possible;
  ++possible_;
}

void HoldTracker::end(int client, const std::string& identifier) {
  ClientHolds& c = at(client);
  end_possible(c);
  for (std::size_t i = 0; i < c.open.size(); ++i) {
    if (holds_[c.open[i]].identifier != identifier) continue;
    close(c.open[i]);
    c.open[i] = c.open.back();
    c.open.pop_back();
    return;
  }
}

void HoldTracker::crashed(int client) {
  ClientHolds& c = at(client);
  end_possible(c);
  for (std::uint32_t slot : c.open) close(slot);
  c.open.clear();
}

int HoldTracker::granted_since(std::int64_t since_us, std::int64_t now_us, std::optional<std::int64_t> timeout_us) const {
  return static_cast<int>(std::count_if(certain_.begin(), certain_.end(), [&](std::uint32_t slot) {
    const Hold& h = holds_[slot];
    return h.since_us >= since_us && (!timeout_us || h.since_us + *timeout_us > now_us);
  }));
}

std::vector<HoldRef> HoldTracker::witness() const {
  std::vector<std::uint32_t> open = certain_;
  std::size_t n = std::min<std::size_t>(open.size(), static_cast<std::size_t>(limit_) + 1);
  auto earlier = [&](std::uint32_t a, std::uint32_t b) { return holds_[a].order < holds_[b].order; };
  std::partial_sort(open.begin(), open.begin() + static_cast<std::ptrdiff_t>(n), open.end(), earlier);
  std::vector<HoldRef> out;
  for (std::size_t i = 0; i < n; ++i) {
    const Hold& h = holds_[open[i]];
    out.push_back({h.client, h.identifier, h.since_us, h.clock_offset_us});
  }
  return out;
}

void HoldTracker::episode_instant(std::int64_t t_us, int n) {
  if (n > limit_) {
    // Steals: grants of this instant that are still held and sit above the limit.
    std::sort(granted_now_.begin(), granted_now_.end());  // a slot freed and granted again in the instant
    granted_now_.erase(std::unique(granted_now_.begin(), granted_now_.end()), granted_now_.end());
    std::int64_t fresh = 0;
    for (std::uint32_t slot : granted_now_)
      if (holds_[slot].open && holds_[slot].since_us == t_us) ++fresh;
    const std::int64_t stolen = std::min<std::int64_t>(fresh, n - limit_);
    if (stolen > 0) mark(Mark::steal);
    steals_ += stolen;
    if (!in_episode_) {
      in_episode_ = true;
      peak_ = n;
      ++episode_count_;
      if (episodes_.size() < max_episodes_) episodes_.push_back({t_us, t_us, false, n, witness()});
      if (spans_.size() < Summary::kMaxEpisodeSpans) spans_.push_back({t_us, t_us, n});
    }
    peak_ = std::max(peak_, n);
    if (static_cast<std::size_t>(episode_count_) <= episodes_.size()) episodes_.back().peak_holders = peak_;
    if (static_cast<std::size_t>(episode_count_) <= spans_.size()) spans_.back().peak_holders = peak_;
  } else if (in_episode_) {
    in_episode_ = false;
    if (static_cast<std::size_t>(episode_count_) <= episodes_.size()) episodes_.back().end_us = t_us;
    if (static_cast<std::size_t>(episode_count_) <= spans_.size()) spans_.back().end_us = t_us;
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
  s.episode_spans = spans_;
  if (in_episode_ && static_cast<std::size_t>(episode_count_) <= s.episode_spans.size()) s.episode_spans.back().end_us = end_us;
  s.safety = max_holders_ > limit_    ? Verdict::invalid
             : max_possible_ > limit_ ? Verdict::unknown
                                      : Verdict::valid;
  s.holders = series_.points(end_us);
  s.holders_bucket_us = series_.bucket_us();
}

}  // namespace semsim
