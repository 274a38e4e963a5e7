// Lease honesty: a client told "ok" by an acquire or refresh invoked at true time t was promised
// the permit until t + timeout (the run row's timeout_ms). A release that fails ("permit already
// gone") or a refresh that fails before then shows the permit vanished while the promise stood:
// a broken lease. Each lease breaks at most once; a refresh that fails after the client's own
// release was invoked lost to that release, and breaks nothing. Without a timeout in the run
// row nothing was promised and nothing is counted.
//
// A completion takes the earliest outstanding invoke of its client (acquire) or identifier
// (refresh): that can only make a promise shorter, never invent one. A lease is forgotten at its
// release's outcome (once no refresh of it is pending), so memory follows the permits held and
// the operations pending, not the history's length.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "reports/history/event.h"

namespace semsim {

class LeaseTracker {
 public:
  void set_timeout_us(std::optional<std::int64_t> timeout_us) { timeout_us_ = timeout_us; }
  // Acquire, release and refresh rows (others are ignored).
  void add(const Event& e);
  std::int64_t broken() const { return broken_; }

 private:
  struct Lease {
    std::int64_t promised_until_us = 0;
    bool release_invoked = false, failed = false;
  };
  static std::int64_t take_earliest(std::multiset<std::int64_t>& invokes, std::int64_t fallback);
  void broke(Lease& l, std::int64_t t_us);

  std::optional<std::int64_t> timeout_us_;
  std::map<std::string, Lease> leases_;
  std::map<int, std::multiset<std::int64_t>> acquiring_;
  std::map<std::string, std::multiset<std::int64_t>> refreshing_;
  std::int64_t broken_ = 0;
};

}  // namespace semsim
