// A run's progress in a CI log (sim/run/log_progress.h): whole lines at a steady pace, none more
// often than the period, each saying how far the simulated time got.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "sim/run/log_progress.h"

namespace semsim {
namespace {

TEST(LogProgress, ALineEveryPeriodOfWallTimeSayingHowFarTheRunGot) {
  std::ostringstream log;
  LogProgress progress(log, /*duration_us=*/60'000'000, /*period_s=*/15);
  double wall = 0;
  // 120 s of wall time for a 60 s run, an event every ms of simulated time, the wall clock 2x slower.
  for (std::int64_t t = 0; t < 60'000'000; t += 1000) {
    wall = static_cast<double>(t) / 500'000.0;
    progress.event(t, [&] { return wall; });
  }
  // Checked every 1024 events (about 2 s of wall time here): a line 15-17 s after the last.
  const std::regex line(R"(\[semsim\] (\d+\.\d{3}) s of 60\.000 s simulated \((\d+)%\), (\d+) events, (\d+) s wall)");
  std::istringstream lines(log.str());
  std::vector<double> walls;
  for (std::string text; std::getline(lines, text);) {
    std::smatch m;
    ASSERT_TRUE(std::regex_match(text, m, line)) << text;
    const double simulated = std::stod(m[1]), wall_s = std::stod(m[4]);
    EXPECT_NEAR(simulated, wall_s / 2, 0.6) << text;  // how far the run got when it was written
    EXPECT_EQ(std::stoi(m[2]), static_cast<int>(simulated / 60 * 100 + 0.5)) << text;
    walls.push_back(wall_s);
  }
  ASSERT_EQ(walls.size(), 7u) << log.str();
  for (std::size_t i = 1; i < walls.size(); ++i) EXPECT_NEAR(walls[i] - walls[i - 1], 16, 1.1) << log.str();
}

TEST(LogProgress, NothingBeforeThePeriodHasPassed) {
  std::ostringstream log;
  LogProgress progress(log, 10'000'000, 15);
  for (int i = 0; i < 100'000; ++i) progress.event(i, [] { return 14.9; });
  EXPECT_EQ(log.str(), "");
}

}  // namespace
}  // namespace semsim
