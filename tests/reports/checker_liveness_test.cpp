// Liveness: no-grant stretches while a permit was free and a client was waiting.
#include <gtest/gtest.h>

#include "history_builder.h"
#include "reports/checks/summary_csv.h"

namespace semsim {
namespace {

using test::HistoryBuilder;

TEST(CheckerLiveness, FreePermitAndWaitingClientWithoutGrantIsAGap) {
  // Nobody holds; client 1 asks at 0, is rejected at 10 (so it was waiting from its request at
  // 0), granted only at 310: a 310 ms no-grant stretch, longer than the 100 ms bound.
  HistoryBuilder h(1);
  h.at(0, 1, Op::acquire, Phase::invoke).at(10, 1, Op::acquire, Phase::fail);
  h.at(300, 1, Op::acquire, Phase::invoke).at(310, 1, Op::acquire, Phase::ok);
  h.at(320, 1, Op::release, Phase::invoke).end(400);
  Summary s = h.check(HistoryBuilder::bound_ms(100));
  EXPECT_EQ(s.longest_no_grant_us, 310'000);
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

// The acceptance case, by hand: every permit free, client 1 asks at 0 and is refused at 0.5 ms;
// it asks again at 1000.4 ms and the history ends. It waited from 0 (its request, not its
// refusal) to 1000.4: 1000.400 ms > the 1000 ms bound, a gap. Counted from the refusal it would
// be 999.900 ms, and wrongly valid.
TEST(CheckerLiveness, AStretchStartsAtTheRefusedRequestNotAtTheRefusal) {
  HistoryBuilder h(1, 1);
  h.at(0, 1, Op::acquire, Phase::invoke).at(0.5, 1, Op::acquire, Phase::fail);
  h.at(1000.4, 1, Op::acquire, Phase::invoke).end(1000.4);
  Summary s = h.check(HistoryBuilder::bound_ms(1000));
  EXPECT_EQ(s.longest_no_grant_us, 1'000'400);
  EXPECT_EQ(s.liveness_gaps, 1);
  EXPECT_EQ(s.liveness, Verdict::invalid);
  EXPECT_EQ(s.longest_wait_us, 1'000'400);
}

TEST(CheckerLiveness, AStretchOfExactlyTheBoundIsNoGap) {
  HistoryBuilder h(1, 1);
  h.at(0, 1, Op::acquire, Phase::invoke).at(0.5, 1, Op::acquire, Phase::fail);
  h.at(1000, 1, Op::acquire, Phase::invoke).end(1000);
  Summary s = h.check(HistoryBuilder::bound_ms(1000));
  EXPECT_EQ(s.longest_no_grant_us, 1'000'000);
  EXPECT_EQ(s.liveness_gaps, 0);
  EXPECT_EQ(s.liveness, Verdict::valid);
}

// A wait learnt at the refusal reaches back over a grant to another client: client 1 asks at 0
// and is refused at 100; client 2 is granted at 50 and holds to 60 (limit 1). Starving on
// [0, 50) (ends at the grant), not on [50, 60) (full), then from 60 to the end at 200.
TEST(CheckerLiveness, ALearntWaitReachesBackAcrossAGrant) {
  HistoryBuilder h(1, 2);
  h.at(0, 1, Op::acquire, Phase::invoke);
  h.hold(2, 40, 50, 60);
  h.at(100, 1, Op::acquire, Phase::fail).end(200);
  Summary s = h.check(HistoryBuilder::bound_ms(100));
  EXPECT_EQ(s.longest_no_grant_us, 140'000);  // [60, 200]
  EXPECT_EQ(s.liveness_gaps, 1);
}

// A client refused once that wants no more (a `done` row: its script has no further acquire)
// stops waiting there: no starving after it, however long the run goes on.
TEST(CheckerLiveness, AClientThatStopsWantingStopsWaiting) {
  HistoryBuilder h(1, 1);
  h.at(0, 1, Op::acquire, Phase::invoke).at(10, 1, Op::acquire, Phase::fail).at(10, 1, Op::done, Phase::ok);
  h.end(5000);
  Summary s = h.check(HistoryBuilder::bound_ms(100));
  EXPECT_EQ(s.longest_no_grant_us, 10'000);
  EXPECT_EQ(s.liveness, Verdict::valid);
  EXPECT_EQ(s.longest_wait_us, 10'000);
  EXPECT_FALSE(s.longest_wait_open);
}

// Without the `done` row the same client counts as waiting to the end.
TEST(CheckerLiveness, ARefusedClientWithoutADoneRowWaitsToTheEnd) {
  HistoryBuilder h(1, 1);
  h.at(0, 1, Op::acquire, Phase::invoke).at(10, 1, Op::acquire, Phase::fail).end(5000);
  Summary s = h.check(HistoryBuilder::bound_ms(100));
  EXPECT_EQ(s.longest_no_grant_us, 5'000'000);
  EXPECT_EQ(s.liveness, Verdict::invalid);
}

TEST(CheckerLiveness, DefaultBoundIsTheTimeoutPlusOneSecond) {
  HistoryBuilder h(1, 4, /*timeout_ms=*/500);
  h.end(1);
  EXPECT_EQ(h.check().liveness_bound_us, 1'500'000);
}

// The wait of the acceptance fixture (tests/fuzz/corpus/history/liveness-bound.csv): refused at
// 1 ms, granted at 1101.001 ms, a no-grant stretch of 1100.001 ms. A bound of 1100.5 ms keeps its
// half millisecond: no gap; 1100 ms (what the bound was truncated to before) is one.
TEST(CheckerLiveness, TheBoundKeepsItsMicroseconds) {
  HistoryBuilder h(1, 3, /*timeout_ms=*/100);
  h.at(1, 1, Op::acquire, Phase::invoke).at(1.001, 1, Op::acquire, Phase::fail);
  h.at(1101.001, 1, Op::acquire, Phase::invoke).at(1101.001, 1, Op::acquire, Phase::ok, "id1");
  h.at(1102.001, 1, Op::release, Phase::invoke).end(1103.001);
  const Summary half = h.check(HistoryBuilder::bound_us(1'100'500));
  EXPECT_EQ(half.longest_no_grant_us, 1'100'001);
  EXPECT_EQ(half.liveness_bound_us, 1'100'500);
  EXPECT_EQ(half.liveness, Verdict::valid);
  EXPECT_EQ(find_summary_column("liveness_bound_ms")->format(half), "1100.500");
  EXPECT_EQ(h.check(HistoryBuilder::bound_us(1'100'000)).liveness, Verdict::invalid);
  // 500 us is not 0 ms: a stretch of 400 us is no gap under it (it was, truncated to 0).
  HistoryBuilder short_wait(1, 3, 100);
  short_wait.at(0, 1, Op::acquire, Phase::invoke).at(0, 1, Op::acquire, Phase::fail);
  short_wait.at(0.4, 2, Op::acquire, Phase::invoke).at(0.4, 2, Op::acquire, Phase::ok).end(2);
  const Summary s = short_wait.check(HistoryBuilder::bound_us(500));
  EXPECT_EQ(s.liveness_bound_us, 500);
  EXPECT_EQ(s.longest_no_grant_us, 400);
  EXPECT_EQ(s.liveness_gaps, 0);
  EXPECT_EQ(short_wait.check(HistoryBuilder::bound_us(0)).liveness_gaps, 1);
}

}  // namespace
}  // namespace semsim
