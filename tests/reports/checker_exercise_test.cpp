// A verdict over a variant that was never exercised is no pass (exercise.h), and lease honesty
// (leases.h) as the summary's broken_leases.
#include <gtest/gtest.h>

#include "history_builder.h"
#include "reports/checks/exercise.h"
#include "reports/checks/summary_csv.h"

namespace semsim {
namespace {

using test::HistoryBuilder;

TEST(Exercised, ARunWithAGrantAndFewUnknownsExercisedItsVariant) {
  HistoryBuilder h(1);
  h.hold(1, 0, 1, 10).at(11, 1, Op::release, Phase::ok).end(20);
  const Summary s = h.check();
  EXPECT_TRUE(s.exercised);
  EXPECT_EQ(find_summary_column("exercised")->format(s), "yes");
}

TEST(Exercised, EveryAcquireFailingWithAnErrorIsNotExercisedAndSaysWhy) {
  HistoryBuilder h(1);
  for (int c = 1; c <= 3; ++c) {
    h.at(c, c, Op::acquire, Phase::invoke);
    h.at(c + 0.5, c, Op::acquire, Phase::info, "", 0).events.back().detail =
        "error: ERR user_script:1: boom: this acquire always fails";
  }
  h.end(10);
  const Summary s = h.check();
  EXPECT_FALSE(s.exercised);
  EXPECT_EQ(find_summary_column("exercised")->format(s), "no");
  Exercise e;
  e.add(s);
  e.add(s);
  EXPECT_EQ(e.why_not("2 cases"), "every acquire in 2 cases failed: ERR user_script:1: boom: this acquire always fails");
}

// A driver run counts what its proxies carried: grants with no command through them came from a
// Redis of the library's own. A run with no count (an old history) is judged as before.
TEST(Exercised, GrantsWithoutACommandSentToRedisAreNotExercised) {
  HistoryBuilder h(1);
  std::string& run_row = h.events.front().detail;
  run_row.replace(run_row.find("variant=basic"), 13, "variant=\"driver:python3 lock.py\"");
  h.hold(1, 0, 1, 10).at(11, 1, Op::release, Phase::ok).end(20, 0);
  const Summary none = h.check();
  EXPECT_FALSE(none.exercised);
  Exercise e;
  e.add(none);
  EXPECT_EQ(e.why_not("this run").rfind("no command reached Redis in this run (1 grants came from elsewhere", 0), 0u)
      << e.why_not("this run");
  h.events.pop_back();
  EXPECT_TRUE(h.end(20, 3).check().exercised);
  // A model's run: its variant sends its own commands, whatever the count says.
  HistoryBuilder model(1);
  EXPECT_TRUE(model.hold(1, 0, 1, 10).at(11, 1, Op::release, Phase::ok).end(20, 0).check().exercised);
}

TEST(Exercised, NoGrantAtAllIsNotExercised) {
  HistoryBuilder h(1);
  h.at(1, 1, Op::acquire, Phase::invoke).at(2, 1, Op::acquire, Phase::fail).end(10);
  const Summary s = h.check();
  EXPECT_FALSE(s.exercised);
  Exercise e;
  e.add(s);
  EXPECT_EQ(e.why_not("this run"), "no acquire was granted in this run (1 acquires: 1 refused, 0 unknown)");
  HistoryBuilder none(1);
  none.end(10);
  Exercise nothing;
  nothing.add(none.check());
  EXPECT_EQ(nothing.why_not("this run"), "no acquire was invoked in this run");
}

// The threshold: more than half of the operations unknown. Exactly half is still exercised.
TEST(Exercised, MoreThanHalfOfTheOperationsUnknownIsNotExercised) {
  const auto with_unknown_releases = [](int unknown) {
    HistoryBuilder h(1);
    h.hold(1, 0, 1, 2).at(3, 1, Op::release, Phase::info).events.back().detail = "connection lost: gone";
    h.hold(1, 4, 5, 6).at(7, 1, Op::release, unknown >= 2 ? Phase::info : Phase::ok);
    h.hold(1, 8, 9, 10).at(11, 1, Op::release, unknown >= 3 ? Phase::info : Phase::ok);
    return h.end(20).check();
  };
  // 6 operations (3 acquires ok, 3 releases).
  EXPECT_TRUE(with_unknown_releases(1).exercised);
  EXPECT_TRUE(with_unknown_releases(2).exercised);   // 2 of 6
  const Summary s = with_unknown_releases(3);        // 3 of 6: half
  EXPECT_TRUE(s.exercised);
  HistoryBuilder h(1);
  h.hold(1, 0, 1, 2).at(3, 1, Op::release, Phase::info).events.back().detail = "connection lost: gone";
  h.at(4, 1, Op::acquire, Phase::invoke).at(5, 1, Op::acquire, Phase::info).end(10);  // 2 of 3
  const Summary most = h.check();
  EXPECT_FALSE(most.exercised);
  Exercise e;
  e.add(most);
  EXPECT_EQ(e.why_not("this run"),
            "2 of 3 operations in this run ended unknown, more than half (the first: connection lost: gone)");
}

// Lease honesty: the run row's timeout_ms (1000 here) is the lease an ok promises from its invoke.
TEST(BrokenLeases, AReleaseFailingBeforeInvokePlusTimeoutBreaksTheLease) {
  HistoryBuilder h(1);
  h.hold(1, 0, 1, 500, "a").at(501, 1, Op::release, Phase::fail, "a");    // gone at 501 < 0 + 1000
  h.hold(2, 600, 601, 1700, "b").at(1701, 2, Op::release, Phase::fail, "b");  // gone after 1600: honest
  h.end(2000);
  EXPECT_EQ(h.check().broken_leases, 1);
}

TEST(BrokenLeases, ARefreshExtendsThePromiseAndARefreshFailBreaksIt) {
  HistoryBuilder h(1);
  h.at(0, 1, Op::acquire, Phase::invoke).at(1, 1, Op::acquire, Phase::ok, "a");
  h.at(900, 1, Op::refresh, Phase::invoke, "a").at(901, 1, Op::refresh, Phase::ok, "a");  // until 1900
  h.at(1500, 1, Op::refresh, Phase::invoke, "a").at(1501, 1, Op::refresh, Phase::fail, "a");
  h.end(2000);
  EXPECT_EQ(h.check().broken_leases, 1);
}

// The promise is half-open, [invoke, invoke + timeout): a release or refresh failing at its end
// itself breaks nothing; 1 µs before it, it does.
TEST(BrokenLeases, AFailureExactlyAtThePromisedEndBreaksNothing) {
  const auto broken_failing_at = [](double release_fail_ms, double refresh_fail_ms) {
    HistoryBuilder h(2);
    h.hold(1, 0, 1, 900, "a").at(release_fail_ms, 1, Op::release, Phase::fail, "a");  // promised until 1000
    h.at(100, 2, Op::acquire, Phase::invoke).at(101, 2, Op::acquire, Phase::ok, "b");
    h.at(1050, 2, Op::refresh, Phase::invoke, "b").at(1051, 2, Op::refresh, Phase::ok, "b");  // until 2050
    h.at(2000, 2, Op::refresh, Phase::invoke, "b").at(refresh_fail_ms, 2, Op::refresh, Phase::fail, "b");
    return h.end(3000).check().broken_leases;
  };
  EXPECT_EQ(broken_failing_at(1000, 2050), 0);
  EXPECT_EQ(broken_failing_at(999.999, 2050), 1);
  EXPECT_EQ(broken_failing_at(1000, 2049.999), 1);
}

TEST(BrokenLeases, ARefreshLosingToTheClientsOwnReleaseBreaksNothing) {
  HistoryBuilder h(1);
  h.at(0, 1, Op::acquire, Phase::invoke).at(1, 1, Op::acquire, Phase::ok, "a");
  h.at(100, 1, Op::refresh, Phase::invoke, "a").at(100, 1, Op::release, Phase::invoke, "a");
  h.at(101, 1, Op::release, Phase::ok, "a").at(102, 1, Op::refresh, Phase::fail, "a");
  h.end(200);
  EXPECT_EQ(h.check().broken_leases, 0);
}

// Several acquires outstanding (a client whose outcomes did not come back yet): each outcome takes
// the earliest invoke left, so the second outcome here takes the one at 100 (promise to 1100).
TEST(BrokenLeases, EachOutcomeTakesTheEarliestOutstandingAcquire) {
  HistoryBuilder h(2);
  for (int c = 1; c <= 2; ++c) {
    h.at(0, c, Op::acquire, Phase::invoke).at(100, c, Op::acquire, Phase::invoke).at(200, c, Op::acquire, Phase::invoke);
    h.at(210, c, Op::acquire, Phase::fail).at(220, c, Op::acquire, Phase::ok, c == 1 ? "a" : "b");
  }
  h.at(1150, 1, Op::release, Phase::fail, "a");  // after 1100: honest (from 200 it would not be)
  h.at(1090, 2, Op::release, Phase::fail, "b");  // before 1100: broken
  h.end(2000);
  EXPECT_EQ(h.check().broken_leases, 1);
}

// A script's lease_honesty: `lease` rows say what Redis held of the permit (the harness asked).
TEST(BrokenLeases, ALeaseRowShowingThePermitGoneOrExpiringEarlyBreaksTheLease) {
  const auto lease_row = [](HistoryBuilder& h, double t, int client, const std::string& id, const std::string& seen) {
    h.at(t, client, Op::lease, Phase::info, id);
    h.events.back().detail = "at=grant " + seen;
  };
  HistoryBuilder h(1);  // timeout 1000 ms: acquire invoked at t promises until t + 1000
  h.at(0, 1, Op::acquire, Phase::invoke).at(1, 1, Op::acquire, Phase::ok, "a");
  lease_row(h, 1, 1, "a", "ttl_ms=500");  // expires at 501 < 1000: broken
  h.at(10, 2, Op::acquire, Phase::invoke).at(11, 2, Op::acquire, Phase::ok, "b");
  lease_row(h, 11, 2, "b", "ttl_ms=999");  // 11 + 999 = 1010 = promised end: honest
  h.at(20, 3, Op::acquire, Phase::invoke).at(21, 3, Op::acquire, Phase::ok, "c");
  lease_row(h, 21, 3, "c", "admitted=0");  // not in the admission set at all: broken
  h.at(30, 4, Op::acquire, Phase::invoke).at(31, 4, Op::acquire, Phase::ok, "d");
  lease_row(h, 31, 4, "d", "admitted=1");
  lease_row(h, 1030, 4, "d", "ttl_ms=-2");  // gone after the promise ended (1030): honest
  h.at(40, 5, Op::acquire, Phase::invoke).at(41, 5, Op::acquire, Phase::ok, "e");
  lease_row(h, 41, 5, "e", "ttl_ms=-2");  // no key: broken, once
  h.at(42, 5, Op::release, Phase::invoke, "e").at(43, 5, Op::release, Phase::fail, "e");
  lease_row(h, 50, 6, "f", "ttl_ms=-2");  // a grant client 6 never had: nothing promised
  // Once its own release is on its way, a refresh's row may see what that release did...
  h.at(60, 7, Op::acquire, Phase::invoke).at(61, 7, Op::acquire, Phase::ok, "g");
  h.at(62, 7, Op::refresh, Phase::invoke, "g").at(62, 7, Op::release, Phase::invoke, "g");
  h.at(63, 7, Op::refresh, Phase::ok, "g");
  lease_row(h, 63, 7, "g", "ttl_ms=-2");
  h.events.back().detail = "at=refresh ttl_ms=-2";
  // ...but the row asked just before the release was sent speaks of the lease.
  h.at(70, 8, Op::acquire, Phase::invoke).at(71, 8, Op::acquire, Phase::ok, "h");
  h.at(72, 8, Op::release, Phase::invoke, "h");
  lease_row(h, 72, 8, "h", "ttl_ms=5");
  h.events.back().detail = "at=release ttl_ms=5";  // 72 + 5 < 1070: broken
  h.end(2000);
  EXPECT_EQ(h.check().broken_leases, 4);
}

// In real time the rows' instants are the scheduler's, not Redis's: a TTL a few ms short is no
// finding there, a permit gone is.
TEST(BrokenLeases, InRealTimeOnlyAPermitGoneBreaksALease) {
  HistoryBuilder h(1);
  h.events.front().detail = "variant=basic mode=paced seed=7 clients=4 limit=1 duration_ms=1000 timeout_ms=1000";
  h.at(0, 1, Op::acquire, Phase::invoke).at(0, 1, Op::acquire, Phase::ok, "a");
  h.at(50, 1, Op::lease, Phase::info, "a");
  h.events.back().detail = "at=release ttl_ms=940";  // 50 + 940 < 1000, but Redis's clock ran on
  h.at(60, 2, Op::acquire, Phase::invoke).at(60, 2, Op::acquire, Phase::ok, "b");
  h.at(60, 2, Op::lease, Phase::info, "b");
  h.events.back().detail = "at=grant ttl_ms=-2";
  h.end(2000);
  EXPECT_EQ(h.check().broken_leases, 1);
}

TEST(BrokenLeases, WithoutATimeoutInTheRunRowNothingWasPromised) {
  Checker c;
  Event run;
  run.op = Op::run;
  run.phase = Phase::info;
  run.detail = "limit=1";
  c.add(run);
  HistoryBuilder h(1);
  h.hold(1, 0, 1, 5, "a").at(6, 1, Op::release, Phase::fail, "a");
  for (const Event& e : h.sorted())
    if (e.op != Op::run) c.add(e);
  EXPECT_EQ(c.finish().broken_leases, 0);
}

}  // namespace
}  // namespace semsim
