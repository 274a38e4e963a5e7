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
// One pass, memory bounded by clients: an A admitted before R fails is covered by the largest
// invoke time among admitted acquires so far. Otherwise, when R fails it registers with each
// acquire still pending that was invoked in (r_i, r_f]; the first of them to be admitted inverts
// R, and R is forgotten once all of them are settled. A stuck acquire (a paused client) only
// holds on to the few rejections invoked before it.
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
    int candidates = 0;  // pending acquires that may still invert it
    bool counted = false;
  };
  struct ClientState {
    std::uint64_t live_attempt = 0;   // the attempt pending, 0 for none
    std::vector<std::size_t> waiters;  // rejections registered with that attempt
  };
  bool live(const Pending& p) const { return clients_[p.client].live_attempt == p.attempt; }
  void settle(int client, bool admitted);
  void compact();

  std::vector<ClientState> clients_;
  std::deque<Pending> pending_;  // in invoke order; settled entries dropped lazily
  std::size_t live_pending_ = 0;
  std::vector<Rejection> rejections_;  // slots, reused through free_
  std::vector<std::size_t> free_;
  std::int64_t latest_admitted_invoke_us_ = INT64_MIN;
  std::int64_t inversions_ = 0;
};

}  // namespace semsim
