// The one mapping from what a command found to its exit code (DESIGN.md, docs/contract.md):
// scripts and CI jobs branch on these numbers.
#include <gtest/gtest.h>

#include "cli/commands.h"

namespace semsim {
namespace {

TEST(ExitCodes, SafetyAndLivenessHaveDistinctCodesAndCleanIsZero) {
  EXPECT_EQ(exit_code(Finding::none), 0);
  EXPECT_EQ(exit_code(Finding::unmet_expectation), 1);
  EXPECT_EQ(exit_code(Finding::safety_violation), 1);
  EXPECT_EQ(exit_code(Finding::liveness_violation_alone), 3);
  EXPECT_EQ(kExitBadInput, 2);
  EXPECT_EQ(kExitInterrupted, 130);
}

// merge --partial: a result over part of the shards is none of the others (docs/contract.md).
TEST(ExitCodes, APartialResultHasACodeOfItsOwn) {
  EXPECT_EQ(kExitPartial, 4);
  for (const int other : {kExitOk, kExitFinding, kExitBadInput, kExitLivenessOnly, kExitInterrupted})
    EXPECT_NE(kExitPartial, other);
}

}  // namespace
}  // namespace semsim
