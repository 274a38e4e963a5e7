// Safety: who holds a permit at each instant, and when more than `limit` do.
//
// A client holds from the true time of its acquire `ok` to the true time of its next release
// `invoke`, refresh `fail` or crash: the half-open interval [ok, end). A paused client still
// holds. All events at one true time form an instant: they are applied in seq order and the
// holders are counted once they all are, so a hold ending at t and one starting at t never
// overlap, whatever their seq order, and a hold that starts and ends at the same t is empty.
// The history's last instant counts like any other: a hold still open there is among its holders.
// A client holds at most one permit: a second ok while holding does not add a holder.
//
// An acquire with an `info` outcome may have succeeded: its client *possibly* holds from the info
// until its next release invoke, refresh fail, crash or acquire ok. Certain holders decide
// `invalid`; certain + possible holders decide `unknown`.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "reports/checks/holders_series.h"
#include "reports/checks/summary.h"

namespace semsim {

class HoldTracker {
 public:
  HoldTracker(int limit, std::size_t max_episodes, std::size_t series_points);

  void set_limit(int limit) { limit_ = limit; }
  void grant(int client, std::int64_t t_us, const std::string& identifier, std::int64_t clock_offset_us);
  void possible(int client);  // an acquire info
  void end(int client);       // release invoke, refresh fail, crash

  // All events at t_us have been applied: count, open or close episodes, record steals.
  // (Inline: the checker calls it at every instant that changed something.)
  void instant_done(std::int64_t t_us) {
    const int n = holders();
    max_holders_ = std::max(max_holders_, n);
    max_possible_ = std::max(max_possible_, n + possible_only_);
    over_limit_.at(t_us, n > limit_);
    possible_over_limit_.at(t_us, n + possible_only_ > limit_);
    if (n > limit_ || in_episode_) episode_instant(t_us, n);
    granted_now_.clear();
    series_.level(t_us, n);
  }

  int holders() const { return static_cast<int>(certain_.size()); }
  int possible_only() const { return possible_only_; }
  // All events at t_us have been applied and ended as at the last instant done: the same
  // holders and possible holders counted, none granted since. The maxima, episodes and steals
  // stay as they are; only the series may enter a new bucket.
  void instant_repeated(std::int64_t t_us) { series_.same_level(t_us); }
  // Certain holders granted at or after `since_us` whose grant is less than `timeout_us` old
  // at `now_us` (exactly that old: run out; no timeout: however old): the permits a fault that
  // lost the writes since `since_us` took from their holders.
  int granted_since(std::int64_t since_us, std::int64_t now_us, std::optional<std::int64_t> timeout_us) const;
  // Fills the safety fields of `s`; end_us closes an open episode.
  void finish(std::int64_t end_us, Summary& s) const;

 private:
  struct ClientHold {
    bool certain = false;
    bool possible = false;
    std::int64_t since_us = 0;
    std::uint64_t order = 0;  // grant order, breaks ties between holds of the same instant
    std::size_t pos = 0;      // index in certain_
    std::string identifier;
    std::int64_t clock_offset_us = 0;  // the client's clock at the grant, minus true time
  };
  ClientHold& at(int client);
  void remove_certain(int client);
  void episode_instant(std::int64_t t_us, int n);  // more than limit hold, or did at the last instant
  std::vector<HoldRef> witness() const;

  int limit_;
  std::size_t max_episodes_;
  std::vector<ClientHold> clients_;
  std::vector<int> certain_;  // clients holding for sure (unordered)
  int possible_only_ = 0;     // clients possibly but not certainly holding
  std::uint64_t grants_ = 0;
  std::vector<int> granted_now_;  // clients granted in the current instant

  int max_holders_ = 0, max_possible_ = 0;
  // How long more than limit_ (possibly) held: summed when it stops, not at every instant (most
  // instants change nothing).
  struct Span {
    bool on = false;  // at the last instant done
    std::int64_t since_us = 0, total_us = 0;
    void at(std::int64_t t_us, bool now_on) {
      if (now_on == on) return;
      if (now_on) since_us = t_us;
      else total_us += t_us - since_us;
      on = now_on;
    }
    std::int64_t until(std::int64_t end_us) const { return total_us + (on ? end_us - since_us : 0); }
  };
  Span over_limit_, possible_over_limit_;
  std::int64_t steals_ = 0;
  std::int64_t episode_count_ = 0;
  std::vector<Episode> episodes_;
  bool in_episode_ = false;
  int peak_ = 0;  // of the current episode, when it is not kept in episodes_
  HoldersSeries series_;
};

}  // namespace semsim
