// A synthetic history for checker benchmarks and tests: `clients` clients loop acquire -> hold ->
// release against an idealised semaphore that wrongly admits one client over the limit with
// probability `over_admit_per_mille` / 1000 per grant, so every metric has something to count.
// Deterministic for a seed (its own integer arithmetic over std::mt19937_64, no distributions).
#pragma once

#include <cstdint>
#include <functional>

#include "reports/history/event.h"

namespace semsim {

struct SyntheticOptions {
  int clients = 50;
  int limit = 5;
  std::uint64_t seed = 1;
  std::int64_t events = 100'000;  // stops after about this many events (then a final run row)
  int over_admit_per_mille = 5;
  int info_per_mille = 1;  // acquires whose outcome is unknown
};

// Calls `sink` for every event, in (true_us, seq) order, starting with the run row.
void generate_history(const SyntheticOptions& o, const std::function<void(const Event&)>& sink);

}  // namespace semsim
