// Histories of several masters (Redlock): a permit stands on the masters that granted it
// (granted= in its outcome row); a master that comes back without its data takes its vote away,
// and lost_permits counts the permits that fall below the quorum by it. Hand-computed.
#include <gtest/gtest.h>

#include "history_builder.h"
#include "reports/history/run_rows.h"

namespace semsim {
namespace {

using test::HistoryBuilder;

// A history of 5 masters, quorum 3, limit 1, timeout 10 s, with these rows after the run row.
HistoryBuilder five_masters() {
  HistoryBuilder h(1, 4, 10'000);
  KeyValues kv = KeyValues::parse(h.events.front().detail);
  kv.set("masters", 5).set("quorum", 3);
  h.events.front() = run_start_event(0, 0, kv);
  return h;
}

Event row(std::uint64_t seq, double t_ms, int client, Op op, Phase phase, std::string detail, std::string id = "") {
  Event e;
  e.seq = seq;
  e.true_us = static_cast<std::int64_t>(t_ms * 1000);
  e.client_us = e.true_us;
  e.client = client;
  e.op = op;
  e.phase = phase;
  e.identifier = std::move(id);
  e.detail = std::move(detail);
  return e;
}

TEST(CheckerMasters, ARestartOfOneOfTheHoldersThreeMastersLosesThePermit) {
  // Client 1 holds on masters 1, 2, 3 from 50 ms; master 3 restarts empty at 1 s: 2 votes of 3.
  HistoryBuilder h = five_masters();
  h.at(0, 1, Op::acquire, Phase::invoke);
  h.events.push_back(row(100, 50, 1, Op::acquire, Phase::ok, "votes=3/5 granted=1,2,3 elapsed_us=50000 validity_us=9848000", "a"));
  h.events.push_back(row(101, 1000, 0, Op::redis_restart, Phase::ok, "master=3 persistence=none lost_since_us=0"));
  h.end(2000);
  const Summary s = h.check();
  EXPECT_EQ(s.server_faults, 1);
  EXPECT_EQ(s.lost_permits, 1);
}

TEST(CheckerMasters, ARestartOfAMasterOutsideTheQuorumOrOnceTooFewLosesNothingMore) {
  // Client 1 holds on masters 1..4: master 5 restarting loses nothing; master 4 then leaves 3
  // votes (still a quorum); master 3 leaves 2: lost, once; master 2 after that counts no more.
  HistoryBuilder h = five_masters();
  h.at(0, 1, Op::acquire, Phase::invoke);
  h.events.push_back(row(100, 10, 1, Op::acquire, Phase::ok, "votes=4/5 granted=1,2,3,4 elapsed_us=10000 validity_us=1", "a"));
  h.events.push_back(row(101, 100, 0, Op::redis_restart, Phase::ok, "master=5 persistence=none lost_since_us=0"));
  h.events.push_back(row(102, 200, 0, Op::redis_restart, Phase::ok, "master=4 persistence=none lost_since_us=0"));
  h.events.push_back(row(103, 300, 0, Op::redis_restart, Phase::ok, "master=3 persistence=none lost_since_us=0"));
  h.events.push_back(row(104, 400, 0, Op::redis_restart, Phase::ok, "master=2 persistence=none lost_since_us=0"));
  h.end(2000);
  EXPECT_EQ(h.check().lost_permits, 1);
}

TEST(CheckerMasters, ADelayedRestartPastTheTimeoutAndAofLoseNothing) {
  // Master 3 back 10.1 s after a crash at 1 s: the 50 ms grant has timed out by then (10 s).
  // Master 2 restarts with aof-always: no lost_since_us, nothing lost.
  HistoryBuilder h = five_masters();
  h.at(0, 1, Op::acquire, Phase::invoke);
  h.events.push_back(row(100, 50, 1, Op::acquire, Phase::ok, "votes=3/5 granted=1,2,3 elapsed_us=50000 validity_us=9848000", "a"));
  h.events.push_back(row(101, 1000, 0, Op::redis_restart, Phase::ok,
                         "master=3 persistence=none down_us=10100000 lost_since_us=0"));
  h.events.push_back(row(102, 1100, 0, Op::redis_restart, Phase::ok, "master=2 persistence=aof-always"));
  h.end(12000);
  EXPECT_EQ(h.check().lost_permits, 0);
}

TEST(CheckerMasters, ARefreshRewritesTheVotesAndAReleaseEndsThem) {
  // Client 1's refresh at 500 ms is kept on masters 1, 4, 5 (and re-acquired on 2): master 3's
  // restart at 600 ms takes nothing. Client 2 released before master 1's restart at 700 ms: only
  // client 1 loses a vote there (4 left).
  HistoryBuilder h = five_masters();
  h.at(0, 1, Op::acquire, Phase::invoke);
  h.events.push_back(row(100, 10, 1, Op::acquire, Phase::ok, "votes=3/5 granted=1,2,3", "a"));
  h.at(490, 1, Op::refresh, Phase::invoke, "a");
  h.events.push_back(row(101, 500, 1, Op::refresh, Phase::ok, "votes=3/5 granted=1,4,5 reacquired=2", "a"));
  h.events.push_back(row(102, 600, 0, Op::redis_restart, Phase::ok, "master=3 persistence=none lost_since_us=0"));
  h.hold(2, 610, 620, 650, "b");
  h.events.push_back(row(103, 700, 0, Op::redis_restart, Phase::ok, "master=1 persistence=none lost_since_us=0"));
  h.end(2000);
  EXPECT_EQ(h.check().lost_permits, 0);
}

// The edges of "written at or after X and less than the timeout before the master is back":
// votes written exactly at lost_since_us are among the lost writes; votes written exactly the
// timeout (10 s) before the master is back have run out by then and are not taken.
TEST(CheckerMasters, VotesWrittenExactlyAtLostSinceAreTaken) {
  // Master 3 comes back at 1 s without the writes from 300 ms on: client 1's votes, written at
  // 300 ms, are among them (2 of 3 left: lost); client 2's, written 1 µs earlier, are not.
  for (const auto& [written_ms, lost] : {std::pair{300.0, 1}, std::pair{299.999, 0}}) {
    HistoryBuilder h = five_masters();
    h.at(0, 1, Op::acquire, Phase::invoke);
    h.events.push_back(row(100, written_ms, 1, Op::acquire, Phase::ok, "votes=3/5 granted=1,2,3", "a"));
    h.events.push_back(
        row(101, 1000, 0, Op::redis_restart, Phase::ok, "master=3 persistence=none lost_since_us=300000"));
    h.end(2000);
    EXPECT_EQ(h.check().lost_permits, lost) << "votes written at " << written_ms << " ms";
  }
}

TEST(CheckerMasters, VotesExactlyATimeoutOldWhenTheMasterIsBackAreNotTaken) {
  // Votes written at 50 ms; master 3 crashes at 1 s and is back at 1 s + down_us. Back at
  // 10.050 s they are exactly 10 s old: run out, nothing lost. Back 1 µs earlier: lost.
  for (const auto& [down_us, lost] : {std::pair{9'050'000, 0}, std::pair{9'049'999, 1}}) {
    HistoryBuilder h = five_masters();
    h.at(0, 1, Op::acquire, Phase::invoke);
    h.events.push_back(row(100, 50, 1, Op::acquire, Phase::ok, "votes=3/5 granted=1,2,3", "a"));
    h.events.push_back(row(101, 1000, 0, Op::redis_restart, Phase::ok,
                           "master=3 persistence=none down_us=" + std::to_string(down_us) + " lost_since_us=0"));
    h.end(12000);
    EXPECT_EQ(h.check().lost_permits, lost) << "down_us=" << down_us;
  }
}

TEST(CheckerMasters, AReleasedPermitHasNoVotesLeftToLose) {
  // Client 1 holds on masters 1, 2, 3 from 50 ms and releases at 100 ms: its votes end with the
  // release invoke. Master 3 restarting empty at 1 s takes nothing from a permit nobody believes
  // in: lost_permits 0. The same history without the release: 1.
  for (const bool released : {true, false}) {
    HistoryBuilder h = five_masters();
    h.at(0, 1, Op::acquire, Phase::invoke);
    h.events.push_back(row(100, 50, 1, Op::acquire, Phase::ok, "votes=3/5 granted=1,2,3", "a"));
    if (released) h.at(100, 1, Op::release, Phase::invoke, "a").at(101, 1, Op::release, Phase::ok, "a");
    h.events.push_back(row(101, 1000, 0, Op::redis_restart, Phase::ok, "master=3 persistence=none lost_since_us=0"));
    h.end(2000);
    EXPECT_EQ(h.check().lost_permits, released ? 0 : 1) << (released ? "released" : "held");
  }
}

TEST(CheckerMasters, OneMasterKeepsItsOwnDefinitionAndDowntimeMovesTheTimeoutCheck) {
  // No masters= in the run row: the held permit granted at 10 ms is lost at a restart at 100 ms;
  // with down_us the check is at its return: 100 ms + 10 s is past the 10 s timeout.
  HistoryBuilder at_once(1, 4, 10'000), delayed(1, 4, 10'000);
  for (HistoryBuilder* h : {&at_once, &delayed}) h->at(0, 1, Op::acquire, Phase::invoke).at(10, 1, Op::acquire, Phase::ok, "a");
  at_once.events.push_back(row(100, 100, 0, Op::redis_restart, Phase::ok, "persistence=none lost_since_us=0"));
  delayed.events.push_back(row(100, 100, 0, Op::redis_restart, Phase::ok, "persistence=none down_us=10000000 lost_since_us=0"));
  at_once.end(200);
  delayed.end(200);
  EXPECT_EQ(at_once.check().lost_permits, 1);
  EXPECT_EQ(delayed.check().lost_permits, 0);
}

// The run row of a driver run (limit 1, 2 clients, timeout 10 s) over 3 masters, quorum 2.
HistoryBuilder driver_over_three_masters() {
  HistoryBuilder h(1, 2, 10'000);
  KeyValues kv = KeyValues::parse(h.events.front().detail);
  kv.set("variant", "driver:node redlock-driver.js").set("masters", 3).set("quorum", 2);
  h.events.front() = run_start_event(0, 0, kv);
  return h;
}

TEST(CheckerMasters, ADriverRunOverSeveralMastersIsJudgedByItsHoldersWithLostPermitsUnknown) {
  // A driver over 3 masters: the acquire ok details are the library's identifiers, not votes. Two
  // holders from 1.5 s (the restart under a holder) over-admit; lost_permits cannot be counted.
  HistoryBuilder h = driver_over_three_masters();
  h.events.push_back(row(100, 0, 1, Op::acquire, Phase::invoke, "", "c1-1"));
  h.events.push_back(row(101, 500, 0, Op::redis_restart, Phase::ok, "master=2 persistence=none lost_since_us=0"));
  h.events.push_back(row(102, 1000, 2, Op::acquire, Phase::invoke, "", "c2-1"));
  h.events.push_back(row(103, 1006, 2, Op::acquire, Phase::ok, "e401b6d073ac28fa", "c2-1"));
  h.events.push_back(row(104, 1500, 1, Op::acquire, Phase::ok, "2fe6b777 fe55 da82", "c1-1"));
  h.events.push_back(row(105, 1600, 1, Op::refresh, Phase::invoke, "", "c1-1"));
  h.events.push_back(row(106, 1610, 1, Op::refresh, Phase::ok, "until=1769999999999", "c1-1"));
  h.end(2500);
  const Summary s = h.check();
  EXPECT_EQ(s.over_admission, 1);
  EXPECT_EQ(s.server_faults, 1);
  EXPECT_EQ(s.lost_permits, std::nullopt);
}

TEST(CheckerMasters, ADriverRunOverSeveralMastersWithoutLostWritesCountsNoLostPermits) {
  HistoryBuilder h = driver_over_three_masters();
  h.events.push_back(row(100, 0, 1, Op::acquire, Phase::invoke, "", "c1-1"));
  h.events.push_back(row(101, 5, 1, Op::acquire, Phase::ok, "token", "c1-1"));
  h.events.push_back(row(102, 500, 0, Op::redis_restart, Phase::ok, "master=2 persistence=aof-always"));
  h.end(1000, 6);  // its proxies carried 6 commands
  EXPECT_EQ(h.check().lost_permits, 0);
}

// No command through the proxies: the library's permits were on a Redis of its own, which no fault
// of semsim's touched (DEFINITIONS.md, "Exercised").
TEST(CheckerMasters, ADriverRunWhoseProxiesCarriedNoCommandCountsNoLostPermitsAtAll) {
  HistoryBuilder h = driver_over_three_masters();
  h.events.push_back(row(100, 0, 1, Op::acquire, Phase::invoke, "", "c1-1"));
  h.events.push_back(row(101, 5, 1, Op::acquire, Phase::ok, "token", "c1-1"));
  h.events.push_back(row(102, 500, 0, Op::redis_restart, Phase::ok, "master=2 persistence=aof-always"));
  h.end(1000, 0);
  EXPECT_EQ(h.check().lost_permits, std::nullopt);
}

}  // namespace
}  // namespace semsim
