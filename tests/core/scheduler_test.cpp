#include <gtest/gtest.h>

#include <string>

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

}  // namespace
}  // namespace semsim
