// What simulated clients do. A free client loops: think, acquire (retrying if asked), hold
// (refreshing every R if asked), release. A scripted client does only what actions.csv says.
// Every operation is recorded as invoke + outcome (ok, fail, or info when the outcome is unknown).
#pragma once

#include <optional>
#include <vector>

#include "algorithms/semaphore.h"
#include "sim/client_table.h"
#include "sim/recorder.h"
#include "sim/run_options.h"
#include "sim/sim_client.h"

namespace semsim {

class Workload {
 public:
  Workload(const RunOptions& options, Semaphore& semaphore, Recorder& recorder, const Scheduler& scheduler, int clients);

  Task<void> loop(SimClient& client);
  Task<void> scripted(SimClient& client, ScriptedAction action);
  // Records a fault that happened to the client (pause, resume, crash, jump).
  void fault(SimClient& client, Op op, std::string detail = {});
  // Every `every`: reads the first `limit` members of the admission set and records how many
  // believers Redis no longer counts (a `sample` row). Runs as the harness client.
  Task<void> sample(SimClient& harness, std::string admission_set, Micros every);

 private:
  Task<std::optional<Grant>> acquire(SimClient& client);
  Task<void> hold_then_release(SimClient& client, Grant grant, Micros hold);
  Task<bool> release(SimClient& client, std::string identifier);
  Task<bool> refresh(SimClient& client, std::string identifier);
  bool holds(const SimClient& client, const std::string& identifier) const;

  const RunOptions& options_;
  Semaphore& semaphore_;
  Recorder& recorder_;
  const Scheduler& scheduler_;
  std::vector<std::optional<Grant>> holding_;  // by client id: the permit it believes it holds
};

}  // namespace semsim
