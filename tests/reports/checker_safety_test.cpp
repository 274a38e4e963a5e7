// Safety: holds, over-admission, episodes and their witness, ties, crashes, pauses, info.
#include <gtest/gtest.h>

#include "history_builder.h"
#include "marks/coverage_marks.h"

namespace semsim {
namespace {

using test::HistoryBuilder;

TEST(CheckerSafety, TwoOverlappingHoldersWithLimitOneAreOneOverAdmission) {
  // Client 1 holds [10, 50) ms, client 2 holds [30, 80) ms: two holders on [30, 50) = 20 ms.
  HistoryBuilder h(/*limit=*/1);
  // Client 2's clock is 10 ms behind true time.
  h.hold(1, 0, 10, 50, "a")
      .at(20, 2, Op::acquire, Phase::invoke, "", -10)
      .at(30, 2, Op::acquire, Phase::ok, "b", -10)
      .at(80, 2, Op::release, Phase::invoke, "b", -10)
      .end(100);
  const MarkWatch stolen(Mark::steal);
  Summary s = h.check();
  EXPECT_TRUE(stolen.hit());
  EXPECT_EQ(s.max_holders, 2);
  EXPECT_EQ(s.over_admission, 1);
  EXPECT_EQ(s.over_limit_us, 20'000);
  EXPECT_EQ(s.steals, 1);  // client 2's grant landed while client 1 held the only permit
  EXPECT_EQ(s.safety, Verdict::invalid);
  ASSERT_EQ(s.episode_count, 1);
  ASSERT_EQ(s.episodes.size(), 1u);
  const Episode& e = s.episodes[0];
  EXPECT_EQ(e.start_us, 30'000);
  EXPECT_EQ(e.end_us, 50'000);
  EXPECT_FALSE(e.open);
  EXPECT_EQ(e.peak_holders, 2);
  // The witness: limit + 1 = 2 holds, earliest first, with their identifiers and each holder's
  // clock at its grant.
  ASSERT_EQ(e.witness.size(), 2u);
  EXPECT_EQ(e.witness[0], (HoldRef{1, "a", 10'000, 0}));
  EXPECT_EQ(e.witness[1], (HoldRef{2, "b", 30'000, -10'000}));
}

TEST(CheckerSafety, ReleaseAndGrantAtTheSameInstantDoNotOverlapInEitherSeqOrder) {
  // [10, 50) and [50, 90): half-open intervals that touch. First the grant is logged before the
  // release at t = 50, then after it; neither order counts two holders.
  for (bool grant_first : {true, false}) {
    HistoryBuilder h(1);
    h.at(0, 1, Op::acquire, Phase::invoke).at(10, 1, Op::acquire, Phase::ok, "a");
    h.at(40, 2, Op::acquire, Phase::invoke);
    if (grant_first) {
      h.at(50, 2, Op::acquire, Phase::ok, "b").at(50, 1, Op::release, Phase::invoke, "a");
    } else {
      h.at(50, 1, Op::release, Phase::invoke, "a").at(50, 2, Op::acquire, Phase::ok, "b");
    }
    h.at(90, 2, Op::release, Phase::invoke, "b").end(100);
    Summary s = h.check();
    EXPECT_EQ(s.max_holders, 1) << grant_first;
    EXPECT_EQ(s.over_limit_us, 0) << grant_first;
    EXPECT_EQ(s.steals, 0) << grant_first;
    EXPECT_EQ(s.episode_count, 0) << grant_first;
    EXPECT_EQ(s.safety, Verdict::valid) << grant_first;
  }
}

TEST(CheckerSafety, AHoldThatStartsAndEndsInOneInstantIsEmpty) {
  HistoryBuilder h(1);
  h.hold(1, 0, 10, 50).at(20, 2, Op::acquire, Phase::ok).at(20, 2, Op::release, Phase::invoke).end(60);
  Summary s = h.check();
  EXPECT_EQ(s.max_holders, 1);
  EXPECT_EQ(s.safety, Verdict::valid);
}

TEST(CheckerSafety, CrashEndsAHold) {
  // Client 1 holds [10, 40) and crashes at 40; client 2 is granted at 40 and at 30 in two runs.
  HistoryBuilder after(1);
  after.at(10, 1, Op::acquire, Phase::ok).at(40, 1, Op::crash, Phase::ok);
  after.at(40, 2, Op::acquire, Phase::ok).end(100);
  EXPECT_EQ(after.check().max_holders, 1);

  HistoryBuilder before(1);
  before.at(10, 1, Op::acquire, Phase::ok).at(30, 2, Op::acquire, Phase::ok);
  before.at(40, 1, Op::crash, Phase::ok).end(100);
  Summary s = before.check();
  EXPECT_EQ(s.max_holders, 2);
  EXPECT_EQ(s.over_limit_us, 10'000);  // [30, 40)
}

TEST(CheckerSafety, PauseDoesNotEndAHold) {
  // Client 1 holds [10, 70) though paused on [20, 60); client 2 holds [50, 90): overlap [50, 70).
  HistoryBuilder h(1);
  h.at(10, 1, Op::acquire, Phase::ok, "a").at(20, 1, Op::pause, Phase::ok);
  h.at(50, 2, Op::acquire, Phase::ok, "b").at(60, 1, Op::resume, Phase::ok);
  h.at(70, 1, Op::release, Phase::invoke, "a").at(90, 2, Op::release, Phase::invoke).end(100);
  Summary s = h.check();
  EXPECT_EQ(s.max_holders, 2);
  EXPECT_EQ(s.over_limit_us, 20'000);
}

TEST(CheckerSafety, RefreshFailEndsAHoldButRefreshOkDoesNot) {
  HistoryBuilder h(1);
  h.at(10, 1, Op::acquire, Phase::ok).at(20, 1, Op::refresh, Phase::invoke);
  h.at(21, 1, Op::refresh, Phase::ok).at(30, 1, Op::refresh, Phase::invoke);
  h.at(35, 2, Op::acquire, Phase::ok).at(40, 1, Op::refresh, Phase::fail).end(100);
  Summary s = h.check();
  EXPECT_EQ(s.over_limit_us, 5'000);  // [35, 40): client 1 held until its refresh failed
}

TEST(CheckerSafety, InfoAcquireThatMayHaveSucceededMakesSafetyUnknown) {
  // Client 1's acquire outcome is unknown at 10; it releases at 30. Client 2 holds [20, 40).
  // Counting client 1 as possibly holding on [10, 30): two possible holders on [20, 30).
  HistoryBuilder h(1);
  h.at(0, 1, Op::acquire, Phase::invoke).at(10, 1, Op::acquire, Phase::info);
  h.hold(2, 15, 20, 40).at(30, 1, Op::release, Phase::invoke).end(100);
  Summary s = h.check();
  EXPECT_EQ(s.max_holders, 1);
  EXPECT_EQ(s.over_admission, 0);
  EXPECT_EQ(s.max_possible_holders, 2);
  EXPECT_EQ(s.possible_over_limit_us, 10'000);
  EXPECT_EQ(s.unknown, 1);
  EXPECT_EQ(s.acquire_unknown, 1);
  EXPECT_EQ(s.safety, Verdict::unknown);
}

TEST(CheckerSafety, CertainOverAdmissionIsInvalidEvenWithInfoAround) {
  HistoryBuilder h(1);
  h.at(0, 3, Op::acquire, Phase::invoke).at(1, 3, Op::acquire, Phase::info);
  h.hold(1, 0, 10, 50).hold(2, 0, 30, 80).end(100);
  EXPECT_EQ(h.check().safety, Verdict::invalid);
}

TEST(CheckerSafety, EpisodeStillOpenAtTheEndRunsToTheLastEvent) {
  // Two holders from 20 ms on, nobody releases, the history ends at 100 ms: 80 ms over the limit.
  HistoryBuilder h(1);
  h.at(10, 1, Op::acquire, Phase::ok, "a").at(20, 2, Op::acquire, Phase::ok, "b").end(100);
  Summary s = h.check();
  EXPECT_EQ(s.over_limit_us, 80'000);
  ASSERT_EQ(s.episodes.size(), 1u);
  EXPECT_TRUE(s.episodes[0].open);
  EXPECT_EQ(s.episodes[0].end_us, 100'000);
}

TEST(CheckerSafety, StealsCountGrantsAboveTheLimitAndEpisodesCountStretches) {
  // limit 2. Holds: c1 [0, 100), c2 [10, 100), c3 [20, 30) steal 1, c4 [25, 40) steal 2 (3 holders
  // on [25, 30)), c5 and c6 granted together at 60 while c1 and c2 still hold: 2 more steals.
  // Over the limit: [20, 40) and [60, 100) -> 2 episodes, 60 ms. Peak 4 holders.
  HistoryBuilder h(2);
  h.at(0, 1, Op::acquire, Phase::ok).at(10, 2, Op::acquire, Phase::ok);
  h.at(20, 3, Op::acquire, Phase::ok).at(25, 4, Op::acquire, Phase::ok);
  h.at(30, 3, Op::release, Phase::invoke).at(40, 4, Op::release, Phase::invoke);
  h.at(60, 5, Op::acquire, Phase::ok).at(60, 6, Op::acquire, Phase::ok);
  h.at(100, 1, Op::release, Phase::invoke).at(100, 2, Op::release, Phase::invoke);
  h.at(100, 5, Op::release, Phase::invoke).at(100, 6, Op::release, Phase::invoke).end(110);
  Summary s = h.check();
  EXPECT_EQ(s.steals, 4);
  EXPECT_EQ(s.episode_count, 2);
  EXPECT_EQ(s.over_limit_us, 60'000);
  EXPECT_EQ(s.max_holders, 4);
  EXPECT_EQ(s.over_admission, 2);
  ASSERT_EQ(s.episodes.size(), 2u);
  EXPECT_EQ(s.episodes[0].peak_holders, 4);
  EXPECT_EQ(s.episodes[0].witness.size(), 3u);
  EXPECT_EQ(s.episodes[1].start_us, 60'000);
  EXPECT_EQ(s.episodes[1].end_us, 100'000);
}

// More grants in one instant than holders above the limit: limit 2, nobody holding, three clients
// granted at 10 ms. Three hold, one above the limit: one steal, min(grants 3, holders 3 - limit 2),
// not three (the mutation audit of issue 27: counting every grant of the instant).
TEST(CheckerSafety, StealsAtOneInstantAreAtMostTheHoldersAboveTheLimit) {
  HistoryBuilder h(2);
  for (int c = 1; c <= 3; ++c) h.at(0, c, Op::acquire, Phase::invoke);
  for (int c = 1; c <= 3; ++c) h.at(10, c, Op::acquire, Phase::ok);
  for (int c = 1; c <= 3; ++c) h.at(50, c, Op::release, Phase::invoke);
  h.end(60);
  const Summary s = h.check();
  EXPECT_EQ(s.max_holders, 3);
  EXPECT_EQ(s.over_admission, 1);
  EXPECT_EQ(s.steals, 1);
}

// "A second ok naming a permit the client already holds changes nothing": not its start either.
// Limit 1. Client 1 holds "a1" from 10 ms; client 2 is granted at 20 ms (a steal, episode 1);
// client 1 is told ok for "a1" again at 30 ms: no steal, its hold still starts at 10 ms.
// Client 2 releases at 40 ms; client 3 granted at 50 ms opens episode 2, whose witness shows
// client 1's hold since 10 ms with its first identifier.
TEST(CheckerSafety, ASecondOkWhileHoldingKeepsTheHoldsStart) {
  HistoryBuilder h(1);
  h.at(0, 1, Op::acquire, Phase::invoke).at(10, 1, Op::acquire, Phase::ok, "a1");
  h.hold(2, 15, 20, 40, "b");
  h.at(25, 1, Op::acquire, Phase::invoke).at(30, 1, Op::acquire, Phase::ok, "a1");
  h.hold(3, 45, 50, 60, "c");
  h.at(70, 1, Op::release, Phase::invoke, "a1").end(80);
  const Summary s = h.check();
  EXPECT_EQ(s.max_holders, 2);
  EXPECT_EQ(s.steals, 2);  // client 2 at 20 ms, client 3 at 50 ms
  // Each witness as "client:identifier@since_us".
  const auto named = [](const Episode& e) {
    std::string out;
    for (const HoldRef& r : e.witness)
      out += std::to_string(r.client) + ":" + r.identifier + "@" + std::to_string(r.since_us) + " ";
    return out;
  };
  ASSERT_EQ(s.episodes.size(), 2u);
  EXPECT_EQ(named(s.episodes[0]), "1:a1@10000 2:b@20000 ");
  EXPECT_EQ(named(s.episodes[1]), "1:a1@10000 3:c@50000 ");
  EXPECT_EQ(s.over_limit_us, 30'000);  // [20, 40) and [50, 60)
}

TEST(CheckerSafety, OutOfOrderEventsAreRejected) {
  CheckOptions o;
  o.limit = 1;
  Checker c(o);
  Event e;
  e.seq = 5;
  e.true_us = 100;
  c.add(e);
  e.seq = 6;
  e.true_us = 99;
  EXPECT_THROW(c.add(e), HistoryError);
}

TEST(CheckerSafety, NoLimitIsAnErrorAtTheFirstClientEvent) {
  Checker c;
  Event e;
  EXPECT_THROW(c.add(e), HistoryError);
}

TEST(CheckerSafety, ARunRowWithALimitBelowOneIsRefused) {
  for (const char* bad : {"limit=-3", "limit=0", "timeout_ms=-1", "clients=-2", "clients=0"}) {
    Checker c;
    Event e;
    e.op = Op::run;
    e.phase = Phase::info;
    e.detail = std::string("variant=basic ") + (std::string(bad).starts_with("limit") ? "" : "limit=1 ") + bad;
    try {
      c.add(e);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const HistoryError& err) {
      EXPECT_NE(std::string(err.what()).find(bad), std::string::npos) << err.what();
    }
  }
}

// A run row's mode is one of the command line's: a hand-edited one (markup, a typo) is refused,
// not judged as real time, nor carried into the pages.
TEST(CheckerSafety, ARunRowWithAModeNoRunHasIsRefused) {
  for (const char* bad : {"mode=\"<img src=x onerror=alert(1)>\"", "mode=Virtual", "mode=real", "mode="}) {
    Checker c;
    Event e;
    e.op = Op::run;
    e.phase = Phase::info;
    e.detail = std::string("variant=basic limit=1 ") + bad;
    try {
      c.add(e);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const HistoryError& err) {
      EXPECT_NE(std::string(err.what()).find("is not a time mode (virtual or paced"), std::string::npos) << err.what();
    }
  }
  for (const char* good : {"mode=virtual", "mode=paced", ""}) {
    Checker c;
    Event e;
    e.op = Op::run;
    e.phase = Phase::info;
    e.detail = std::string("variant=basic limit=1 ") + good;
    EXPECT_NO_THROW(c.add(e)) << good;
  }
}

// A run row is held to the command line's bounds (run_rows.h), and to what the arithmetic on its
// values can hold: limit 4294967297 was cast to int and judged as limit 1; timeout_ms near 2^63
// overflowed timeout_ms + 1000 (UBSan, checker.cpp:64).
TEST(CheckerSafety, ARunRowOutsideTheCommandLinesBoundsIsRefused) {
  for (const char* bad : {"limit=4294967297", "limit=1000001", "clients=4294967297", "clients=1000001",
                          "timeout_ms=9223372036854775807", "timeout_ms=360000001", "duration_ms=360000001"}) {
    Checker c;
    Event e;
    e.op = Op::run;
    e.phase = Phase::info;
    e.detail = std::string("variant=basic ") + (std::string(bad).starts_with("limit") ? "" : "limit=1 ") + bad;
    try {
      c.add(e);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const HistoryError& err) {
      EXPECT_NE(std::string(err.what()).find(bad), std::string::npos) << err.what();
      EXPECT_NE(std::string(err.what()).find("out of range"), std::string::npos) << err.what();
    }
  }
  // The bounds themselves are accepted.
  Checker c;
  Event e;
  e.op = Op::run;
  e.phase = Phase::info;
  e.detail = "limit=1000000 clients=1000000 timeout_ms=360000000 duration_ms=360000000";
  EXPECT_NO_THROW(c.add(e));
  EXPECT_EQ(c.finish().limit, 1'000'000);
  EXPECT_EQ(c.finish().liveness_bound_us, 360'001'000'000);
}

// The run's options are the first row, once: one later on would change the limit mid-history.
TEST(CheckerSafety, ARunRowWithTheOptionsAfterTheFirstRowIsRefused) {
  HistoryBuilder h(1);
  h.at(1, 1, Op::acquire, Phase::invoke);
  Event again = h.events.front();
  again.seq = 99;
  again.true_us = 2000;
  h.events.push_back(again);
  Checker c;
  const std::vector<Event> events = h.sorted();
  c.add(events[0]);
  c.add(events[1]);
  EXPECT_TRUE(c.saw_run_row());
  EXPECT_THROW(c.add(events[2]), HistoryError);
}

}  // namespace
}  // namespace semsim
