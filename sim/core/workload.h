// What simulated clients do. A free client loops: think, acquire (retrying if asked), hold
// (refreshing every R if asked), release. A scripted client does only what actions.csv says: each
// acquire row starts when it comes due, even while an earlier one is still in flight or holding,
// so one client may hold several permits at once; each is held and released on its own.
// Every operation is recorded as invoke + outcome (ok, fail, or info when the outcome is unknown).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "algorithms/api/semaphore.h"
#include "sim/core/client_spec.h"
#include "sim/core/recorder.h"
#include "sim/core/run_options.h"
#include "sim/core/sim_client.h"

namespace semsim {

class Workload {
 public:
  Workload(const RunOptions& options, Semaphore& semaphore, Recorder& recorder, const Scheduler& scheduler, int clients);

  Task<void> loop(SimClient& client);
  Task<void> scripted(SimClient& client, ScriptedAction action);
  // The script gives the client one more acquire action. When its last one ends without a grant,
  // the client wants no more permits: a `done` row says so, and the checker stops its wait there.
  void expect_scripted_acquire(int client) { ++scripted_acquires_left_[client]; }
  // Records a fault that happened to the client (pause, resume, crash, jump).
  void fault(SimClient& client, Op op, std::string detail = {});
  // The connection to Redis failed: every operation still waiting for its reply ends as `info`
  // (its outcome is unknown: Redis may or may not have run it), in the order they were invoked.
  void connection_lost(const std::string& why);
  // Every `every`: reads the first `limit` members of the variant's admission set (or its holder
  // keys; with several masters, on each, admitted where a quorum admits) and records how many
  // believers Redis no longer counts (a `sample` row). Runs as the harness client.
  Task<void> sample(SimClient& harness, Micros every);
  // Every millisecond: writes 1 KiB to a new key <prefix>filler:run:<n> (--fill-memory, TTL 1 h), its
  // errors (OOM) ignored. Runs as the harness client.
  Task<void> fill(SimClient& harness, std::string prefix);
  // Lease honesty seen on Redis (Semaphore::lease_probe): the harness asks what Redis holds of a
  // grant's permit when the grant or a kept refresh reaches its client and when it invokes release,
  // and records the answer as a `lease` row on the holder.
  void probe_leases(SimClient& harness) { harness_ = &harness; }

 private:
  Task<std::set<std::string>> admitted_by_quorum(SimClient& harness);
  Task<std::optional<Grant>> acquire(SimClient& client, AcquireTry attempt);  // one try
  Task<std::optional<Grant>> acquire_with_retries(SimClient& client);  // --retries, after --retry-delay
  Task<void> hold_then_release(SimClient& client, Grant grant, Micros hold);
  Task<bool> release(SimClient& client, std::string identifier);
  Task<bool> refresh(SimClient& client, std::string identifier);
  bool holds(const SimClient& client, const std::string& identifier) const;
  void forget(const SimClient& client, const std::string& identifier);  // no longer believed held
  // Sends the lease probe of `identifier` now, from the harness (no delay: Redis answers for this
  // instant, before anything the holder sends next). `at`: grant, refresh or release.
  void probe_lease(SimClient& holder, const std::string& identifier, const char* at);
  Task<void> lease_row(SimClient& holder, Command probe, std::string identifier, std::string at);
  // Operations between their invoke row and their outcome row.
  struct InFlight {
    SimClient* client;
    Op op;
    std::string identifier;
  };
  std::uint64_t invoke(SimClient& client, Op op, const std::string& identifier);
  void outcome(std::uint64_t token, SimClient& client, Op op, Phase phase, std::string identifier = {},
               std::string detail = {});

  const RunOptions& options_;
  Semaphore& semaphore_;
  Recorder& recorder_;
  const Scheduler& scheduler_;
  // By client id: the permits it believes it holds, in grant order (almost always at most one).
  std::vector<std::vector<Grant>> holding_;
  std::vector<int> scripted_acquires_left_;    // by client id
  std::uint64_t acquire_chains_ = 0;           // acquires begun, their tries' AcquireTry::chain
  std::map<std::uint64_t, InFlight> in_flight_;  // by invoke order
  // Nodes of in_flight_ that ended, kept for the next operations: no allocation an operation.
  std::vector<std::map<std::uint64_t, InFlight>::node_type> spare_;
  std::uint64_t next_token_ = 0;
  SimClient* harness_ = nullptr;  // probes leases (probe_leases), else null
};

}  // namespace semsim
