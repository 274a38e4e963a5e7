// The subcommands of `semsim`. Each takes (argc, argv) with argv[0] the command's name and
// returns the process exit code (DESIGN.md: 0 ran, 1 expectation/safety violation, 2 bad
// input/setup, 3 a liveness violation alone (check), 4 a partial result (merge --partial), 130
// interrupted).
#pragma once

#include <exception>
#include <new>
#include <string>

#include "sim/core/interrupt.h"

namespace semsim {

// The last lines of every --help: where the user documentation is (sim/redis/shipped_files.h).
std::string docs_footer();

int run_command(int argc, char** argv);
int scenario_command(int argc, char** argv);
int check_command(int argc, char** argv);
int compare_command(int argc, char** argv);
int analyze_command(int argc, char** argv);
int merge_command(int argc, char** argv);  // the shards of a compare or check
int conformance_command(int argc, char** argv);  // the conformance card

inline constexpr int kExitOk = 0;
inline constexpr int kExitFinding = 1;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitLivenessOnly = 3;  // check: a free permit not granted, safety held
// merge --partial: a result over part of the runs or cases, which the whole would need (a
// violation found in them still exits 1 or 3: that case does fail).
inline constexpr int kExitPartial = 4;
inline constexpr int kExitInterrupted = 130;

// What a command that ran to its end found: the one mapping from results to exit codes.
enum class Finding {
  none,                      // clean: every expectation met, no violation
  unmet_expectation,         // run --expect, scenario
  safety_violation,          // check (lease honesty included: a promise about holding)
  liveness_violation_alone,  // check: safety held, a free permit was not granted
  not_exercised,             // check: no violation, but no case exercised the variant (no verdict);
                             // run --fail-on-violation: the run did not
};
constexpr int exit_code(Finding f) {
  switch (f) {
    case Finding::none: return kExitOk;
    case Finding::unmet_expectation:
    case Finding::safety_violation: return kExitFinding;
    case Finding::liveness_violation_alone: return kExitLivenessOnly;
    case Finding::not_exercised: return kExitBadInput;
  }
  return kExitFinding;
}

// An error as a command says it: std::bad_alloc's own text ("std::bad_alloc") says nothing.
inline std::string what_failed(const std::exception& e) {
  if (dynamic_cast<const std::bad_alloc*>(&e))
    return "ran out of memory (the memory this process may use: ulimit -v, a cgroup, the machine's RAM)";
  return e.what();
}

// A command that stopped on an error: interrupted (130) if a Ctrl-C came, else bad input/setup (2).
inline int exit_code_after_error() { return interrupt_signal() ? kExitInterrupted : kExitBadInput; }

}  // namespace semsim
