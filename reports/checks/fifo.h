// FIFO inversions. The history does not say when a request reached Redis; the acquire's invoke
// (true time) stands for it, so a difference in network delay between two clients can make or
// hide an inversion.
//
// A rejected acquire R (invoke r_i, fail r_f) is *inverted* when some admitted acquire A of
// another client (invoke a_i, ok a_o) was invoked strictly after it and while it was still
// pending: r_i < a_i <= r_f (then A's [a_i, a_o] overlaps R's [r_i, r_f]). fifo_inversions counts
// inverted rejections (each R once, however many A's overtook it). Acquires with an info outcome,
// or none before a crash or the end of the history, are not admitted.
//
// One pass. An A admitted before R fails is covered by the largest invoke time among admitted
// acquires so far. Otherwise R waits in a queue (ordered by fail time) while some acquire invoked
// in (r_i, r_f] is still pending, or may still be invoked (rows of R's fail instant may follow),
// and an A that is admitted later walks back over the R's that failed after its invoke. So the
// count does not depend on the order of rows within one instant. A client may have several
// acquires pending (they overlap); an outcome settles its earliest pending one (first in, first
// out), a crash all of them. Memory: the pending acquires plus the rejections that happened while one of them was pending,
// bounded by how long an acquire can stay unanswered (the network timeout or a pause), not by
// the length of the history; pruned lazily, at most twice that plus 64 entries.
//
// Cost: an invoke, a settle and a rejection are O(1) and inline (most rows of a history). The
// queues are pruned when they have doubled since the last pruning, plus 64 (amortised O(1) an
// acquire): keeping a settled entry longer changes no count, since an acquire, once settled,
// stays so, and one invoked later falls after every window that is over. The queue's front rejection
// remembers the pending acquire that keeps it (its blocker), so a pruning that finds it still
// blocked costs O(1); only a settled blocker sends it searching again.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "reports/checks/client_parts.h"
#include "reports/checks/flat_queue.h"

namespace semsim {

class FifoTracker {
 public:
  // A client's acquires are numbered 1, 2, ... in invoke order, and settled in that order: those
  // numbered above `settled`, up to `invoked`, are pending.
  struct Client {
    std::uint64_t invoked = 0, settled = 0;
  };

  // Each pending acquire is known by (client, attempt), attempt increasing per client. An
  // outcome (admitted, rejected, abandoned) settles the client's earliest pending acquire.
  void invoked(int client, std::uint64_t attempt, std::int64_t invoke_us) {
    clients_.grow_to(static_cast<std::size_t>(client) + 1);
    invoked(clients_[static_cast<std::size_t>(client)], client, attempt, invoke_us);
  }
  void admitted(int client, std::int64_t invoke_us);
  void rejected(int client, std::int64_t invoke_us, std::int64_t fail_us) {
    clients_.grow_to(static_cast<std::size_t>(client) + 1);
    rejected(clients_[static_cast<std::size_t>(client)], client, invoke_us, fail_us);
  }
  void abandoned(int client) { settle(client); }  // info: it will never be admitted
  void crashed(int client);  // every pending acquire of the client: never admitted

  // The same with the client's part at hand (the checker's row): most rows of a history, inline.
  [[gnu::always_inline]] void invoked(Client& me, int client, std::uint64_t attempt, std::int64_t invoke_us) {
    now_us_ = std::max(now_us_, invoke_us);
    me.invoked = attempt;
    pending_.push_back({invoke_us, client, attempt});
    ++live_pending_;
    if (--prune_countdown_ == 0) prune();
  }
  [[gnu::always_inline]] void rejected(Client& me, int client, std::int64_t invoke_us, std::int64_t fail_us) {
    now_us_ = std::max(now_us_, fail_us);
    settle(me);
    if (latest_admitted_invoke_us_ > invoke_us) {
      ++inversions_;  // an acquire invoked after this one was already admitted
      return;
    }
    // Kept even with nothing pending in its window: an acquire may still be invoked at fail_us.
    waiting_.push_back({invoke_us, fail_us, client, false, ++rejections_kept_});
    if (--prune_countdown_ == 0) prune();
  }

  std::int64_t inversions() const { return inversions_; }
  std::size_t waiting() const { return waiting_.size(); }  // for tests of the memory bound
  std::size_t pending() const { return pending_.size(); }

  // Parts kept in the caller's rows (client_parts.h) rather than in a vector of this tracker.
  void view_clients(Client* first, std::size_t stride, std::size_t n) { clients_.view(first, stride, n); }

 private:
  struct Pending {
    std::int64_t invoke_us;
    int client;
    std::uint64_t attempt;
  };
  struct Rejection {
    std::int64_t invoke_us, fail_us;
    int client;
    bool counted;
    std::uint64_t number;  // the how-manyth rejection kept: names the one a blocker keeps
  };
  bool live(const Pending& p) const { return clients_[static_cast<std::size_t>(p.client)].settled < p.attempt; }
  // The first pending acquire invoked in (after_us, until_us], or null.
  const Pending* pending_within(std::int64_t after_us, std::int64_t until_us) const;
  // Whether a pending acquire invoked inside r's window may still admit: then r is kept.
  bool blocked(const Rejection& r);
  void settle(int client) {
    if (static_cast<std::size_t>(client) < clients_.size()) settle(clients_[static_cast<std::size_t>(client)]);
  }
  void settle(Client& me) {  // its earliest pending acquire, if any
    if (me.settled == me.invoked) return;
    ++me.settled;
    --live_pending_;
  }
  // Drops the settled pending acquires and the front rejections no pending acquire can invert.
  void prune();

  ClientParts<Client> clients_;
  FlatQueue<Pending> pending_;               // in invoke order; settled entries dropped lazily
  std::size_t live_pending_ = 0;
  FlatQueue<Rejection> waiting_;             // in fail order
  std::size_t prune_countdown_ = 64;         // entries to add before the next pruning
  std::uint64_t rejections_kept_ = 0;
  Pending blocker_{};                        // keeps the rejection numbered blocked_number_
  std::uint64_t blocked_number_ = 0;         // 0: none
  std::int64_t latest_admitted_invoke_us_ = INT64_MIN;
  std::int64_t now_us_ = INT64_MIN;  // the latest instant seen (an invoke or a fail)
  std::int64_t inversions_ = 0;
};

}  // namespace semsim
