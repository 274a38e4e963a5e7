// The unplanned delays of a driver run (sim/drivers/real_time_report.h), against hand-computed values.
#include <gtest/gtest.h>

#include "sim/drivers/real_time_report.h"

namespace semsim {
namespace {

TEST(DriverRealTimeReport, LagPercentilesAreNearestRankOverTheCommands) {
  LagMeter meter;
  for (std::int64_t lag : {5'000, 1'000, 3'000, 2'000, 150'000, 4'000, 6'000, 7'000, 8'000, 9'000}) meter.add(lag);
  meter.add(-3);  // a clock read a hair apart: no lag, not a negative one
  RealTimeReport r;
  meter.fill(r);
  EXPECT_EQ(r.commands, 11);
  EXPECT_EQ(r.lag_p50_us, 5'000);   // rank ceil(11 * 0.5) = 6 of 0,1,2,3,4,5,6,7,8,9,150 ms
  EXPECT_EQ(r.lag_p99_us, 150'000); // rank 11
  EXPECT_EQ(r.lag_max_us, 150'000);
  EXPECT_EQ(r.lagging, 1);          // over 100 ms
}

TEST(DriverRealTimeReport, WarnsWhenTheWorstDelayIsATenthOfTheTimeout) {
  RealTimeReport r;
  r.step_late_max_us = 49'000;
  EXPECT_EQ(stall_warning(r, 500'000), "");
  r.proxy_late_max_us = 50'000;
  EXPECT_NE(stall_warning(r, 500'000).find("50.0 ms, 10% of the semaphore's timeout"), std::string::npos);
  EXPECT_EQ(r.worst_us(), 50'000);
}

TEST(DriverRealTimeReport, CsvHasAHeaderAndOneRowOfTheSameWidth) {
  RealTimeReport r;
  r.commands = 3;
  r.lag_max_us = 2'500;
  const auto fields = [](const std::string& s) { return std::count(s.begin(), s.end(), ',') + 1; };
  EXPECT_EQ(fields(real_time_csv_header()), fields(real_time_csv_row(r)));
  EXPECT_EQ(real_time_csv_row(r), "3,0.0,0.0,2.5,0,0.0,0.0,0,0.0,0,0,0,0");
  r.never_ran = 2;
  r.overtaken = 1;
  EXPECT_EQ(real_time_csv_row(r), "3,0.0,0.0,2.5,0,0.0,0.0,0,0.0,0,0,2,1");
}

// A run with a planned command that never started, or one a later fault overtook, did not go as
// planned, and says which came first.
TEST(DriverRealTimeReport, APlannedCommandNeverStartedOrOvertakenIsNotAsPlanned) {
  RealTimeReport r;
  EXPECT_TRUE(as_planned(r));
  EXPECT_EQ(why_not_as_planned(r), "");
  r.overtaken = 1;
  r.first_off_plan = "client 1's acquire c1-1, due at 0 ms, had not started when its planned pause came at 50 ms";
  EXPECT_FALSE(as_planned(r));
  EXPECT_EQ(why_not_as_planned(r), "1 started only after a later fault of its client's plan (the first: " + r.first_off_plan + ")");
  r.never_ran = 2;
  EXPECT_EQ(why_not_as_planned(r).rfind("2 planned command(s) never started, 1 started only after", 0), 0u);
  EXPECT_NE(describe(r).find("; NOT AS PLANNED: 2 planned"), std::string::npos);
}

}  // namespace
}  // namespace semsim
