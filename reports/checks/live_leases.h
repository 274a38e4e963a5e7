// Live leases: what a lease lock promises, as the conformance card judges it (reports/DEFINITIONS.md,
// "Live leases"). A hold (holds.h) is live while its lease's promise stands: an acquire or
// refresh `ok` invoked at t promised the permit until t + timeout (leases.h). More than `limit` live
// leases at one instant is an over-admission that no clock, pause or delay excuses: a correct lease
// lock (its expiry on Redis, its release and refresh checking its token) never lets it happen on a
// Redis that keeps its writes and its clock. Over-admissions with a lapsed lease among the holders
// (a holder paused past its lease, a reply that came after it) are what leases cannot prevent
// without fencing.
//
// A grant whose `ok` came at or after its promise's end is a late grant: the lease was over before
// the client heard of it (Redlock's validity check exists to refuse those). An acquire with no
// outcome by the end is unanswered.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "reports/history/event.h"

namespace semsim {

struct LiveLeases {
  struct Holder {
    int client = 0;
    std::string identifier;
    std::int64_t since_us = 0;  // when this stretch of its live lease began
  };
  int max_live = 0;               // the most live leases at one instant
  int over_admission = 0;         // max(0, max_live - limit): live_lease_over_admission
  std::int64_t first_over_us = -1;  // the first instant with more than `limit`, or -1
  std::vector<Holder> witness;    // the live leases at that instant, earliest first (limit + 1 of them)
  int late_grants = 0;            // acquire oks at or after their invoke + timeout
  // Acquires invoked that never had an outcome (not ended by their client's crash): a library
  // blocked for good, e.g. on a master it cannot reach; the earliest of them.
  int unanswered_acquires = 0;
  int first_unanswered_client = 0;
  std::int64_t first_unanswered_us = -1;
};

// `history` in seq order (as history.csv), its run row first or not. Without a timeout nothing
// was promised: nothing is live, no grant is late.
LiveLeases live_leases(const std::vector<Event>& history, int limit, std::int64_t timeout_us);

}  // namespace semsim
