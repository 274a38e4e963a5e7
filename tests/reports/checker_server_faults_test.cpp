// Server faults in a history: server_faults counts them; lost_permits counts the held permits
// granted since the instant a fault's lost_since_us names (and not yet timed out).
#include <gtest/gtest.h>

#include "history_builder.h"
#include "marks/coverage_marks.h"

namespace semsim {
namespace {

using test::HistoryBuilder;

Event fault(std::uint64_t seq, double t_ms, Op op, std::string detail) {
  Event e;
  e.seq = seq;
  e.true_us = static_cast<std::int64_t>(t_ms * 1000);
  e.client_us = e.true_us;
  e.op = op;
  e.phase = Phase::ok;
  e.detail = std::move(detail);
  return e;
}

TEST(CheckerServerFaults, ARestartWithoutPersistenceLosesEveryHeldPermit) {
  // Limit 2, timeout 10 s. Clients 1 and 2 hold from 10 and 20 ms; client 3 held [30, 40).
  // Redis restarts empty at 100 ms (lost_since_us=0): the two permits still believed held are lost.
  HistoryBuilder h(2, 4, 10'000);
  h.hold(3, 25, 30, 40).at(0, 1, Op::acquire, Phase::invoke).at(10, 1, Op::acquire, Phase::ok, "a");
  h.at(0, 2, Op::acquire, Phase::invoke).at(20, 2, Op::acquire, Phase::ok, "b");
  h.events.push_back(fault(100, 100, Op::redis_restart, "persistence=none lost_since_us=0"));
  h.end(200);
  const MarkWatch lost(Mark::permit_lost_in_fault);
  const Summary s = h.check();
  EXPECT_TRUE(lost.hit());
  EXPECT_EQ(s.server_faults, 1);
  EXPECT_EQ(s.lost_permits, 2);
}

TEST(CheckerServerFaults, AFailoverLosesOnlyTheGrantsOfItsLag) {
  // Grants at 10 ms and 150 ms; a failover at 300 ms with a lag of 200 ms keeps what Redis had at
  // 100 ms: the 150 ms grant is lost, the 10 ms one is not.
  HistoryBuilder h(2, 4, 10'000);
  h.at(0, 1, Op::acquire, Phase::invoke).at(10, 1, Op::acquire, Phase::ok, "a");
  h.at(140, 2, Op::acquire, Phase::invoke).at(150, 2, Op::acquire, Phase::ok, "b");
  h.events.push_back(fault(100, 300, Op::failover, "lag_us=200000 lost_since_us=100000"));
  h.end(400);
  const Summary s = h.check();
  EXPECT_EQ(s.server_faults, 1);
  EXPECT_EQ(s.lost_permits, 1);
}

TEST(CheckerServerFaults, APermitPastItsTimeoutOrReleasedIsNotLost) {
  // Timeout 100 ms. Client 1's grant at 10 ms has timed out by the restart at 200 ms; client 2
  // released before it. Nothing held is lost; a pause and a disconnect lose nothing either.
  HistoryBuilder h(2, 4, 100);
  h.at(0, 1, Op::acquire, Phase::invoke).at(10, 1, Op::acquire, Phase::ok, "a");
  h.hold(2, 140, 150, 180, "b");
  h.events.push_back(fault(100, 200, Op::redis_restart, "persistence=none lost_since_us=0"));
  h.events.push_back(fault(101, 210, Op::disconnect, ""));
  h.events.push_back(fault(102, 220, Op::redis_pause, "length_us=1000"));
  h.events.push_back(fault(103, 230, Op::redis_restart, "persistence=aof-always"));
  h.end(300);
  const Summary s = h.check();
  EXPECT_EQ(s.server_faults, 4);
  EXPECT_EQ(s.lost_permits, 0);
}

// The edge of "later than the fault's time minus the timeout": a grant exactly the timeout
// (100 ms) before the restart has run out by then; one 1 µs later has not.
TEST(CheckerServerFaults, AGrantExactlyATimeoutBeforeTheFaultIsNotLost) {
  // Limit 2. Client 1 granted at 100 ms, client 2 at 100.001 ms, both still holding when Redis
  // restarts empty at 200 ms: only client 2's permit is lost.
  HistoryBuilder h(2, 4, 100);
  h.at(90, 1, Op::acquire, Phase::invoke).at(100, 1, Op::acquire, Phase::ok, "a");
  h.at(90, 2, Op::acquire, Phase::invoke).at(100.001, 2, Op::acquire, Phase::ok, "b");
  h.events.push_back(fault(100, 200, Op::redis_restart, "persistence=none lost_since_us=0"));
  h.end(300);
  EXPECT_EQ(h.check().lost_permits, 1);
}

TEST(CheckerServerFaults, AMalformedFaultDetailIsAHistoryError) {
  HistoryBuilder h(1);
  h.events.push_back(fault(100, 10, Op::failover, "lost_since_us=soon"));
  EXPECT_THROW(h.check(), HistoryError);
}

}  // namespace
}  // namespace semsim
