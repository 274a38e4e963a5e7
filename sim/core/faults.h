// Client faults, scheduled by actions.csv or drawn at a rate (Poisson arrivals per client, from
// the client's own fault stream). A pause is a GC-like stop: the client keeps believing it holds
// and runs nothing until it ends. A crash stops the client for good: its permit is never
// released and must come back by timeout.
#pragma once

#include <memory>
#include <vector>

#include "sim/core/random.h"
#include "sim/core/run_options.h"
#include "sim/core/scheduler.h"
#include "sim/core/sim_client.h"
#include "sim/core/workload.h"

namespace semsim {

class Faults {
 public:
  Faults(Scheduler& scheduler, Workload& workload) : scheduler_(scheduler), workload_(workload) {}

  void pause(SimClient& client, Micros length);
  void crash(SimClient& client);
  void jump(SimClient& client, Micros by);
  // The client's links to `masters` (0-based) are cut for `length`: a `partition` row now, a
  // `heal` row when it ends.
  void partition(SimClient& client, const std::vector<int>& masters, Micros length);
  // Draws pauses and a crash for the client at the options' rates.
  void at_rates(SimClient& client, const RunOptions& options, std::uint64_t seed);

 private:
  void next_pause(SimClient& client, const RunOptions& options, std::shared_ptr<Rng> rng, TrueTime at);

  Scheduler& scheduler_;
  Workload& workload_;
};

}  // namespace semsim
