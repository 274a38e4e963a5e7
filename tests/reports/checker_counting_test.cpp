// Honest counting: one acquire, release or refresh outcome is one operation, however many Redis
// commands (MULTI, EXEC, a script) it took; round trips and wall time come from the run.
#include <gtest/gtest.h>

#include "history_builder.h"

namespace semsim {
namespace {

using test::HistoryBuilder;

TEST(CheckerCounting, OperationsAreOutcomesAndRatesDivideByWallTime) {
  HistoryBuilder h(2, 4, 10'000);
  // Client 1: acquire, refresh, release, each answered: 3 operations.
  h.hold(1, 0, 10, 200, "a").at(100, 1, Op::refresh, Phase::invoke, "a").at(110, 1, Op::refresh, Phase::ok, "a");
  h.at(210, 1, Op::release, Phase::ok, "a");
  h.at(20, 2, Op::acquire, Phase::invoke).at(30, 2, Op::acquire, Phase::fail);   // refused: 1
  h.at(40, 3, Op::acquire, Phase::invoke).at(50, 3, Op::acquire, Phase::info);   // unknown: 1
  h.at(60, 4, Op::acquire, Phase::invoke);                                        // never answered: 0
  h.end(500, /*commands=*/12);  // e.g. MULTI, 3 commands, EXEC for one acquire: commands, not operations
  Checker c;
  for (const Event& e : h.sorted()) c.add(e);
  const Summary s = c.finish(RunStats{{}, 0.25, 4});
  EXPECT_EQ(s.operations, 5);
  EXPECT_EQ(s.commands, 12);
  EXPECT_DOUBLE_EQ(*s.operations_per_s, 20.0);
  EXPECT_DOUBLE_EQ(*s.commands_per_s, 48.0);
  EXPECT_EQ(s.round_trips, 4);
  EXPECT_DOUBLE_EQ(*s.round_trips_per_s, 16.0);
  EXPECT_DOUBLE_EQ(*s.speed_x, 2.0);  // 0.5 simulated seconds in 0.25 wall seconds
  // Without the run's statistics (semsim analyze of a virtual history): counts, no rates.
  const Summary bare = h.check();
  EXPECT_EQ(bare.operations, 5);
  EXPECT_FALSE(bare.round_trips || bare.operations_per_s || bare.speed_x);
}

}  // namespace
}  // namespace semsim
