// A situation of the conformance card (scenarios/conformance/*.ini, docs/conformance.md): a scenario
// file whose plan stages one thing a lease lock or semaphore must cope with, and whose
// [conformance] section says what and how to judge it (reports/checks/conformance.h):
//
//   [conformance]
//   situation = a holder paused past its lease          # the row's title
//   correct = grants client 2 once client 1's lease ... # what a correct library does
//   staged = granted >= 2                               # the run shows the situation happened
//   defect = live_lease_over_admission > 0 or ...       # default: that, or liveness = invalid
//   lease_limit = over_admission > 0                    # default: that (never: none here)
//
// Its plan names no variant: the card runs each library's. Mistakes are InputErrors naming
// FILE:LINE and the key.
#pragma once

#include <string>
#include <vector>

#include "reports/checks/conformance.h"
#include "sim/scenario/scenario.h"

namespace semsim {

struct Situation {
  std::string name;  // the file's name without .ini
  std::string path;
  std::string title, correct;
  SituationRules rules;
  RunOptions plan;   // the file's run (limit, masters, clients and actions files as written)
};

Situation load_situation(const std::string& path);

// Every *.ini of `dir`, those over one Redis first, each group by name.
std::vector<Situation> load_catalogue(const std::string& dir);

}  // namespace semsim
