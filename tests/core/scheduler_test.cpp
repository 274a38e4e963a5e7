#include <gtest/gtest.h>

#include <string>

#include "sim/core/scheduler.h"

namespace semsim {
namespace {

TEST(Scheduler, RunsEventsInTimeOrderAndTiesFirstInFirstOut) {
  Scheduler s;
  std::string order;
  s.at(Micros(20), [&] { order += "c"; });
  s.at(Micros(10), [&] { order += "a"; });
  s.at(Micros(10), [&] { order += "b"; });
  s.at(Micros(30), [&] { order += "d"; });
  while (!s.empty()) s.next();
  EXPECT_EQ(order, "abcd");
  EXPECT_EQ(s.now(), Micros(30));
}

TEST(Scheduler, NothingIsScheduledInThePast) {
  Scheduler s;
  Micros seen{-1};
  s.at(Micros(50), [&] { s.at(Micros(10), [&] { seen = s.now(); }); });
  while (!s.empty()) s.next();
  EXPECT_EQ(seen, Micros(50));
}

TEST(Scheduler, BatchesOnlyDeliveriesDueAtTheSameInstant) {
  Scheduler s;
  const auto delivery = [](std::string name) { return Delivery{{Command{std::move(name)}}, [](std::vector<Reply>) {}, {}}; };
  s.deliver_at(Micros(5), delivery("a"));
  s.deliver_at(Micros(5), delivery("b"));
  s.at(Micros(5), [] {});
  s.deliver_at(Micros(5), delivery("c"));
  s.deliver_at(Micros(6), delivery("d"));
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
