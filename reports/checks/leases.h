// Lease honesty: a client told "ok" by an acquire or refresh invoked at true time t was promised
// the permit until t + timeout (the run row's timeout_ms). A release that fails ("permit already
// gone") or a refresh that fails before then shows the permit vanished while the promise stood:
// a broken lease. Each lease breaks at most once; a refresh that fails after the client's own
// release was invoked lost to that release, and breaks nothing. Without a timeout in the run
// row nothing was promised and nothing is counted.
//
// An outcome takes the earliest outstanding invoke of its client (acquire) or lease (refresh):
// that can only make a promise shorter, never invent one. A lease is its client's: a release or
// refresh is matched, by identifier, with the leases of the client that sends it. A lease is
// forgotten once its release has an outcome and no refresh of it is pending, and at its client's
// crash, so memory follows the permits held, not the history's length; the slots are reused, so
// that the steady state allocates nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "reports/history/event.h"

namespace semsim {

class LeaseTracker {
 public:
  void set_timeout_us(std::optional<std::int64_t> timeout_us) { timeout_us_ = timeout_us; }
  // Whether a row's true time is Redis's instant (virtual time: the default). In real time
  // (paced, fast) Redis's clock runs on while the scheduler's stands, and a TTL is not comparable
  // with true time to the millisecond: only a lease row showing the permit gone counts there.
  void set_exact_instants(bool exact) { exact_instants_ = exact; }
  // Acquire, release, refresh and lease rows (others are ignored, and so are negative client ids).
  // Inline, the rows of most histories: an acquire invoke, or an acquire that failed with at most
  // one invoke outstanding (no lease to look up, the earliest invoke is the only one). Forced:
  // left to itself GCC calls it (callgrind: 365 -> 344 instructions an event of checking).
  [[gnu::always_inline]] void add(const Event& e) {
    if (!timeout_us_ || e.client < 0) return;
    if (e.op == Op::acquire && e.phase != Phase::ok && static_cast<std::size_t>(e.client) < clients_.size()) {
      std::vector<std::int64_t>& invokes = clients_[static_cast<std::size_t>(e.client)].acquiring;
      if (e.phase == Phase::invoke) {
        invokes.push_back(e.true_us);
        return;
      }
      if (invokes.size() <= 1) {
        invokes.clear();
        return;
      }
    }
    add_row(e);
  }
  void crashed(int client);
  std::int64_t broken() const { return broken_; }

 private:
  struct Lease {
    bool live = false;
    std::string identifier;
    std::int64_t promised_until_us = 0;
    bool release_invoked = false, released = false, failed = false;
    std::vector<std::int64_t> refreshing;  // invokes of refreshes without an outcome yet
  };
  struct Client {
    std::vector<std::int64_t> acquiring;  // invokes of acquires without an outcome yet
    std::vector<Lease> leases;            // live ones and free slots
  };
  void add_row(const Event& e);
  Client& client(int id);
  Lease& lease(Client& c, const std::string& identifier);  // found, or a new one
  static Lease* find(Client& c, const std::string& identifier);  // a live one, or null
  static std::int64_t take_earliest(std::vector<std::int64_t>& invokes, std::int64_t fallback);
  void broke(Lease& l, std::int64_t t_us);
  static void forget_if_over(Lease& l);

  std::optional<std::int64_t> timeout_us_;
  bool exact_instants_ = true;
  std::vector<Client> clients_;
  std::int64_t broken_ = 0;
};

}  // namespace semsim
