// Permits, not clients, are counted: one client may hold several permits at once (a library may
// grant them; a scripted client's acquires may overlap), and each acquire outcome pairs with its
// client's earliest pending invoke (reports/DEFINITIONS.md, "Safety" and "Outcomes"). Each history
// here is computed by hand; under "one client, one permit" or "the latest invoke" each gave
// another figure (in the comments).
#include <gtest/gtest.h>

#include "history_builder.h"

namespace semsim {
namespace {

using test::HistoryBuilder;

TEST(CheckerPermits, TwoHoldsOfOneClientCountAsTwoHoldersAndTheWitnessNamesBoth) {
  // Client 1 asks twice at 0 and is granted "a" at 1 ms and "b" at 2 ms; limit 1. Two permits are
  // held over [2, 10) ms. (One client, one permit: max_holders 1, safety valid.)
  HistoryBuilder h(/*limit=*/1);
  h.at(0, 1, Op::acquire, Phase::invoke).at(0, 1, Op::acquire, Phase::invoke);
  h.at(1, 1, Op::acquire, Phase::ok, "a").at(2, 1, Op::acquire, Phase::ok, "b");
  h.at(10, 1, Op::release, Phase::invoke, "a").at(20, 1, Op::release, Phase::invoke, "b").end(30);
  const Summary s = h.check();
  EXPECT_EQ(s.max_holders, 2);
  EXPECT_EQ(s.over_admission, 1);
  EXPECT_EQ(s.over_limit_us, 8'000);
  EXPECT_EQ(s.steals, 1);  // "b" landed while "a" held the only permit
  EXPECT_EQ(s.safety, Verdict::invalid);
  ASSERT_EQ(s.episodes.size(), 1u);
  EXPECT_EQ(s.episodes[0].start_us, 2'000);
  EXPECT_EQ(s.episodes[0].end_us, 10'000);
  ASSERT_EQ(s.episodes[0].witness.size(), 2u);
  EXPECT_EQ(s.episodes[0].witness[0], (HoldRef{1, "a", 1'000, 0}));
  EXPECT_EQ(s.episodes[0].witness[1], (HoldRef{1, "b", 2'000, 0}));
}

TEST(CheckerPermits, AReleaseEndsOnlyThePermitItNamesAndTheOtherStillCounts) {
  // Limit 2. Client 1 holds "a" [1, 5) and "b" [2, 40); client 2 holds "c" [8, 30), client 3 "d"
  // [20, 25): "b", "c" and "d" overlap on [20, 25). (One client, one permit: releasing "a" at 5
  // ended client 1's hold, and two held at most: safety valid.)
  HistoryBuilder h(2);
  h.at(0, 1, Op::acquire, Phase::invoke).at(0, 1, Op::acquire, Phase::invoke);
  h.at(1, 1, Op::acquire, Phase::ok, "a").at(2, 1, Op::acquire, Phase::ok, "b");
  h.at(5, 1, Op::release, Phase::invoke, "a").at(6, 1, Op::release, Phase::ok, "a");
  h.at(7, 2, Op::acquire, Phase::invoke).at(8, 2, Op::acquire, Phase::ok, "c");
  h.at(19, 3, Op::acquire, Phase::invoke).at(20, 3, Op::acquire, Phase::ok, "d");
  h.at(25, 3, Op::release, Phase::invoke, "d").at(30, 2, Op::release, Phase::invoke, "c");
  h.at(40, 1, Op::release, Phase::invoke, "b").end(50);
  const Summary s = h.check();
  EXPECT_EQ(s.max_holders, 3);
  EXPECT_EQ(s.over_limit_us, 5'000);
  ASSERT_EQ(s.episodes.size(), 1u);
  EXPECT_EQ(s.episodes[0].start_us, 20'000);
  EXPECT_EQ(s.episodes[0].end_us, 25'000);
  ASSERT_EQ(s.episodes[0].witness.size(), 3u);
  EXPECT_EQ(s.episodes[0].witness[0], (HoldRef{1, "b", 2'000, 0}));
  EXPECT_EQ(s.episodes[0].witness[1], (HoldRef{2, "c", 8'000, 0}));
  EXPECT_EQ(s.episodes[0].witness[2], (HoldRef{3, "d", 20'000, 0}));
}

TEST(CheckerPermits, AReleaseOrRefreshFailNamingNoHeldPermitEndsNothing) {
  // Client 1 holds "a" from 1 ms; a release of "x" and a failed refresh of "y" (permits it does
  // not hold) leave "a" held, so client 2's "c" at 10 makes two holders until 20.
  HistoryBuilder h(1);
  h.at(0, 1, Op::acquire, Phase::invoke).at(1, 1, Op::acquire, Phase::ok, "a");
  h.at(3, 1, Op::release, Phase::invoke, "x").at(4, 1, Op::refresh, Phase::fail, "y");
  h.at(9, 2, Op::acquire, Phase::invoke).at(10, 2, Op::acquire, Phase::ok, "c");
  h.at(20, 1, Op::release, Phase::invoke, "a").end(30);
  const Summary s = h.check();
  EXPECT_EQ(s.max_holders, 2);
  EXPECT_EQ(s.over_limit_us, 10'000);
}

TEST(CheckerPermits, ASecondOkNamingAPermitAlreadyHeldKeepsItsHoldAndItsStart) {
  // "a" granted at 1 and again at 5 (a library answering twice): one hold since 1 ms.
  HistoryBuilder h(1);
  h.at(0, 1, Op::acquire, Phase::invoke).at(0, 1, Op::acquire, Phase::invoke);
  h.at(1, 1, Op::acquire, Phase::ok, "a").at(5, 1, Op::acquire, Phase::ok, "a");
  h.at(6, 2, Op::acquire, Phase::invoke).at(8, 2, Op::acquire, Phase::ok, "c");
  h.at(20, 2, Op::release, Phase::invoke, "c").at(30, 1, Op::release, Phase::invoke, "a").end(40);
  const Summary s = h.check();
  EXPECT_EQ(s.max_holders, 2);
  ASSERT_EQ(s.episodes.size(), 1u);
  ASSERT_EQ(s.episodes[0].witness.size(), 2u);
  EXPECT_EQ(s.episodes[0].witness[0], (HoldRef{1, "a", 1'000, 0}));
}

TEST(CheckerPermits, ACrashEndsEveryPermitOfTheClient) {
  // Limit 2: client 1 holds "a" and "b", client 2 "c" from 3 ms: three holders until client 1
  // crashes at 5 ms, then one.
  HistoryBuilder h(2);
  h.at(0, 1, Op::acquire, Phase::invoke).at(0, 1, Op::acquire, Phase::invoke);
  h.at(1, 1, Op::acquire, Phase::ok, "a").at(2, 1, Op::acquire, Phase::ok, "b");
  h.at(2, 2, Op::acquire, Phase::invoke).at(3, 2, Op::acquire, Phase::ok, "c");
  h.at(5, 1, Op::crash, Phase::ok).end(10);
  const Summary s = h.check();
  EXPECT_EQ(s.max_holders, 3);
  EXPECT_EQ(s.over_limit_us, 2'000);
  ASSERT_EQ(s.episodes.size(), 1u);
  EXPECT_EQ(s.episodes[0].end_us, 5'000);
  ASSERT_EQ(s.episodes[0].witness.size(), 3u);
}

TEST(CheckerPermits, AnUnknownOutcomeWhileHoldingIsOneMorePossiblePermit) {
  // Client 1 holds "a" and asks again; the second acquire ends unknown: it may hold two permits
  // (limit 1: safety unknown). (One client, one permit: a holder's info added nothing: valid.)
  HistoryBuilder h(1);
  h.at(0, 1, Op::acquire, Phase::invoke).at(1, 1, Op::acquire, Phase::ok, "a");
  h.at(2, 1, Op::acquire, Phase::invoke).at(3, 1, Op::acquire, Phase::info);
  h.at(10, 1, Op::release, Phase::invoke, "a").end(20);
  const Summary s = h.check();
  EXPECT_EQ(s.max_holders, 1);
  EXPECT_EQ(s.max_possible_holders, 2);
  EXPECT_EQ(s.possible_over_limit_us, 7'000);
  EXPECT_EQ(s.safety, Verdict::unknown);
}

TEST(CheckerPermits, ClientHoldingTwoPermitsOfTwoLeavesNoneFreeSoAWaitIsNoStarvation) {
  // Limit 2, bound 100 ms: client 1 holds both permits [2, 1000); client 2 is refused at 11 and
  // 501 and waits. No permit is free until 1000: no no-grant stretch. (One client, one permit: a
  // permit looked free from 10 ms on, a 990 ms stretch, liveness invalid.)
  HistoryBuilder h(2);
  h.at(0, 1, Op::acquire, Phase::invoke).at(0, 1, Op::acquire, Phase::invoke);
  h.at(1, 1, Op::acquire, Phase::ok, "a").at(2, 1, Op::acquire, Phase::ok, "b");
  h.at(10, 2, Op::acquire, Phase::invoke).at(11, 2, Op::acquire, Phase::fail);
  h.at(500, 2, Op::acquire, Phase::invoke).at(501, 2, Op::acquire, Phase::fail);
  h.at(1000, 1, Op::release, Phase::invoke, "a").at(1000, 1, Op::release, Phase::invoke, "b");
  h.at(1000, 2, Op::acquire, Phase::invoke).at(1001, 2, Op::acquire, Phase::ok, "c").end(1010);
  const Summary s = h.check(HistoryBuilder::bound_ms(100));
  EXPECT_EQ(s.liveness, Verdict::valid);
  EXPECT_EQ(s.longest_no_grant_us, 1'000);  // [1000, 1001): both free, client 2 waiting
  EXPECT_EQ(s.liveness_gaps, 0);
}

TEST(CheckerPermits, AnOutcomePairsWithTheEarliestPendingInvokeSoASlowFirstAcquireKeepsItsLatency) {
  // Client 1 asks at 0 and at 100 ms; the first ok comes at 119 (pairs with 0: 119 ms), the
  // second at 120 (pairs with 100: 20 ms). (The latest invoke: 19 ms, and the second outcome,
  // with no invoke left, had no latency: p99 19 ms.)
  HistoryBuilder h(2);
  h.at(0, 1, Op::acquire, Phase::invoke).at(100, 1, Op::acquire, Phase::invoke);
  h.at(119, 1, Op::acquire, Phase::ok, "a").at(120, 1, Op::acquire, Phase::ok, "b");
  h.at(200, 1, Op::release, Phase::invoke, "a").at(200, 1, Op::release, Phase::invoke, "b").end(210);
  const Summary s = h.check();
  EXPECT_EQ(s.acquire_latency.count(), 2u);
  EXPECT_EQ(s.acquire_p50_us, 20'000);
  EXPECT_EQ(s.acquire_p99_us, 119'000);
}

TEST(CheckerPermits, AFifoInversionIsJudgedFromTheEarliestPendingInvoke) {
  // Client 1 asks at 0 and 20; client 2 asks at 10 and is granted at 15; client 1's outcomes:
  // fail at 30 (the acquire of 0, overtaken by client 2's of 10: an inversion), fail at 31 (the
  // acquire of 20, asked after client 2's: none). (The latest invoke: the fail at 30 was the
  // acquire of 20, and no inversion.)
  HistoryBuilder h(1);
  h.at(0, 1, Op::acquire, Phase::invoke).at(10, 2, Op::acquire, Phase::invoke);
  h.at(15, 2, Op::acquire, Phase::ok, "c").at(20, 1, Op::acquire, Phase::invoke);
  h.at(30, 1, Op::acquire, Phase::fail).at(31, 1, Op::acquire, Phase::fail);
  h.at(40, 2, Op::release, Phase::invoke, "c").end(50);
  EXPECT_EQ(h.check().fifo_inversions, 1);
}

TEST(CheckerPermits, AWaitStartsAtTheInvokeOfTheAcquireRefused) {
  // Client 1 asks at 0 and 20; the acquire of 0 is refused at 30, the one of 20 granted at 50:
  // client 1 waited [0, 50). (The latest invoke: from 20, 30 ms.)
  HistoryBuilder h(1);
  h.at(0, 1, Op::acquire, Phase::invoke).at(20, 1, Op::acquire, Phase::invoke);
  h.at(30, 1, Op::acquire, Phase::fail).at(50, 1, Op::acquire, Phase::ok, "a");
  h.at(60, 1, Op::release, Phase::invoke, "a").end(70);
  const Summary s = h.check();
  EXPECT_EQ(s.longest_wait_us, 50'000);
  EXPECT_EQ(s.longest_wait_client, 1);
}

TEST(CheckerPermits, AWaitLearntFromAnAcquireAskedWhileWaitingReachesBackToItsInvoke) {
  // Limit 2, so one permit stays free throughout. Client 1 is refused at 5 (waits from 0), asks
  // at 10 and again at 20, is granted at 30 (the acquire of 10: the wait ends) and refused at 100
  // (the acquire of 20: it waits again, from 20). Its grant at 30 starts a no-grant stretch that
  // lasts to the end, 200: 170 ms. Judging the instant of 30 before the refusal at 100 said
  // nobody waited then, and the stretch started at 100 (100 ms).
  HistoryBuilder h(2);
  h.at(0, 1, Op::acquire, Phase::invoke).at(5, 1, Op::acquire, Phase::fail);
  h.at(10, 1, Op::acquire, Phase::invoke).at(20, 1, Op::acquire, Phase::invoke);
  h.at(30, 1, Op::acquire, Phase::ok, "a").at(100, 1, Op::acquire, Phase::fail).end(200);
  const Summary s = h.check(HistoryBuilder::bound_ms(1000));
  EXPECT_EQ(s.longest_no_grant_us, 170'000);
  EXPECT_EQ(s.longest_wait_us, 180'000);  // [20, 200), still open
  EXPECT_TRUE(s.longest_wait_open);
}

TEST(CheckerPermits, AFaultThatLosesWritesLosesEveryPermitOfAClientGrantedSince) {
  // Redis restarts without persistence at 50 ms: both of client 1's permits are lost.
  HistoryBuilder h(2);
  h.at(0, 1, Op::acquire, Phase::invoke).at(0, 1, Op::acquire, Phase::invoke);
  h.at(1, 1, Op::acquire, Phase::ok, "a").at(2, 1, Op::acquire, Phase::ok, "b");
  h.at(50, 0, Op::redis_restart, Phase::ok);
  h.events.back().detail = "persistence=none lost_since_us=0";
  h.end(100);
  const Summary s = h.check();
  ASSERT_TRUE(s.lost_permits);
  EXPECT_EQ(*s.lost_permits, 2);
}

}  // namespace
}  // namespace semsim
