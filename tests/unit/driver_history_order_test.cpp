// A driver run's rows go to the history in true-time order (sim/drivers/history_order.h), numbered
// as they go; a row later than what is already written is placed at the last instant, and counted.
#include <gtest/gtest.h>

#include <vector>

#include "sim/drivers/history_order.h"

namespace semsim {
namespace {

Event at(std::int64_t t, int client) {
  Event e;
  e.true_us = t;
  e.client = client;
  return e;
}

TEST(DriverHistoryOrder, RowsGoOutSortedAndNumberedOnceNothingEarlierCanCome) {
  std::vector<Event> out;
  HistoryOrder order([&](const Event& e) { out.push_back(e); });
  order.add(at(30, 1));
  order.add(at(10, 2));
  order.add(at(20, 3));
  order.add(at(20, 4));  // a tie keeps the order rows came in
  order.release_before(20);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].client, 2);
  order.flush();
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[1].client, 3);
  EXPECT_EQ(out[2].client, 4);
  EXPECT_EQ(out[3].client, 1);
  for (std::size_t i = 0; i < out.size(); ++i) EXPECT_EQ(out[i].seq, i);
  EXPECT_EQ(order.late_rows(), 0);
}

TEST(DriverHistoryOrder, ALateRowIsPlacedAtTheLastInstantWrittenAndCounted) {
  std::vector<Event> out;
  HistoryOrder order([&](const Event& e) { out.push_back(e); });
  order.add(at(100, 1));
  order.release_before(200);
  order.add(at(40, 2));  // stamped 60 µs before what the history already holds
  order.add(at(150, 3));
  order.flush();
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[1].client, 2);
  EXPECT_EQ(out[1].true_us, 100);
  EXPECT_EQ(out[2].true_us, 150);
  EXPECT_EQ(order.late_rows(), 1);
  EXPECT_EQ(order.late_max_us(), 60);
}

}  // namespace
}  // namespace semsim
