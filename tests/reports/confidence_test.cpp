// The 95% intervals of compare's statistics, against values computed by hand (and tables).
#include <gtest/gtest.h>

#include "reports/checks/confidence.h"

namespace semsim {
namespace {

TEST(TQuantile, MatchesTheStandardTableForSmallSamples) {
  EXPECT_DOUBLE_EQ(t_quantile_975(1), 12.706205);
  EXPECT_DOUBLE_EQ(t_quantile_975(3), 3.182446);
  EXPECT_DOUBLE_EQ(t_quantile_975(30), 2.042272);
}

TEST(TQuantile, ApproachesTheNormalQuantileForLargeSamples) {
  EXPECT_NEAR(t_quantile_975(31), 2.039513, 1e-5);
  EXPECT_NEAR(t_quantile_975(40), 2.021075, 1e-5);
  EXPECT_NEAR(t_quantile_975(120), 1.979930, 1e-5);
  EXPECT_NEAR(t_quantile_975(100000), 1.959964, 1e-4);
}

TEST(MeanInterval, IsTheStudentTIntervalOfTheMean) {
  // mean 2.5, s = sqrt(5/3), half-width t(3) * s / sqrt(4) = 3.182446 * 1.290994 / 2.
  const auto i = mean_interval({1, 2, 3, 4});
  ASSERT_TRUE(i);
  EXPECT_NEAR(i->low, 0.445740, 1e-6);
  EXPECT_NEAR(i->high, 4.554260, 1e-6);
}

TEST(MeanInterval, EqualValuesGiveAPointAndOneValueGivesNone) {
  const auto same = mean_interval({2, 2, 2});
  ASSERT_TRUE(same);
  EXPECT_EQ(same->low, 2);
  EXPECT_EQ(same->high, 2);
  EXPECT_FALSE(mean_interval({7}));
  EXPECT_FALSE(mean_interval({}));
}

TEST(WilsonInterval, MatchesPublishedValues) {
  const auto none = wilson_interval(0, 10);
  ASSERT_TRUE(none);
  EXPECT_EQ(none->low, 0);
  EXPECT_NEAR(none->high, 0.277533, 1e-6);
  const auto half = wilson_interval(5, 10);
  ASSERT_TRUE(half);
  EXPECT_NEAR(half->low, 0.236593, 1e-6);
  EXPECT_NEAR(half->high, 0.763407, 1e-6);
}

TEST(WilsonInterval, StaysInsideZeroToOne) {
  const auto all = wilson_interval(4, 4);
  ASSERT_TRUE(all);
  EXPECT_NEAR(all->low, 0.510109, 1e-6);
  EXPECT_EQ(all->high, 1);
  EXPECT_FALSE(wilson_interval(0, 0));
}

}  // namespace
}  // namespace semsim
