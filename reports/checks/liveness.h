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
// the refusal, one acquire latency later. So instants are held back while an acquire that may
// start a wait is pending: one invoked while its client was not waiting, or while it had another
// acquire pending (which may end the wait before this one is refused: overlapping acquires).
// When a client that was not waiting is refused, every held instant since the invoke of the
// refused acquire (its earliest pending one: outcomes pair first in, first out) gains a waiter.
// Memory: the instants within the longest pending acquire. Only instants that a learnt waiter
// could change, or that change the judgement, are held (instant_done).
//
// The bound (in us: `--liveness-bound 1100.5ms` is 1,100,500 us) defaults to the semaphore's
// timeout_ms + 1000 ms: after a crash or a lost release,
// Redis rightly keeps the permit until the timeout, and retries need a moment after that.
#pragma once

#include <cstdint>
#include <vector>

#include "reports/checks/client_parts.h"
#include "reports/checks/flat_queue.h"
#include "reports/checks/summary.h"

namespace semsim {

class LivenessTracker {
 public:
  explicit LivenessTracker(std::int64_t bound_us = 0) : bound_us_(bound_us) {}
  void set_bound_us(std::int64_t bound_us) { bound_us_ = bound_us; }
  std::int64_t bound_us() const { return bound_us_; }

  // A client's acquires, numbered 1, 2, ... in invoke order and settled in that order: those
  // numbered above `settled`, up to `invoked`, are pending.
  struct Client {
    std::uint32_t invoked = 0, settled = 0;
  };

  // An acquire; `waiting`: its client is waiting (then, with nothing else pending, its outcome
  // cannot start a wait, and no instant is held back for it).
  void acquire_invoked(Client& me, int client, std::int64_t invoke_us, bool waiting) {
    const bool may_start_a_wait = !waiting || me.invoked != me.settled;
    ++me.invoked;
    if (may_start_a_wait) track(client, me.invoked, invoke_us);
  }
  // The client's earliest pending acquire was refused; `starts_wait`: the client was not waiting,
  // and waits from that acquire's invoke (`invoke_us`) on.
  void acquire_refused(Client& me, std::int64_t invoke_us, bool starts_wait) {
    settle(me);
    if (starts_wait) learn_wait(invoke_us);
  }
  void acquire_settled(Client& me) { settle(me); }  // ok, info: no wait learnt from it
  void crashed(int client);  // every pending acquire of the client: no wait learnt from them

  // After all events of instant t: permits free (fewer than limit certainly hold), clients
  // waiting as of now, whether one was granted at t.
  //
  // An instant is decided when what is learnt later cannot change it: no permit free (not
  // starving), or a client known to be waiting (starving). Most instants are, and are judged at
  // once when nothing is held back (inline: the checker calls this at almost every event).
  void instant_done(std::int64_t t_us, bool free, int waiting, bool granted) {
    if ((!free || waiting > 0) && held_.empty()) {
      learnt_waiters_ += added_at_next_;
      added_at_next_ = 0;
      judge(t_us, free, granted);
    } else {
      hold(t_us, free, waiting, granted);
    }
  }
  void finish(std::int64_t end_us, Summary& s) const;
  // No instant held back: every instant done so far is judged.
  bool all_judged() const { return held_.empty(); }

  // Parts kept in the caller's rows (client_parts.h) rather than in a vector of this tracker.
  void view_clients(Client* first, std::size_t stride, std::size_t n) { clients_.view(first, stride, n); }

 private:
  struct Instant {
    std::int64_t t_us;
    bool free, granted;
    int waiting;
    int added_waiters;  // change, from this instant on, of waiters learnt afterwards
  };
  void hold(std::int64_t t_us, bool free, int waiting, bool granted);  // behind held instants
  void track(int client, std::uint32_t attempt, std::int64_t invoke_us);  // may hold instants back
  void settle(Client& me) {  // its earliest pending acquire, if any
    if (me.settled != me.invoked) ++me.settled;
  }
  void learn_wait(std::int64_t since_us);  // a client not waiting waits since then
  void release_held();  // judge the instants no pending acquire can change any more
  void judge(std::int64_t t_us, bool starving, bool granted) {
    if (granted || !starving) close(t_us);
    if (starving && !in_stretch_) {
      in_stretch_ = true;
      since_us_ = t_us;
    }
  }
  void close(std::int64_t t_us) {
    if (!in_stretch_) return;
    in_stretch_ = false;
    const std::int64_t d = t_us - since_us_;
    if (d > longest_us_) longest_us_ = d;
    if (d > bound_us_) ++gaps_;
  }

  std::int64_t bound_us_;
  // Stretches.
  bool in_stretch_ = false;
  std::int64_t since_us_ = 0;
  std::int64_t gaps_ = 0;
  std::int64_t longest_us_ = 0;
  // Held instants and the acquires that may still add a waiter to them.
  struct Pending {
    std::int64_t invoke_us;
    int client;
    std::uint32_t attempt;
  };
  bool live(const Pending& p) const { return clients_[static_cast<std::size_t>(p.client)].settled < p.attempt; }
  // The earliest invoke among pending acquires (settled ones leave the queue's front here).
  const Pending* earliest_pending();
  FlatQueue<Instant> held_;
  int learnt_waiters_ = 0;       // running sum of added_waiters over judged instants
  int added_at_next_ = 0;        // added_waiters for the next instant (a learnt wait ends there)
  ClientParts<Client> clients_;
  FlatQueue<Pending> pending_;   // in invoke order (true time only grows); settled ones dropped lazily
  std::size_t prune_at_ = 64;    // pending_'s size at which its settled entries are dropped
};

}  // namespace semsim
