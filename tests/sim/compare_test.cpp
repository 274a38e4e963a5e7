// semsim compare as a user runs it: seeds per point, parallel runs, and bad input.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/text_file.h"

namespace semsim {
namespace {

namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
  const fs::path p = fs::path(::testing::TempDir()) / ("compare_" + name);
  fs::remove_all(p);
  return p;
}

// The exit code of `semsim ARGS`; stderr is kept in `err`.
int semsim(const std::string& args, std::string* err = nullptr) {
  const fs::path err_path = scratch(::testing::UnitTest::GetInstance()->current_test_info()->name()).string() + ".err";
  const int status = std::system((std::string(SEMSIM_BINARY) + " " + args + " >/dev/null 2>" + err_path.string()).c_str());
  if (err) {
    std::ifstream in(err_path);
    *err = std::string(std::istreambuf_iterator<char>(in), {});
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::vector<std::vector<std::string>> csv_rows(const fs::path& p) {
  std::vector<std::vector<std::string>> rows;
  std::ifstream in(p);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> fields;
    std::stringstream fs(line);
    for (std::string f; std::getline(fs, f, ',');) fields.push_back(f);
    rows.push_back(fields);
  }
  return rows;
}

// The run rows without the columns that measure the wall clock.
std::vector<std::vector<std::string>> deterministic_rows(const fs::path& p) {
  auto rows = csv_rows(p);
  std::set<std::size_t> wall;
  for (std::size_t i = 0; i < rows.at(0).size(); ++i)
    if (rows[0][i] == "wall_s" || rows[0][i].ends_with("_per_s") || rows[0][i] == "speed_x") wall.insert(i);
  for (auto& row : rows)
    for (auto it = wall.rbegin(); it != wall.rend(); ++it)
      if (*it < row.size()) row.erase(row.begin() + static_cast<std::ptrdiff_t>(*it));
  return rows;
}

const std::string kSweep = "compare --variants basic,lua --skews 0,10ms --seeds 3 --clients 6 --limit 2 --duration 500ms --no-charts";

TEST(Compare, EveryPointHasOneRowPerSeedAndStatisticsPerMetric) {
  const fs::path out = scratch("seeds");
  ASSERT_EQ(semsim(kSweep + " --seed 7 --jobs 1 --out " + out.string()), 0);
  const auto rows = csv_rows(out / "compare_skew.csv");
  ASSERT_EQ(rows.size(), 1u + 2 * 2 * 3);
  std::multiset<std::string> seeds;
  for (std::size_t i = 1; i < rows.size(); ++i) seeds.insert(rows[i].at(4));  // parameter,value,variant,mode,seed
  EXPECT_EQ(seeds, (std::multiset<std::string>{"7", "7", "7", "7", "8", "8", "8", "8", "9", "9", "9", "9"}));
  const std::string stats = slurp(out / "compare_skew_stats.csv");
  EXPECT_EQ(stats.rfind("variant,parameter,value,metric,n,mean,ci95_low,ci95_high,interval\n", 0), 0u);
  EXPECT_NE(stats.find("\nbasic,skew,10.000000,over_admission,3,"), std::string::npos);
  EXPECT_NE(stats.find("\nlua,skew,0.000000,over_admitting,3,0.000000,0.000000,0.561497,wilson\n"), std::string::npos);
  const std::string report = slurp(out / "report.html");
  EXPECT_NE(report.find("<pre>semsim compare --variants basic,lua --skews 0,10ms --seeds 3"), std::string::npos);
  EXPECT_NE(report.find("against embedded redis-server "), std::string::npos);
}

TEST(Compare, ResultsAreTheSameWhateverTheNumberOfJobs) {
  const fs::path one = scratch("jobs1"), three = scratch("jobs3");
  ASSERT_EQ(semsim(kSweep + " --jobs 1 --out " + one.string()), 0);
  ASSERT_EQ(semsim(kSweep + " --jobs 3 --out " + three.string()), 0);
  EXPECT_EQ(deterministic_rows(one / "compare_skew.csv"), deterministic_rows(three / "compare_skew.csv"));
  EXPECT_EQ(slurp(one / "compare_skew_stats.csv"), slurp(three / "compare_skew_stats.csv"));
  EXPECT_EQ(slurp(one / "lua-skew-10ms" / "seed-2" / "history.csv"), slurp(three / "lua-skew-10ms" / "seed-2" / "history.csv"));
}

TEST(Compare, BadSeedsOrJobsAreBadInputNamingTheOption) {
  for (const std::string bad : {"--seeds 0", "--seeds x", "--jobs 0", "--jobs 2000", "--seeds 2 --seed 9223372036854775807"}) {
    std::string err;
    EXPECT_EQ(semsim("compare --variants basic --skews 0 --out " + scratch("bad").string() + " " + bad, &err), 2) << bad;
    EXPECT_NE(err.find(bad.substr(0, 7)), std::string::npos) << bad << ": " << err;
  }
}

TEST(Compare, SweepsAnyDurationOrCountOption) {
  const fs::path out = scratch("timeout");
  ASSERT_EQ(semsim("compare --variants basic --sweep timeout=50ms,1s --seeds 2 --duration 300ms --no-charts --out " +
                   out.string()),
            0);
  const auto rows = csv_rows(out / "compare_timeout.csv");
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[1][0] + "," + rows[1][1], "timeout,50.000000");
  EXPECT_EQ(rows[4][0] + "," + rows[4][1], "timeout,1000.000000");
  EXPECT_NE(slurp(out / "basic-timeout-50ms" / "seed-1" / "run.ini").find("timeout = 50ms"), std::string::npos);
}

TEST(Compare, AVariantGivenTwiceIsBadInput) {
  std::string err;
  EXPECT_EQ(semsim("compare --variants basic,lua,basic --skews 0 --out " + scratch("twice").string(), &err), 2);
  EXPECT_NE(err.find("--variants: basic is given twice"), std::string::npos) << err;
}

TEST(Compare, OneSweepAtATime) {
  std::string err;
  EXPECT_EQ(semsim("compare --skews 0 --sweep limit=2 --out " + scratch("two").string(), &err), 2);
  EXPECT_NE(err.find("give exactly one of --sweep"), std::string::npos) << err;
}

// An option compare would not read is an error, not a surprise: --variant (it runs --variants),
// and the option its sweep sets in every run.
TEST(Compare, AnOptionItWouldIgnoreIsBadInput) {
  std::string err;
  EXPECT_EQ(semsim("compare --variant basic --skews 0 --seeds 1 --out " + scratch("ignored").string(), &err), 2);
  EXPECT_NE(err.find("--variant: compare runs the variants of --variants"), std::string::npos) << err;
  EXPECT_EQ(semsim("compare --variants basic --skew fixed:5ms --skews 0,1ms --seeds 1 --out " + scratch("skew").string(), &err), 2);
  EXPECT_NE(err.find("--skew: the sweep sets skew in every run"), std::string::npos) << err;
  EXPECT_EQ(semsim("compare --variants basic --delay-in fixed:1ms --delays 0 --seeds 1 --out " + scratch("in").string(), &err), 2);
  EXPECT_NE(err.find("--delay-in"), std::string::npos) << err;
  EXPECT_EQ(semsim("compare --variants basic --limit 2 --sweep limit=1,3 --seeds 1 --out " + scratch("limit").string(), &err), 2);
  EXPECT_FALSE(fs::exists(scratch("limit")));
}

// The last variant's typo is found before the first run, not after the others ran.
TEST(Compare, EveryVariantIsCheckedBeforeTheFirstRun) {
  std::string err;
  const fs::path out = scratch("lau");
  EXPECT_EQ(semsim("compare --variants basic,fair,lau --skews 0,1ms --seeds 3 --duration 300ms --out " + out.string(), &err), 2);
  EXPECT_NE(err.find("lau"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(out));
  const fs::path ini = scratch("bad_script.ini");
  std::ofstream(ini) << "acquire.command = SET {key} {id} NX\nrelease.command = DEL {key} {id} x\nnonsense = 1\n";
  EXPECT_EQ(semsim("compare --variants basic,script:" + ini.string() + " --skews 0 --seeds 1 --out " + out.string(), &err), 2);
  EXPECT_NE(err.find("nonsense"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(out));
}

// Ctrl-C in the middle of a sweep: the runs that finished are written, said to be partial.
TEST(Compare, AnInterruptedSweepKeepsWhatFinishedMarkedPartial) {
  const fs::path out = scratch("interrupted");
  const std::string command = std::string(SEMSIM_BINARY) + " compare --variants basic --skews 0,1ms --seeds 5000 "
                              "--duration 100ms --jobs 1 --no-charts --out " + out.string() + " >" + out.string() +
                              ".out 2>" +
                              (out.string() + ".err") + " & pid=$!; "
                              "for i in $(seq 300); do ls " + out.string() + "/*/seed-*/summary.csv >/dev/null 2>&1 && break; "
                              "sleep 0.1; done; sleep 0.5; kill -INT $pid; wait $pid";
  const int status = std::system(("bash -c '" + command + "'").c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130);
  const auto rows = csv_rows(out / "compare_skew.csv");
  ASSERT_GE(rows.size(), 2u);  // the header and at least one finished run
  EXPECT_LT(rows.size(), 10001u);
  EXPECT_TRUE(fs::exists(out / "compare_skew_stats.csv"));
  EXPECT_NE(slurp(out / "report.html").find("<p id=\"partial\"><b>partial: the sweep stopped early (interrupted by SIGINT)"),
            std::string::npos);
  EXPECT_NE(slurp(out.string() + ".err").find("runs finished"), std::string::npos);
  // The result's first line (after the per-run progress lines) says it is partial, and the
  // verdict table says "safe" of the runs made, not "in every run".
  std::istringstream printed(slurp(out.string() + ".out"));
  std::string line;
  while (std::getline(printed, line) && line.starts_with("[")) {
  }
  EXPECT_TRUE(line.starts_with("PARTIAL: the sweep stopped early (interrupted by SIGINT); ")) << line;
  const std::string report = slurp(out / "report.html");
  EXPECT_NE(report.find("Verdicts (PARTIAL"), std::string::npos);
  EXPECT_EQ(report.find("<small>in every run</small>"), std::string::npos);
}

// Each variant of --variants runs with the options `semsim run --variant V` takes: --masters 3 is
// Redlock's, not refused by the default --variant's one Redis; a lock runs with --limit 1.
TEST(Compare, EachVariantIsCheckedAndRunWithItsOwnOptions) {
  const fs::path out = scratch("masters");
  std::string err;
  ASSERT_EQ(semsim("compare --variants redlock --masters 3 --skews 0,1ms --seeds 1 --clients 3 --duration 300ms "
                   "--jobs 1 --no-charts --out " + out.string(), &err),
            0)
      << err;
  const std::string ini = slurp(out / "redlock-skew-0" / "seed-1" / "run.ini");
  EXPECT_NE(ini.find("masters = 3\n"), std::string::npos) << ini;
  EXPECT_NE(ini.find("limit = 1\n"), std::string::npos) << ini;
  // A one-Redis variant among them is refused by its own name, before any run.
  const fs::path mixed = scratch("masters_mixed");
  EXPECT_EQ(semsim("compare --variants redlock,basic --masters 3 --skews 0 --seeds 1 --out " + mixed.string(), &err), 2);
  EXPECT_NE(err.find("variant basic runs on one Redis"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(mixed));
  fs::remove_all(out);
}

}  // namespace
}  // namespace semsim
