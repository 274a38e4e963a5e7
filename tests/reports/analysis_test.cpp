// The file path (writer -> analyze_history) agrees with the live Checker, quickly, at scale.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <sstream>

#include <unistd.h>

#include "reports/outputs/analysis.h"
#include "tests/reports/synthetic_history.h"

namespace semsim {
namespace {

std::string temp_path(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / "semsim_reports_tests";
  std::filesystem::create_directories(dir);
  return (dir / (name + "_" + std::to_string(::getpid()))).string();
}

SyntheticOptions synthetic(int clients, int limit, std::uint64_t seed, std::int64_t events) {
  SyntheticOptions o;
  o.clients = clients;
  o.limit = limit;
  o.seed = seed;
  o.events = events;
  return o;
}

TEST(Analysis, AnalyzingTheWrittenFileGivesTheSameSummaryAsTheLiveChecker) {
  std::string path = temp_path("live") + ".csv";
  Checker live;
  {
    HistoryWriter writer(path);
    generate_history(synthetic(20, 3, 11, 20'000),
                     [&](const Event& e) {
                       writer.write(e);
                       live.add(e);
                     });
  }
  Summary a = live.finish();
  Summary b = analyze_history(path);
  EXPECT_EQ(a, b);
  EXPECT_EQ(summary_csv_row(a), summary_csv_row(b));
  // The synthetic semaphore over-admits now and then, and reports unknown outcomes.
  EXPECT_GT(a.over_admission, 0);
  EXPECT_GT(a.unknown, 0);
  EXPECT_EQ(a.status, "complete");
  EXPECT_TRUE(a.commands);
}

TEST(Analysis, HundredThousandEventsAreCheckedQuickly) {
  std::string path = temp_path("big") + ".csv";
  {
    HistoryWriter writer(path);
    generate_history(synthetic(100, 10, 3, 100'000),
                     [&](const Event& e) { writer.write(e); });
  }
  auto t0 = std::chrono::steady_clock::now();
  Summary s = analyze_history(path);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(s.events, 100'000);
  EXPECT_LT(seconds, 2.0);  // about 0.1 s on one core; generous for a loaded CI machine
  EXPECT_LE(s.holders.size(), 4000u);
}

TEST(Analysis, OutOfOrderRowIsReportedWithItsLine) {
  std::string path = temp_path("order") + ".csv";
  {
    HistoryWriter w(path);
    KeyValues kv;
    kv.set("limit", 1);
    w.write(run_start_event(0, 0, kv));
    Event e;
    e.seq = 1;
    e.true_us = 10;
    w.write(e);
    e.seq = 2;
    e.true_us = 5;
    w.write(e);
  }
  try {
    analyze_history(path);
    FAIL() << "no error";
  } catch (const HistoryError& e) {
    EXPECT_NE(std::string(e.what()).find(path + ":4:"), std::string::npos) << e.what();
  }
}

TEST(Analysis, SummaryCsvStartsWithTheDesignColumnsAndHasFixedDecimals) {
  std::string h = summary_csv_header();
  EXPECT_EQ(h.rfind("variant,mode,seed,clients,limit,duration_ms,acquires,granted,rejected,"
                    "max_holders,over_admission,over_limit_ms,fifo_inversions,jain_index,"
                    "acquire_p50_ms,acquire_p99_ms,commands,commands_per_s,wall_s,",
                    0),
            0u);
  Summary s;
  s.variant = "basic";
  s.over_limit_us = 20'000;
  s.jain_index = 36.0 / 56.0;
  s.commands = 1000;
  s.wall_s = 0.5;
  s.commands_per_s = 2000;
  std::string row = summary_csv_row(s);
  EXPECT_EQ(row.rfind("basic,,0,0,0,0,0,0,0,0,0,20.000,0,0.642857,,,1000,2000.0,0.500,", 0), 0u) << row;
  // Same number of columns in header and row.
  EXPECT_EQ(std::count(h.begin(), h.end(), ','), std::count(row.begin(), row.end(), ','));
}

TEST(Analysis, PrintedSummaryShowsVerdictsAndTheWitness) {
  Summary s;
  s.limit = 1;
  s.max_holders = 2;
  s.safety = Verdict::invalid;
  s.episode_count = 1;
  s.episodes.push_back({30'000, 50'000, false, 2, {{1, "a", 10'000}, {2, "b", 30'000}}});
  std::ostringstream out;
  print_summary(out, s);
  std::string text = out.str();
  EXPECT_NE(text.find("SAFETY   invalid"), std::string::npos) << text;
  EXPECT_NE(text.find("client 1 holds a since 10.000 ms"), std::string::npos) << text;
  EXPECT_NE(text.find("client 2 holds b since 30.000 ms"), std::string::npos) << text;
  EXPECT_NE(text.find("LIVENESS valid"), std::string::npos) << text;
}

}  // namespace
}  // namespace semsim
