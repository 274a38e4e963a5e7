// Statistics over the runs of a sweep: grouping by point, what counts as a run of a metric,
// and which interval each kind of metric gets.
#include <gtest/gtest.h>

#include <algorithm>

#include "reports/checks/summary_csv.h"
#include "reports/checks/sweep_stats.h"

namespace semsim {
namespace {

Summary run_with(int over_admission, std::int64_t steals, std::int64_t granted) {
  Summary s;
  s.limit = 3;
  s.clients = 10;
  s.duration_ms = 2000;
  s.over_admission = over_admission;
  s.steals = steals;
  s.granted = granted;
  return s;
}

const PointStat& find(const std::vector<PointStat>& stats, const std::string& variant, double value,
                      const std::string& metric) {
  const auto it = std::find_if(stats.begin(), stats.end(), [&](const PointStat& p) {
    return p.variant == variant && p.value == value && p.metric->name == metric;
  });
  EXPECT_NE(it, stats.end()) << variant << " " << value << " " << metric;
  return *it;
}

TEST(SweepStats, OneRowPerPointAndMetricInTheOrderOfTheRuns) {
  const std::vector<PointStat> stats = sweep_stats({{"lua", 5, run_with(0, 0, 1)},
                                                    {"basic", 0, run_with(0, 0, 1)},
                                                    {"lua", 5, run_with(0, 0, 1)}});
  ASSERT_EQ(stats.size(), 2 * sweep_metrics().size());
  EXPECT_EQ(stats.front().variant, "lua");
  EXPECT_EQ(stats.front().n, 2);
  EXPECT_EQ(stats.back().variant, "basic");
  EXPECT_EQ(stats.back().n, 1);
}

TEST(SweepStats, MeansGetTheStudentTInterval) {
  const auto stats = sweep_stats({{"basic", 5, run_with(1, 0, 1)},
                                  {"basic", 5, run_with(2, 0, 1)},
                                  {"basic", 5, run_with(3, 0, 1)},
                                  {"basic", 5, run_with(4, 0, 1)}});
  const PointStat& p = find(stats, "basic", 5, "over_admission");
  EXPECT_EQ(p.n, 4);
  EXPECT_DOUBLE_EQ(p.mean, 2.5);
  ASSERT_TRUE(p.ci95);
  EXPECT_NEAR(p.ci95->low, 0.445740, 1e-6);
  EXPECT_NEAR(p.ci95->high, 4.554260, 1e-6);
}

TEST(SweepStats, TheShareOfRunsOverAdmittingGetsTheWilsonInterval) {
  const auto stats = sweep_stats({{"basic", 5, run_with(0, 0, 1)},
                                  {"basic", 5, run_with(2, 0, 1)},
                                  {"basic", 5, run_with(0, 0, 1)},
                                  {"basic", 5, run_with(0, 0, 1)}});
  const PointStat& p = find(stats, "basic", 5, "over_admitting");
  EXPECT_EQ(p.n, 4);
  EXPECT_DOUBLE_EQ(p.mean, 0.25);
  ASSERT_TRUE(p.ci95);
  EXPECT_NEAR(p.ci95->low, 0.045587, 1e-6);
  EXPECT_NEAR(p.ci95->high, 0.699358, 1e-6);
  EXPECT_NE(sweep_stats_csv_row("skew", p).find(",wilson"), std::string::npos);
}

TEST(SweepStats, RunsWhereAMetricIsUndefinedAreLeftOutOfItsCount) {
  // steals per 1000 grants: undefined with no grant.
  const auto stats = sweep_stats({{"basic", 0, run_with(0, 3, 200)}, {"basic", 0, run_with(0, 0, 0)}});
  const PointStat& p = find(stats, "basic", 0, "steals_per_1000_grants");
  EXPECT_EQ(p.n, 1);
  EXPECT_DOUBLE_EQ(p.mean, 15);
  EXPECT_FALSE(p.ci95);
  EXPECT_EQ(sweep_stats_csv_row("skew", p), "basic,skew,0.000000,steals_per_1000_grants,1,15.000000,,,t");
}

TEST(SweepStats, GrantsPerClientSecondDivideByClientsAndDuration) {
  const auto stats = sweep_stats({{"basic", 0, run_with(0, 0, 300)}});
  EXPECT_DOUBLE_EQ(find(stats, "basic", 0, "grants_per_client_s").mean, 15);  // 300 / 10 clients / 2 s
}

TEST(SweepCsv, EveryStatisticsMetricIsAColumnOfTheRunRows) {
  const std::string header = "," + sweep_csv_header() + ",";
  for (const SweepMetric& m : sweep_metrics())
    EXPECT_NE(header.find("," + m.name + ","), std::string::npos) << m.name;
}

}  // namespace
}  // namespace semsim
