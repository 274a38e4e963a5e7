#include "reports/checks/live_leases.h"

#include <algorithm>
#include <deque>
#include <map>
#include <optional>
#include <tuple>

namespace semsim {

namespace {

// One stretch of true time during which a permit was held under a standing promise: [start, end).
struct Stretch {
  std::int64_t start_us = 0, end_us = 0;
  int client = 0;
  std::string identifier;
};

struct LeasedPermit {
  std::int64_t promised_until_us = 0;
  std::optional<std::int64_t> live_since_us;  // set while the promise stands
};

// Invokes without an outcome yet, earliest first; an outcome takes the earliest (leases.h).
std::int64_t take_earliest(std::deque<std::int64_t>& invokes, std::int64_t fallback) {
  if (invokes.empty()) return fallback;
  const std::int64_t t = invokes.front();
  invokes.pop_front();
  return t;
}

class StretchMaker {
 public:
  explicit StretchMaker(std::int64_t timeout_us) : timeout_us_(timeout_us) {}

  void add(const Event& e, LiveLeases& out) {
    if (e.client <= 0) return;
    const std::int64_t t = e.true_us;
    if (e.op == Op::crash) {
      for (auto it = permits_.lower_bound({e.client, ""}); it != permits_.end() && it->first.first == e.client;)
        it = end_hold(it, t);
      acquiring_.erase(e.client);
      for (auto it = refreshing_.lower_bound({e.client, ""}); it != refreshing_.end() && it->first.first == e.client;)
        it = refreshing_.erase(it);
      return;
    }
    const std::pair<int, std::string> key{e.client, e.identifier};
    if (e.op == Op::acquire) {
      if (e.phase == Phase::invoke) return acquiring_[e.client].push_back(t);
      const std::int64_t invoked = take_earliest(acquiring_[e.client], t);
      if (e.phase != Phase::ok) return;
      const std::int64_t promise = invoked + timeout_us_;
      if (t >= promise) ++out.late_grants;
      if (permits_.count(key)) return;  // a second ok of a permit held changes nothing
      LeasedPermit& p = permits_[key];
      p.promised_until_us = promise;
      if (t < promise) p.live_since_us = t;
    } else if (e.op == Op::release) {
      if (e.phase != Phase::invoke) return;
      if (auto it = permits_.find(key); it != permits_.end()) end_hold(it, t);
    } else if (e.op == Op::refresh) {
      if (e.phase == Phase::invoke) return refreshing_[key].push_back(t);
      const std::int64_t invoked = take_earliest(refreshing_[key], t);
      const auto it = permits_.find(key);
      if (it == permits_.end()) return;
      if (e.phase == Phase::fail) {
        end_hold(it, t);
      } else if (e.phase == Phase::ok) {
        LeasedPermit& p = it->second;
        lapse(it, t);
        p.promised_until_us = std::max(p.promised_until_us, invoked + timeout_us_);
        if (!p.live_since_us && t < p.promised_until_us) p.live_since_us = t;
      }
    }
  }

  void count_unanswered(LiveLeases& out) const {
    for (const auto& [client, invokes] : acquiring_)
      for (std::int64_t t : invokes) {
        ++out.unanswered_acquires;
        if (out.first_unanswered_us < 0 || t < out.first_unanswered_us) {
          out.first_unanswered_us = t;
          out.first_unanswered_client = client;
        }
      }
  }

  // What is still held at the end counts at the history's last instant (holds.h), as if it ended
  // just after it.
  std::vector<Stretch> finish(std::int64_t end_us) {
    for (auto it = permits_.begin(); it != permits_.end();) it = end_hold(it, end_us + 1);
    return std::move(stretches_);
  }

 private:
  using Permits = std::map<std::pair<int, std::string>, LeasedPermit>;

  // The promise ran out before t: its stretch ends where the promise did.
  void lapse(Permits::iterator it, std::int64_t t) {
    LeasedPermit& p = it->second;
    if (p.live_since_us && p.promised_until_us <= t) {
      close(it, p.promised_until_us);
      p.live_since_us.reset();
    }
  }
  void close(Permits::iterator it, std::int64_t end_us) {
    const LeasedPermit& p = it->second;
    if (end_us > *p.live_since_us) stretches_.push_back({*p.live_since_us, end_us, it->first.first, it->first.second});
  }
  Permits::iterator end_hold(Permits::iterator it, std::int64_t t) {
    lapse(it, t);
    if (it->second.live_since_us) close(it, t);
    return permits_.erase(it);
  }

  std::int64_t timeout_us_;
  Permits permits_;
  std::map<int, std::deque<std::int64_t>> acquiring_;
  std::map<std::pair<int, std::string>, std::deque<std::int64_t>> refreshing_;
  std::vector<Stretch> stretches_;
};

}  // namespace

LiveLeases live_leases(const std::vector<Event>& history, int limit, std::int64_t timeout_us) {
  LiveLeases out;
  if (timeout_us <= 0 || history.empty()) return out;
  StretchMaker maker(timeout_us);
  std::int64_t end_us = history.front().true_us;
  for (const Event& e : history) {
    maker.add(e, out);
    end_us = std::max(end_us, e.true_us);
  }
  maker.count_unanswered(out);
  const std::vector<Stretch> stretches = maker.finish(end_us);

  // Sweep the stretches' ends and starts, one instant at a time; count once the instant is applied.
  std::vector<std::tuple<std::int64_t, int, std::size_t>> marks;  // time, +1 or -1, stretch
  for (std::size_t i = 0; i < stretches.size(); ++i) {
    marks.emplace_back(stretches[i].start_us, +1, i);
    marks.emplace_back(stretches[i].end_us, -1, i);
  }
  std::sort(marks.begin(), marks.end());
  int live = 0;
  for (std::size_t i = 0; i < marks.size();) {
    const std::int64_t t = std::get<0>(marks[i]);
    for (; i < marks.size() && std::get<0>(marks[i]) == t; ++i) live += std::get<1>(marks[i]);
    out.max_live = std::max(out.max_live, live);
    if (live > limit && out.first_over_us < 0) {
      out.first_over_us = t;
      std::vector<const Stretch*> now;
      for (const Stretch& s : stretches)
        if (s.start_us <= t && t < s.end_us) now.push_back(&s);
      std::sort(now.begin(), now.end(), [](const Stretch* a, const Stretch* b) {
        return std::tie(a->start_us, a->client, a->identifier) < std::tie(b->start_us, b->client, b->identifier);
      });
      now.resize(std::min(now.size(), static_cast<std::size_t>(limit) + 1));
      for (const Stretch* s : now) out.witness.push_back({s->client, s->identifier, s->start_us});
    }
  }
  out.over_admission = std::max(0, out.max_live - limit);
  return out;
}

}  // namespace semsim
