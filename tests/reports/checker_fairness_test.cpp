// Fairness and latency: FIFO inversions, Jain's index, clock offset vs success, waits, percentiles.
#include <gtest/gtest.h>

#include "history_builder.h"
#include "reports/checks/fifo.h"
#include "reports/checks/latency.h"

namespace semsim {
namespace {

using test::HistoryBuilder;

TEST(CheckerFairness, FifoInversionsCountRejectionsOvertakenByALaterAdmittedAcquire) {
  HistoryBuilder h(/*limit=*/1, /*clients=*/12);
  // 1. R = c2 [10, 30] rejected; A = c3 invoked at 20 (after 10, before 30), ok at 25, before R
  //    failed: inversion.
  h.at(10, 2, Op::acquire, Phase::invoke).at(20, 3, Op::acquire, Phase::invoke);
  h.at(25, 3, Op::acquire, Phase::ok).at(30, 2, Op::acquire, Phase::fail);
  // 2. R = c4 [40, 60]; A = c5 invoked at 50, ok only at 70, after R failed: inversion.
  h.at(40, 4, Op::acquire, Phase::invoke).at(50, 5, Op::acquire, Phase::invoke);
  h.at(60, 4, Op::acquire, Phase::fail).at(70, 5, Op::acquire, Phase::ok);
  // 3. A invoked after R failed: not an inversion.
  h.at(110, 6, Op::acquire, Phase::invoke).at(120, 6, Op::acquire, Phase::fail);
  h.at(130, 7, Op::acquire, Phase::invoke).at(140, 7, Op::acquire, Phase::ok);
  // 4. A client's own retry at the instant it was rejected: not an inversion.
  h.at(150, 8, Op::acquire, Phase::invoke).at(160, 8, Op::acquire, Phase::fail);
  h.at(160, 8, Op::acquire, Phase::invoke).at(170, 8, Op::acquire, Phase::ok);
  // 5. A invoked before R: FIFO order respected.
  h.at(190, 10, Op::acquire, Phase::invoke).at(200, 9, Op::acquire, Phase::invoke);
  h.at(210, 9, Op::acquire, Phase::fail).at(220, 10, Op::acquire, Phase::ok);
  // 6. The later acquire's outcome is unknown (info): not admitted, not an inversion.
  h.at(300, 11, Op::acquire, Phase::invoke).at(305, 1, Op::acquire, Phase::invoke);
  h.at(310, 11, Op::acquire, Phase::fail).at(320, 1, Op::acquire, Phase::info);
  // 7. Two later admitted acquires overtake one rejection: it counts once.
  h.at(400, 12, Op::acquire, Phase::invoke).at(401, 3, Op::acquire, Phase::invoke);
  h.at(402, 5, Op::acquire, Phase::invoke).at(403, 3, Op::acquire, Phase::ok);
  h.at(404, 5, Op::acquire, Phase::ok).at(410, 12, Op::acquire, Phase::fail);
  h.end(500);
  EXPECT_EQ(h.check().fifo_inversions, 3);
}

// R = client 1 [1, 3] rejected; A = client 2 invoked at 3 (= r_f), ok at 4: r_i < a_i <= r_f, an
// inversion, whichever of R's fail row and A's invoke row comes first within instant 3.
TEST(CheckerFairness, FifoInversionAtTheFailInstantDoesNotDependOnRowOrder) {
  for (bool invoke_first : {true, false}) {
    HistoryBuilder h(1, 3);
    h.hold(3, 0, 0, 2);
    h.at(1, 1, Op::acquire, Phase::invoke);
    if (invoke_first)
      h.at(3, 2, Op::acquire, Phase::invoke).at(3, 1, Op::acquire, Phase::fail);
    else
      h.at(3, 1, Op::acquire, Phase::fail).at(3, 2, Op::acquire, Phase::invoke);
    h.at(4, 2, Op::acquire, Phase::ok).end(10);
    EXPECT_EQ(h.check().fifo_inversions, 1) << (invoke_first ? "A's invoke row first" : "R's fail row first");
  }
}

// The same with A admitted at that very instant too: rows A invoke, A ok, R fail in every order
// that keeps A's invoke before its ok.
TEST(CheckerFairness, FifoInversionAdmittedAtTheFailInstantInAnyRowOrder) {
  const char* orders[] = {"IOF", "IFO", "FIO"};  // I: A invoke, O: A ok, F: R fail
  for (const char* order : orders) {
    HistoryBuilder h(1, 3);
    h.at(1, 1, Op::acquire, Phase::invoke);
    for (const char* c = order; *c; ++c) {
      if (*c == 'I') h.at(3, 2, Op::acquire, Phase::invoke);
      if (*c == 'O') h.at(3, 2, Op::acquire, Phase::ok);
      if (*c == 'F') h.at(3, 1, Op::acquire, Phase::fail);
    }
    h.end(10);
    EXPECT_EQ(h.check().fifo_inversions, 1) << order;
  }
}

// An admitted acquire invoked in the same instant as the refused one was not requested later: no
// inversion (r_i < a_i is strict), whether A's ok comes before R's fail (judged at the refusal) or
// after it (judged at the grant). The mutation audit of issue 27: `<=` went unnoticed.
TEST(CheckerFairness, AnAcquireInvokedInTheSameInstantAsTheRefusedOneIsNotLater) {
  for (bool ok_first : {true, false}) {
    HistoryBuilder h(1, 3);
    h.at(5, 1, Op::acquire, Phase::invoke).at(5, 2, Op::acquire, Phase::invoke);
    if (ok_first)
      h.at(6, 1, Op::acquire, Phase::ok).at(7, 2, Op::acquire, Phase::fail);
    else
      h.at(6, 2, Op::acquire, Phase::fail).at(7, 1, Op::acquire, Phase::ok);
    h.at(20, 1, Op::release, Phase::invoke).end(30);
    EXPECT_EQ(h.check().fifo_inversions, 0) << (ok_first ? "A's ok first" : "R's fail first");
  }
}

TEST(CheckerFairness, ALongPendingAcquireStillInvertsTheRejectionsItOvertook) {
  // Client 1's acquire (invoked at 5) is answered only at 1000; client 2 (invoked at 0) was
  // rejected at 10: one inversion. The thousand rejections between 20 and 990 were all invoked
  // after client 1's request, so client 1 cannot invert them.
  HistoryBuilder h(1, 3);
  h.at(0, 2, Op::acquire, Phase::invoke).at(5, 1, Op::acquire, Phase::invoke);
  h.at(10, 2, Op::acquire, Phase::fail);
  for (int i = 0; i < 970; ++i)
    h.at(20 + i, 3, Op::acquire, Phase::invoke).at(20.5 + i, 3, Op::acquire, Phase::fail);
  h.at(1000, 1, Op::acquire, Phase::ok).end(1100);
  EXPECT_EQ(h.check().fifo_inversions, 1);
}

TEST(FifoTracker, RejectionsNoPendingAcquireCanInvertAreForgotten) {
  // Client 1's acquire stays pending throughout; 100,000 later rejections of client 2 cannot be
  // inverted by it (invoked after it), so the tracker forgets them: what it keeps never grows
  // past a bound (the queues are pruned when they double, from 64 entries).
  FifoTracker f;
  f.invoked(1, 1, 0);
  std::size_t most_kept = 0;
  for (int i = 0; i < 100'000; ++i) {
    f.invoked(2, static_cast<std::uint64_t>(i + 1), 10 + 2 * i);
    f.rejected(2, 10 + 2 * i, 11 + 2 * i);
    most_kept = std::max(most_kept, f.waiting() + f.pending());
  }
  EXPECT_LE(most_kept, 100u);  // 2 needed (the pending acquire, the last rejection), doubled, + 64
  f.admitted(1, 0);
  EXPECT_EQ(f.inversions(), 0);
}

TEST(CheckerFairness, JainIndexOverClientsThatTried) {
  // Grants 1, 2, 3 and 0 (client 4 tried once and was rejected): (1+2+3)^2 / (4 * (1+4+9)) = 36/56.
  HistoryBuilder h(10);
  double t = 0;
  for (int c = 1; c <= 3; ++c)
    for (int i = 0; i < c; ++i, t += 10) h.hold(c, t, t + 1, t + 5);
  h.at(t, 4, Op::acquire, Phase::invoke).at(t + 1, 4, Op::acquire, Phase::fail).end(t + 10);
  Summary s = h.check();
  ASSERT_TRUE(s.jain_index);
  EXPECT_DOUBLE_EQ(*s.jain_index, 36.0 / 56.0);
}

TEST(CheckerFairness, JainIndexIsUndefinedWithoutGrants) {
  HistoryBuilder h(1);
  h.at(0, 1, Op::acquire, Phase::invoke).at(1, 1, Op::acquire, Phase::fail).end(2);
  EXPECT_FALSE(h.check().jain_index);
}

TEST(CheckerFairness, SlowClocksWinningGivesANegativeCorrelation) {
  // Offsets -10, 0, +10 ms; success rates 1, 1/2, 0: a line, r = -1, slope -0.05 per ms.
  HistoryBuilder h(10);
  h.at(0, 1, Op::acquire, Phase::invoke, "", -10).at(1, 1, Op::acquire, Phase::ok);
  h.at(0, 2, Op::acquire, Phase::invoke, "", 0).at(1, 2, Op::acquire, Phase::ok);
  h.at(2, 2, Op::acquire, Phase::invoke, "", 0).at(3, 2, Op::acquire, Phase::fail);
  h.at(0, 3, Op::acquire, Phase::invoke, "", 10).at(1, 3, Op::acquire, Phase::fail).end(10);
  Summary s = h.check();
  ASSERT_TRUE(s.skew_success_correlation);
  EXPECT_NEAR(*s.skew_success_correlation, -1.0, 1e-12);
  EXPECT_NEAR(*s.skew_success_slope, -0.05, 1e-12);
  ASSERT_EQ(s.per_client.size(), 3u);
  EXPECT_DOUBLE_EQ(s.per_client[0].mean_offset_ms, -10.0);
}

TEST(CheckerFairness, LongestWaitRunsFromTheFirstRejectedInvokeToTheNextGrant) {
  // Client 1: rejected at invokes 0 and 10, granted at 40: waited 40 ms.
  // Client 2: rejected at invoke 50, never granted, history ends at 100: 50 ms, still waiting.
  HistoryBuilder h(1);
  h.at(0, 1, Op::acquire, Phase::invoke).at(5, 1, Op::acquire, Phase::fail);
  h.at(10, 1, Op::acquire, Phase::invoke).at(15, 1, Op::acquire, Phase::fail);
  h.at(20, 1, Op::acquire, Phase::invoke).at(40, 1, Op::acquire, Phase::ok);
  h.at(50, 2, Op::acquire, Phase::invoke).at(55, 2, Op::acquire, Phase::fail).end(100);
  Summary s = h.check();
  EXPECT_EQ(s.longest_wait_us, 50'000);
  EXPECT_EQ(s.longest_wait_client, 2);
  EXPECT_TRUE(s.longest_wait_open);
}

TEST(CheckerFairness, LatencyPercentilesUseNearestRank) {
  // Latencies 1..10 ms: p50 = the 5th smallest (ceil(0.5 * 10) = 5), p99 = the 10th.
  HistoryBuilder h(100, 10);
  for (int c = 1; c <= 10; ++c)
    h.at(0, c, Op::acquire, Phase::invoke).at(c, c, Op::acquire, c % 2 ? Phase::ok : Phase::fail);
  h.end(20);
  Summary s = h.check();
  EXPECT_EQ(s.acquire_p50_us, 5'000);
  EXPECT_EQ(s.acquire_p99_us, 10'000);
}

TEST(LatencyHistogram, NearestRankOnThreeValues) {
  LatencyHistogram l;
  for (int v : {3000, 1000, 2000}) l.add(v);
  EXPECT_EQ(l.percentile_us(50), 2000);   // rank ceil(1.5) = 2
  EXPECT_EQ(l.percentile_us(99), 3000);   // rank ceil(2.97) = 3
  EXPECT_EQ(l.percentile_us(1), 1000);    // rank ceil(0.03) = 1
  EXPECT_FALSE(LatencyHistogram().percentile_us(50));
}

TEST(LatencyHistogram, ExactBelow16msThenWithinAFractionOfAPermille) {
  LatencyHistogram l;
  l.add(16'383);
  EXPECT_EQ(l.percentile_us(100), 16'383);
  LatencyHistogram big;
  big.add(1'000'001);  // 1 s: reported at most 2^-13 below
  std::int64_t v = *big.percentile_us(50);
  EXPECT_LE(v, 1'000'001);
  EXPECT_GE(v, 1'000'001 - 1'000'001 / 8192);
}

// The exact buckets count in 16 bits and carry the rest: no count wraps.
TEST(LatencyHistogram, ACountPastSixteenBitsIsExact) {
  LatencyHistogram l;
  for (int i = 0; i < 3 * 65'536 + 5; ++i) l.add(7);
  l.add(8);
  l.add(-3);  // clamped to 0
  using Buckets = std::vector<std::pair<std::int64_t, std::uint64_t>>;
  EXPECT_EQ(l.buckets(), (Buckets{{0, 1}, {7, 3 * 65'536 + 5}, {8, 1}}));
  EXPECT_EQ(l.count(), 3u * 65'536 + 7);
  EXPECT_EQ(l.percentile_us(99), 7);
  EXPECT_EQ(l.percentile_us(100), 8);
  LatencyHistogram same;
  for (int i = 0; i < 3 * 65'536 + 5; ++i) same.add(7);
  same.add(-3);
  same.add(8);
  EXPECT_EQ(l, same);
}

}  // namespace
}  // namespace semsim
