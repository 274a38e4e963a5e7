// The subcommands of `semsim`. Each takes (argc, argv) with argv[0] the command's name and
// returns the process exit code (DESIGN.md: 0 ran, 1 expectation/safety violation, 2 bad
// input/setup, 3 a liveness violation alone (check), 130 interrupted).
#pragma once

#include "sim/core/interrupt.h"

namespace semsim {

int run_command(int argc, char** argv);
int scenario_command(int argc, char** argv);
int check_command(int argc, char** argv);
int compare_command(int argc, char** argv);
int analyze_command(int argc, char** argv);

inline constexpr int kExitOk = 0;
inline constexpr int kExitFinding = 1;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitLivenessOnly = 3;  // check: a free permit not granted, safety held
inline constexpr int kExitInterrupted = 130;

// A command that stopped on an error: interrupted (130) if a Ctrl-C came, else bad input/setup (2).
inline int exit_code_after_error() { return interrupt_signal() ? kExitInterrupted : kExitBadInput; }

}  // namespace semsim
