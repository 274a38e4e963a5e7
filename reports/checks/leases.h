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

#include "reports/checks/client_parts.h"
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
  void add(const Event& e) {
    if (!timeout_us_ || e.client < 0) return;
    if (e.op == Op::acquire && static_cast<std::size_t>(e.client) < clients_.size())
      add_acquire(e, clients_[static_cast<std::size_t>(e.client)]);
    else
      add_row(e);
  }
  void crashed(int client);
  std::int64_t broken() const { return broken_; }

  // Invokes without an outcome yet: almost always one, kept in place; more go to the heap.
  class Invokes {
   public:
    void push(std::int64_t t_us) {
      if (n_++ == 0) first_us_ = t_us;
      else more_.push_back(t_us);
    }
    std::size_t size() const { return n_; }
    void clear() {
      if (n_ > 1) more_.clear();
      n_ = 0;
    }
    std::int64_t take_earliest(std::int64_t fallback);  // removed; `fallback` if there is none

   private:
    std::int64_t first_us_ = 0;
    std::uint32_t n_ = 0;
    std::vector<std::int64_t> more_;  // the n_ - 1 after first_us_, in no order
  };
  struct Lease {
    bool live = false;
    std::string identifier;
    std::int64_t promised_until_us = 0;
    bool release_invoked = false, released = false, failed = false;
    Invokes refreshing;  // of refreshes
  };
  // A client's part: its outstanding acquires first (most rows touch only them).
  struct Client {
    Invokes acquiring;
    std::vector<Lease> leases;  // live ones and free slots
  };
  // An acquire row of a client whose part is `me` (the checker's row; a client id >= 0). Inline,
  // the rows of most histories: an acquire invoke, or an acquire that failed with at most one
  // invoke outstanding (no lease to look up, the earliest invoke is the only one). Forced: left to
  // itself GCC calls it (callgrind: 365 -> 344 instructions an event of checking).
  [[gnu::always_inline]] void add_acquire(const Event& e, Client& me) {
    if (!timeout_us_) return;
    if (e.phase == Phase::invoke) {
      me.acquiring.push(e.true_us);
      return;
    }
    if (e.phase != Phase::ok && me.acquiring.size() <= 1) {
      me.acquiring.clear();
      return;
    }
    add_row(e);
  }
  // Parts kept in the caller's rows (client_parts.h) rather than in a vector of this tracker.
  void view_clients(Client* first, std::size_t stride, std::size_t n) { clients_.view(first, stride, n); }

 private:
  void add_row(const Event& e);
  Client& client(int id);
  Lease& lease(Client& c, const std::string& identifier);  // found, or a new one
  static Lease* find(Client& c, const std::string& identifier);  // a live one, or null
  void broke(Lease& l, std::int64_t t_us);
  static void forget_if_over(Lease& l);

  std::optional<std::int64_t> timeout_us_;
  bool exact_instants_ = true;
  ClientParts<Client> clients_;
  std::int64_t broken_ = 0;
};

}  // namespace semsim
