// Scenario files: runnable documentation of a claim. An INI file (Boost.Program_options config
// format) with the options of `semsim run`, optionally several variants and one swept option, and
// the expectations on the result:
//
//   # seeds 001/002/004: a client 10 ms behind steals the last permit (scenarios/steal-10ms.ini)
//   variants = V1 V2 V3                # or: variant = V1
//   clients = 2
//   limit = 1
//   actions-file = steal.actions.csv   # paths are relative to this file
//   sweep.skew = fixed:0ms uniform:-10ms..10ms     # optional: one run per value, in order
//
//   [expect]                           # for every variant
//   granted_min = 1
//   [expect.V1]                        # for one variant
//   over_admission = 1
//   over_admission_trend = increasing  # across the sweep
//   [conformance]                      # a situation of `semsim conformance` (its reader says which keys)
//
// Mistakes are InputErrors naming FILE:LINE and the key.
#pragma once

#include <string>
#include <vector>

#include "reports/checks/expectations.h"
#include "sim/core/run_options.h"

namespace semsim {

struct Scenario {
  std::string path;
  std::string name;                  // file name without .ini
  std::vector<std::string> variants;
  std::string sweep_option;          // "" when nothing is swept
  std::vector<std::string> sweep_values;
  std::vector<RunOptions> runs;      // variants x sweep values, variant-major
  std::vector<Expectation> expectations;
  // A situation of the conformance card (scenarios/conformance/): its [conformance] keys, as written.
  struct Key {
    std::string name, value, where;  // where: FILE:LINE
  };
  std::vector<Key> conformance;
};

// Throws InputError (FILE:LINE: key: what is wrong).
Scenario load_scenario(const std::string& path);

}  // namespace semsim
