// Liveness: a permit was free, somebody wanted one, and nobody got one.
//
// At an instant (after all its events), the run is *starving* when fewer than `limit` clients
// certainly hold and at least one client is waiting (see waits.h: from the invoke of a refused
// acquire until a grant, a crash, or the client stops wanting). A no-grant stretch is a maximal
// stretch of starving true time without an acquire ok: it ends at a grant (a new one starts
// there if the run is still starving), when the run stops starving, or at the end of the
// history. longest_no_grant_ms is the longest such stretch; liveness_gaps counts the stretches
// longer than the bound; liveness is invalid if there is one.
//
// A wait begins at the invoke of the acquire that is refused, but the history says so only at
// the refusal, one acquire latency later. So instants are held back while an acquire of a
// client that is not yet waiting is pending; when it is refused, every held instant since its
// invoke gains a waiter. Memory: the instants within the longest pending acquire.
//
// The bound (in us: `--liveness-bound 1100.5ms` is 1,100,500 us) defaults to the semaphore's
// timeout_ms + 1000 ms: after a crash or a lost release,
// Redis rightly keeps the permit until the timeout, and retries need a moment after that.
#pragma once

#include <cstdint>
#include <deque>
#include <set>
#include <vector>

#include "reports/checks/summary.h"

namespace semsim {

class LivenessTracker {
 public:
  explicit LivenessTracker(std::int64_t bound_us = 0) : bound_us_(bound_us) {}
  void set_bound_us(std::int64_t bound_us) { bound_us_ = bound_us; }
  std::int64_t bound_us() const { return bound_us_; }

  // An acquire of a client that is not waiting; its outcome decides whether it waited.
  void acquire_invoked(int client, std::int64_t invoke_us);
  void acquire_refused(int client);  // it waited since its invoke
  void acquire_settled(int client);  // ok, info, crash: no wait learnt from it

  // After all events of instant t: permits free (fewer than limit certainly hold), clients
  // waiting as of now, whether one was granted at t.
  void instant_done(std::int64_t t_us, bool free, int waiting, bool granted);
  void finish(std::int64_t end_us, Summary& s) const;

 private:
  struct Instant {
    std::int64_t t_us;
    bool free, granted;
    int waiting;
    int added_waiters;  // change, from this instant on, of waiters learnt afterwards
  };
  void release_held();  // judge the instants no pending acquire can change any more
  void judge(std::int64_t t_us, bool starving, bool granted);
  void close(std::int64_t t_us);

  std::int64_t bound_us_;
  // Stretches.
  bool in_stretch_ = false;
  std::int64_t since_us_ = 0;
  std::int64_t gaps_ = 0;
  std::int64_t longest_us_ = 0;
  // Held instants and the acquires that may still add a waiter to them.
  std::deque<Instant> held_;
  int learnt_waiters_ = 0;       // running sum of added_waiters over judged instants
  int added_at_next_ = 0;        // added_waiters for the next instant (a learnt wait ends there)
  std::vector<std::int64_t> pending_since_;  // per client, -1 when none
  std::multiset<std::int64_t> pending_;      // their invoke times: the earliest bounds the judging
};

}  // namespace semsim
