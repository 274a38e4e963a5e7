#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/core/scheduler.h"

namespace semsim {
namespace {

TEST(Scheduler, RunsEventsInTimeOrderAndTiesFirstInFirstOut) {
  Scheduler s;
  std::string order;
  s.at(at_us(20), [&] { order += "c"; });
  s.at(at_us(10), [&] { order += "a"; });
  s.at(at_us(10), [&] { order += "b"; });
  s.at(at_us(30), [&] { order += "d"; });
  while (!s.empty()) s.next();
  EXPECT_EQ(order, "abcd");
  EXPECT_EQ(s.now(), at_us(30));
}

TEST(Scheduler, NothingIsScheduledInThePast) {
  Scheduler s;
  TrueTime seen = at_us(-1);
  s.at(at_us(50), [&] { s.at(at_us(10), [&] { seen = s.now(); }); });
  while (!s.empty()) s.next();
  EXPECT_EQ(seen, at_us(50));
}

TEST(Scheduler, BatchesOnlyDeliveriesDueAtTheSameInstant) {
  Scheduler s;
  const auto delivery = [](std::string name) { return Delivery{{Command{std::move(name)}}, [](Replies) {}, {}}; };
  s.deliver_at(at_us(5), delivery("a"));
  s.deliver_at(at_us(5), delivery("b"));
  s.at(at_us(5), [] {});
  s.deliver_at(at_us(5), delivery("c"));
  s.deliver_at(at_us(6), delivery("d"));
  auto first = s.next();
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first[0].commands[0][0], "a");
  EXPECT_EQ(first[1].commands[0][0], "b");
  EXPECT_TRUE(s.next().empty());  // the step
  auto third = s.next();
  ASSERT_EQ(third.size(), 1u);
  EXPECT_EQ(third[0].commands[0][0], "c");
  EXPECT_EQ(s.next().size(), 1u);
}

// What take_ahead hands out: the deliveries that nothing queued can precede on Redis. A step at s
// can cause a delivery from s + min_send on, a delivery at d from d + min_round_trip.
std::string taken_ahead(Scheduler& s, Scheduler::Bounds bounds) {
  std::vector<Scheduler::Ahead> out;
  s.take_ahead(bounds, out);
  std::string names;
  for (const auto& a : out) names += a.delivery.commands[0][0];
  return names;
}

Delivery named(std::string name) { return Delivery{{Command{std::move(name)}}, [](Replies) {}, {}}; }

TEST(Scheduler, TakesAheadTheDeliveriesBeforeTheHorizonOfQueuedStepsAndDeliveries) {
  const Scheduler::Bounds bounds{at_us(1000), Micros(10), Micros(30)};
  {
    Scheduler s;  // a step at 5 may send from 15 on: 15 is still taken, 16 is not
    s.deliver_at(at_us(1), named("a"));
    s.at(at_us(5), [] {});
    s.deliver_at(at_us(15), named("b"));
    s.deliver_at(at_us(16), named("c"));
    EXPECT_EQ(taken_ahead(s, bounds), "ab");
    EXPECT_FALSE(s.next_is_delivery());  // the step stays queued, first
    s.next();
    EXPECT_EQ(s.next().at(0).commands[0][0], "c");
  }
  {
    Scheduler s;  // with no step, the first delivery's round trip bounds the rest: 1 + 30
    s.deliver_at(at_us(1), named("a"));
    s.deliver_at(at_us(31), named("b"));
    s.deliver_at(at_us(32), named("c"));
    EXPECT_EQ(taken_ahead(s, bounds), "ab");
  }
}

TEST(Scheduler, TakesNothingAheadPastAFenceOrTheEndOfTheDrive) {
  Scheduler s;
  s.deliver_at(at_us(1), named("a"));
  s.fence_at(at_us(2), [] {});
  s.deliver_at(at_us(2), named("b"));  // after the fence at the same instant: it acts first
  EXPECT_EQ(taken_ahead(s, {at_us(1000), Micros(10), Micros(30)}), "a");
  EXPECT_TRUE(s.next_is_fence());
  s.next();
  s.deliver_at(at_us(3), named("c"));
  EXPECT_EQ(taken_ahead(s, {at_us(3), Micros(10), Micros(30)}), "b");  // c is at the drive's end
}

}  // namespace
}  // namespace semsim
