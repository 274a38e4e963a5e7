// Liveness: no-grant stretches while a permit was free and a client was waiting.
#include <gtest/gtest.h>

#include "history_builder.h"

namespace semsim {
namespace {

using test::HistoryBuilder;

TEST(CheckerLiveness, FreePermitAndWaitingClientWithoutGrantIsAGap) {
  // Nobody holds; client 1 is rejected at 10 (waiting from then), granted only at 310:
  // a 300 ms no-grant stretch, longer than the 100 ms bound.
  HistoryBuilder h(1);
  h.at(0, 1, Op::acquire, Phase::invoke).at(10, 1, Op::acquire, Phase::fail);
  h.at(300, 1, Op::acquire, Phase::invoke).at(310, 1, Op::acquire, Phase::ok);
  h.at(320, 1, Op::release, Phase::invoke).end(400);
  Summary s = h.check(HistoryBuilder::bound_ms(100));
  EXPECT_EQ(s.longest_no_grant_us, 300'000);
  EXPECT_EQ(s.liveness_gaps, 1);
  EXPECT_EQ(s.liveness, Verdict::invalid);
}

TEST(CheckerLiveness, AWaitWhileThePermitIsHeldIsNotAGap) {
  // Client 2 holds [0, 200); client 1 waits from 10, granted at 250: starving only on [200, 250).
  HistoryBuilder h(1);
  h.hold(2, 0, 0, 200);
  h.at(5, 1, Op::acquire, Phase::invoke).at(10, 1, Op::acquire, Phase::fail);
  h.at(240, 1, Op::acquire, Phase::invoke).at(250, 1, Op::acquire, Phase::ok).end(400);
  Summary s = h.check(HistoryBuilder::bound_ms(100));
  EXPECT_EQ(s.longest_no_grant_us, 50'000);
  EXPECT_EQ(s.liveness_gaps, 0);
  EXPECT_EQ(s.liveness, Verdict::valid);
}

TEST(CheckerLiveness, DefaultBoundIsTheTimeoutPlusOneSecond) {
  HistoryBuilder h(1, 4, /*timeout_ms=*/500);
  h.end(1);
  EXPECT_EQ(h.check().liveness_bound_ms, 1500);
}

}  // namespace
}  // namespace semsim
