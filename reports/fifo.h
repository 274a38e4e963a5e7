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
// One pass, memory bounded by pending acquires: an A that completes before R fails is covered by
// the largest invoke time among admitted acquires so far; R's that failed while an A invoked
// after them was still pending wait in a queue until every acquire invoked before r_f completed.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

namespace semsim {

class FifoTracker {
 public:
  // Each pending acquire is known by (client, attempt), attempt increasing per client.
  void invoked(int client, std::uint64_t attempt, std::int64_t invoke_us);
  void admitted(int client, std::int64_t invoke_us);
  void rejected(int client, std::int64_t invoke_us, std::int64_t fail_us);
  void abandoned(int client);  // info, crash: the pending acquire will never be admitted

  std::int64_t inversions() const { return inversions_; }

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
  };
  void done(int client);
  void prune();

  std::vector<std::uint64_t> live_attempt_;  // per client: attempt pending, or 0 for none
  std::deque<Pending> pending_;              // in invoke order; stale entries skipped lazily
  std::deque<Rejection> waiting_;            // rejections an acquire still pending may invert
  std::int64_t latest_admitted_invoke_us_ = INT64_MIN;
  std::int64_t inversions_ = 0;
};

}  // namespace semsim
