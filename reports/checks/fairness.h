// Fairness across clients, from per-client counts.
//
// Jain's index of grants: x_c = acquire oks of client c, over the clients with at least one
// acquire invoke: (sum x)^2 / (n * sum x^2). 1 = every client got as many grants; 1/n = one
// client got them all. Undefined (empty) when nobody was granted anything.
//
// Clock offset vs success: for each client with at least one decided acquire (ok or fail),
// x = its mean clock offset in ms, (client_us - true_us) at its acquire invokes, and
// y = its success rate, ok / (ok + fail). skew_success_correlation is Pearson's r of (x, y);
// skew_success_slope the least-squares slope dy/dx (success rate per ms of offset). A negative
// value means clients whose clocks run behind (slow clocks) win more often: the "slow-clock
// advantage" of timestamp-based semaphores. Undefined when fewer than two clients or when x or y
// does not vary; `undefined_because` then says which, in words for the printed summary.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "reports/checks/summary.h"

namespace semsim {

std::optional<double> jain_index(const std::vector<ClientStats>& clients);

struct SkewSuccess {
  std::optional<double> correlation;
  std::optional<double> slope_per_ms;
  std::string undefined_because;  // "" when defined
};
SkewSuccess skew_success(const std::vector<ClientStats>& clients);

}  // namespace semsim
