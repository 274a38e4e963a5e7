// Live leases (reports/DEFINITIONS.md, "Live leases"), on hand-computed histories, timeout 500 ms.
#include "reports/checks/live_leases.h"

#include <gtest/gtest.h>

#include "tests/reports/history_builder.h"

namespace semsim {
namespace {

using test::HistoryBuilder;

constexpr std::int64_t kTimeoutUs = 500'000;

LiveLeases judge(const HistoryBuilder& h, int limit = 1) { return live_leases(h.sorted(), limit, kTimeoutUs); }

TEST(LiveLeases, AHolderPausedPastItsLeaseOverAdmitsButNoTwoLeasesAreLive) {
  HistoryBuilder h(1);
  h.hold(1, 0, 10, 900, "a").hold(2, 600, 610, 700, "b").end(1000);
  EXPECT_EQ(h.check().over_admission, 1);  // client 1 still believes in [610, 700)
  const LiveLeases l = judge(h);
  EXPECT_EQ(l.max_live, 1);  // its lease ended at 500
  EXPECT_EQ(l.over_admission, 0);
  EXPECT_EQ(l.first_over_us, -1);
  EXPECT_TRUE(l.witness.empty());
}

TEST(LiveLeases, TwoLiveLeasesAfterALateReleaseAreAnOverAdmissionWithTheirWitness) {
  // Client 1's late release (900) deleted client 2's key: client 3 is granted at 950 while client
  // 2's lease (610 -> 1110) stands.
  HistoryBuilder h(1);
  h.hold(1, 0, 10, 900, "a").hold(2, 600, 610, 1500, "b").hold(3, 940, 950, 1300, "c").end(1600);
  const LiveLeases l = judge(h);
  EXPECT_EQ(l.max_live, 2);
  EXPECT_EQ(l.over_admission, 1);
  EXPECT_EQ(l.first_over_us, 950'000);
  ASSERT_EQ(l.witness.size(), 2u);
  EXPECT_EQ(l.witness[0].client, 2);
  EXPECT_EQ(l.witness[0].identifier, "b");
  EXPECT_EQ(l.witness[0].since_us, 610'000);
  EXPECT_EQ(l.witness[1].client, 3);
  EXPECT_EQ(l.witness[1].since_us, 950'000);
}

TEST(LiveLeases, ALeaseEndingAtAnInstantDoesNotOverlapAGrantAtIt) {
  HistoryBuilder h(1);  // client 1's promise ends at 500 exactly, when client 2 is granted
  h.hold(1, 0, 10, 800, "a").hold(2, 490, 500, 700, "b").end(1000);
  EXPECT_EQ(judge(h).over_admission, 0);
  HistoryBuilder one_before(1);
  one_before.hold(1, 0, 10, 800, "a").hold(2, 489, 499, 700, "b").end(1000);
  EXPECT_EQ(judge(one_before).over_admission, 1);
}

TEST(LiveLeases, AGrantHeardOfAfterItsLeaseEndedIsLateAndNeverLive) {
  HistoryBuilder h(1);
  h.hold(1, 0, 600, 900, "a").hold(2, 700, 710, 800, "b").end(1000);
  const LiveLeases l = judge(h);
  EXPECT_EQ(l.late_grants, 1);
  EXPECT_EQ(l.max_live, 1);
  HistoryBuilder on_time(1);
  on_time.hold(1, 0, 499, 900, "a").end(1000);
  EXPECT_EQ(judge(on_time).late_grants, 0);
  HistoryBuilder at_the_end(1);
  at_the_end.hold(1, 0, 500, 900, "a").end(1000);
  EXPECT_EQ(judge(at_the_end).late_grants, 1);
}

TEST(LiveLeases, AKeptRefreshExtendsTheLeaseFromItsInvoke) {
  HistoryBuilder h(1);
  h.at(0, 1, Op::acquire, Phase::invoke).at(10, 1, Op::acquire, Phase::ok, "a");
  h.at(400, 1, Op::refresh, Phase::invoke, "a").at(410, 1, Op::refresh, Phase::ok, "a");  // until 900
  h.at(800, 2, Op::acquire, Phase::invoke).at(850, 2, Op::acquire, Phase::ok, "b");
  h.at(1000, 1, Op::release, Phase::invoke, "a").end(1100);
  const LiveLeases l = judge(h);
  EXPECT_EQ(l.over_admission, 1);
  EXPECT_EQ(l.first_over_us, 850'000);
  EXPECT_EQ(l.witness[0].since_us, 10'000);
}

TEST(LiveLeases, ARefreshKeptAfterTheLeaseLapsedMakesItLiveAgainFromItsOk) {
  HistoryBuilder h(1);
  h.at(0, 1, Op::acquire, Phase::invoke).at(10, 1, Op::acquire, Phase::ok, "a");
  h.at(600, 2, Op::acquire, Phase::invoke).at(610, 2, Op::acquire, Phase::ok, "b");  // live until 1100
  h.at(700, 1, Op::refresh, Phase::invoke, "a").at(710, 1, Op::refresh, Phase::ok, "a");  // a refresh with no token check
  h.at(900, 1, Op::release, Phase::invoke, "a").at(950, 2, Op::release, Phase::invoke, "b").end(1000);
  const LiveLeases l = judge(h);
  EXPECT_EQ(l.over_admission, 1);
  EXPECT_EQ(l.first_over_us, 710'000);
  ASSERT_EQ(l.witness.size(), 2u);
  EXPECT_EQ(l.witness[0].client, 2);
  EXPECT_EQ(l.witness[1].client, 1);
  EXPECT_EQ(l.witness[1].since_us, 710'000);
  HistoryBuilder refused(1);  // the same refresh refused ends client 1's hold
  refused.at(0, 1, Op::acquire, Phase::invoke).at(10, 1, Op::acquire, Phase::ok, "a");
  refused.at(600, 2, Op::acquire, Phase::invoke).at(610, 2, Op::acquire, Phase::ok, "b");
  refused.at(700, 1, Op::refresh, Phase::invoke, "a").at(710, 1, Op::refresh, Phase::fail, "a").end(1000);
  EXPECT_EQ(judge(refused).over_admission, 0);
}

TEST(LiveLeases, ACrashEndsEveryLeaseOfItsClient) {
  HistoryBuilder h(1);
  h.at(0, 1, Op::acquire, Phase::invoke).at(10, 1, Op::acquire, Phase::ok, "a");
  h.at(100, 1, Op::crash, Phase::ok);
  h.hold(2, 200, 210, 400, "b").end(1000);
  EXPECT_EQ(judge(h).over_admission, 0);
}

TEST(LiveLeases, LeasesStillLiveAtTheEndCountAtTheLastInstant) {
  HistoryBuilder h(1);
  h.at(0, 1, Op::acquire, Phase::invoke).at(10, 1, Op::acquire, Phase::ok, "a");
  h.at(300, 2, Op::acquire, Phase::invoke).at(300, 2, Op::acquire, Phase::ok, "b");
  h.end(300);
  EXPECT_EQ(judge(h).over_admission, 1);
}

TEST(LiveLeases, ASecondOkOfAPermitHeldChangesNothingAndLimitsCountPermits) {
  HistoryBuilder h(2);
  h.at(0, 1, Op::acquire, Phase::invoke).at(0, 1, Op::acquire, Phase::invoke);
  h.at(10, 1, Op::acquire, Phase::ok, "a").at(20, 1, Op::acquire, Phase::ok, "a");
  h.hold(2, 30, 40, 200, "b").end(300);
  EXPECT_EQ(judge(h, 2).max_live, 2);
  EXPECT_EQ(judge(h, 1).over_admission, 1);
}

TEST(LiveLeases, AnAcquireWithNoOutcomeByTheEndIsUnansweredUnlessItsClientCrashed) {
  HistoryBuilder h(1);
  h.at(0, 1, Op::acquire, Phase::invoke).at(100, 2, Op::acquire, Phase::invoke).at(50, 3, Op::acquire, Phase::invoke);
  h.at(120, 2, Op::acquire, Phase::fail).at(200, 3, Op::crash, Phase::ok).end(1000);
  const LiveLeases l = judge(h);
  EXPECT_EQ(l.unanswered_acquires, 1);
  EXPECT_EQ(l.first_unanswered_client, 1);
  EXPECT_EQ(l.first_unanswered_us, 0);
  HistoryBuilder answered(1);
  answered.hold(1, 0, 10, 100, "a").end(1000);
  EXPECT_EQ(judge(answered).unanswered_acquires, 0);
  EXPECT_EQ(judge(answered).first_unanswered_us, -1);
}

TEST(LiveLeases, WithoutATimeoutNothingIsPromised) {
  HistoryBuilder h(1);
  h.hold(1, 0, 10, 900, "a").hold(2, 100, 110, 800, "b").end(1000);
  const LiveLeases l = live_leases(h.sorted(), 1, 0);
  EXPECT_EQ(l.max_live, 0);
  EXPECT_EQ(l.late_grants, 0);
}

}  // namespace
}  // namespace semsim
