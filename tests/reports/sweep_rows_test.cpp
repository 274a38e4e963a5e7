// What `semsim merge` rests on for compare shards: a sweep's statistics computed from the rows of
// compare_PARAM.csv, read back, are those computed from the runs' summaries (so the merged
// compare_PARAM_stats.csv is the unsharded one byte for byte), and a CSV row splits back into the
// fields csv_field wrote.
#include <gtest/gtest.h>

#include <algorithm>

#include "reports/checks/summary_csv.h"
#include "reports/checks/sweep_stats.h"
#include "reports/history/text_format.h"

namespace semsim {
namespace {

Summary summary_of_run(int i) {
  Summary s;
  s.variant = i % 2 ? "lua" : "script:dir/with,comma.ini";
  s.clients = 5 + i;
  s.limit = 2;
  s.duration_ms = 1000;
  s.start_us = 0;
  s.end_us = 1'000'000 + 1'234 * i;
  s.over_admission = i % 3;
  s.over_limit_us = 12'345 * i;
  s.steals = i;
  s.granted = 7 * i;  // 0 grants in run 0: steals_per_1000_grants undefined there
  s.fifo_inversions = i * i;
  if (i % 4) s.jain_index = 1.0 / (1.0 + i / 7.0);
  s.skew_success_slope = -0.000123456789 * i;
  if (i > 0) s.acquire_p50_us = 1'001 * i, s.acquire_p99_us = 3'333 * i + 7;
  return s;
}

TEST(SweepRows, StatisticsFromTheWrittenRowsAreThoseFromTheSummaries) {
  std::vector<SweepRun> runs;
  for (int i = 0; i < 12; ++i) runs.push_back({summary_of_run(i).variant, i < 6 ? 0.0 : 2.5, summary_of_run(i)});
  const std::vector<std::string> header = split_csv_line(sweep_csv_header());
  std::vector<WrittenSweepRun> written;
  for (const SweepRun& r : runs) {
    const std::vector<std::string> cells = split_csv_line(sweep_csv_row("skew", r.value, r.summary));
    ASSERT_EQ(cells.size(), header.size());
    WrittenSweepRun w{r.variant, r.value, {}};
    for (const SweepMetric& m : sweep_metrics()) {
      const auto column = std::find(header.begin(), header.end(), m.name);
      ASSERT_NE(column, header.end()) << m.name;
      const std::string& cell = cells[static_cast<std::size_t>(column - header.begin())];
      EXPECT_EQ(cell, format_metric(m, r.summary)) << m.name << ": the CSV cell is the metric as the statistics read it";
      w.metrics.push_back(metric_from_text(cell));
    }
    written.push_back(std::move(w));
  }
  std::string from_summaries, from_rows;
  for (const PointStat& s : sweep_stats(runs)) from_summaries += sweep_stats_csv_row("skew", s) + "\n";
  for (const PointStat& s : sweep_stats(written)) from_rows += sweep_stats_csv_row("skew", s) + "\n";
  EXPECT_EQ(from_rows, from_summaries);
}

TEST(SweepRows, ARowSplitsBackIntoTheFieldsWritten) {
  const std::vector<std::string> fields = {"plain", "with,comma", "with \"quotes\"", "", "\"", ",", "last"};
  std::string line;
  for (const std::string& f : fields) line += (line.empty() ? "" : ",") + csv_field(f);
  EXPECT_EQ(split_csv_line(line), fields);
  EXPECT_EQ(split_csv_line(""), std::vector<std::string>{""});
  EXPECT_THROW(split_csv_line("a,\"open"), std::invalid_argument);
  EXPECT_THROW(split_csv_line("\"a\"b"), std::invalid_argument);
}

}  // namespace
}  // namespace semsim
