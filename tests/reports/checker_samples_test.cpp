#include <gtest/gtest.h>

#include "history_builder.h"
#include "reports/checks/summary_csv.h"

namespace semsim {
namespace {

using test::HistoryBuilder;

HistoryBuilder& sample(HistoryBuilder& h, double t_ms, std::string detail) {
  h.at(t_ms, 0, Op::sample, Phase::info);
  h.events.back().detail = std::move(detail);
  return h;
}

TEST(CheckerSamples, CountsSamplesWithStaleBelieversAndTheWorstOne) {
  // Four samples: stale 0, 2, 1, 0 -> 4 samples, 2 of them stale, at most 2 stale at once.
  HistoryBuilder h(1, 2);
  sample(h, 10, "admitted=1 believers=1 stale=0");
  sample(h, 20, "admitted=1 believers=2 stale=2");
  sample(h, 30, "admitted=1 believers=2 stale=1");
  sample(h, 40, "admitted=0 believers=0 stale=0");
  h.end(50);
  const Summary s = h.check();
  EXPECT_EQ(s.samples, 4);
  EXPECT_EQ(s.stale_samples, 2);
  EXPECT_EQ(s.max_stale, 2);
  EXPECT_NE(summary_csv_header().find(",samples,stale_samples,max_stale"), std::string::npos);
  EXPECT_NE(summary_csv_row(s).rfind(",4,2,2"), std::string::npos);
}

TEST(CheckerSamples, SamplesDoNotChangeHoldsOrOutcomes) {
  HistoryBuilder plain(1, 2);
  plain.hold(1, 0, 1, 30, "a").end(50);
  HistoryBuilder sampled(1, 2);
  sampled.hold(1, 0, 1, 30, "a");
  sample(sampled, 20, "admitted=1 believers=1 stale=0").end(50);
  const Summary a = plain.check(), b = sampled.check();
  EXPECT_EQ(a.max_holders, b.max_holders);
  EXPECT_EQ(a.granted, b.granted);
  EXPECT_EQ(a.unknown, b.unknown);
  EXPECT_EQ(b.samples, 1);
}

TEST(CheckerSamples, AMalformedSampleRowIsAnError) {
  HistoryBuilder h(1, 2);
  sample(h, 10, "stale=lots");
  EXPECT_THROW(h.check(), HistoryError);
}

}  // namespace
}  // namespace semsim
