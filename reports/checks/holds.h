// Safety: how many permits are held at each instant, and when more than `limit` are.
//
// Permits, not clients, are counted: a client may hold several at once (a library may grant them,
// and a scripted client's acquires may overlap). An acquire `ok` of client c naming identifier id
// opens a hold of id, which ends at c's next release `invoke` or refresh `fail` naming id, or at
// c's crash (all of its holds): the half-open interval [ok, end). A second ok of c naming an id it
// already holds changes nothing (the hold keeps its start). A paused client still holds. All
// events at one true time form an instant: they are applied in seq order and the holds are
// counted once they all are, so a hold ending at t and one starting at t never overlap, whatever
// their seq order, and a hold that starts and ends at the same t is empty. The history's last
// instant counts like any other: a hold still open there is among its holders.
//
// An acquire with an `info` outcome may have granted a permit whose identifier the history does
// not know: its client *possibly* holds one more permit from the info until its next release
// invoke, refresh fail, crash or acquire ok (each of which ends all of the client's possible
// permits). Certain permits decide `invalid`; certain + possible permits decide `unknown`.
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
  // An acquire ok: opens a hold of `identifier` (unless the client holds it already).
  void grant(int client, std::int64_t t_us, const std::string& identifier, std::int64_t clock_offset_us);
  void possible(int client);  // an acquire info: one more possible permit
  // A release invoke or refresh fail naming `identifier`: ends that hold of the client, if any.
  void end(int client, const std::string& identifier);
  void crashed(int client);  // every hold of the client ends

  // All events at t_us have been applied: count, open or close episodes, record steals.
  // (Inline: the checker calls it at every instant that changed something.)
  void instant_done(std::int64_t t_us) {
    const int n = holders();
    max_holders_ = std::max(max_holders_, n);
    max_possible_ = std::max(max_possible_, n + possible_);
    over_limit_.at(t_us, n > limit_);
    possible_over_limit_.at(t_us, n + possible_ > limit_);
    if (n > limit_ || in_episode_) episode_instant(t_us, n);
    granted_now_.clear();
    series_.level(t_us, n);
  }

  int holders() const { return static_cast<int>(certain_.size()); }  // permits certainly held
  int possible_only() const { return possible_; }  // permits possibly (and not certainly) held
  // All events at t_us have been applied and ended as at the last instant done: the same
  // holders and possible holders counted, none granted since. The maxima, episodes and steals
  // stay as they are; only the series may enter a new bucket.
  void instant_repeated(std::int64_t t_us) { series_.same_level(t_us); }
  // Certain holds granted at or after `since_us` whose grant is less than `timeout_us` old
  // at `now_us` (exactly that old: run out; no timeout: however old): the permits a fault that
  // lost the writes since `since_us` took from their holders.
  int granted_since(std::int64_t since_us, std::int64_t now_us, std::optional<std::int64_t> timeout_us) const;
  // Fills the safety fields of `s`; end_us closes an open episode.
  void finish(std::int64_t end_us, Summary& s) const;

 private:
  struct Hold {  // one permit held, in a slot of holds_ (reused once it ends)
    int client = 0;
    bool open = false;
    std::int64_t since_us = 0;
    std::uint64_t order = 0;  // grant order, breaks ties between holds of the same instant
    std::size_t pos = 0;      // index in certain_
    std::string identifier;
    std::int64_t clock_offset_us = 0;  // the client's clock at the grant, minus true time
  };
  struct ClientHolds {
    int possible = 0;                 // possible permits (acquire infos not yet ended)
    std::vector<std::uint32_t> open;  // its holds' slots: almost always at most one
  };
  ClientHolds& at(int client);
  void close(std::uint32_t slot);  // the hold ends: out of certain_, its slot free
  void end_possible(ClientHolds& c);
  void episode_instant(std::int64_t t_us, int n);  // more than limit hold, or did at the last instant
  std::vector<HoldRef> witness() const;

  int limit_;
  std::size_t max_episodes_;
  std::vector<Hold> holds_;           // slots, open and free
  std::vector<std::uint32_t> free_;   // free slots of holds_
  std::vector<ClientHolds> clients_;  // by client id
  std::vector<std::uint32_t> certain_;  // the open holds (unordered)
  int possible_ = 0;                  // possible permits of all clients
  std::uint64_t grants_ = 0;
  std::vector<std::uint32_t> granted_now_;  // holds opened in the current instant

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
  std::vector<EpisodeSpan> spans_;  // every episode's, up to Summary::kMaxEpisodeSpans
  bool in_episode_ = false;
  int peak_ = 0;  // of the current episode, when it is not kept in episodes_
  HoldersSeries series_;
};

}  // namespace semsim
