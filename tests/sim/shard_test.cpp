// compare and check sharded 3 ways as separate processes, as a CI matrix runs them, and merged:
// the same files as the unsharded command (but the wall-clock columns), the same first failure and
// counterexample, a missing or foreign shard refused by name, --partial saying what is missing.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/text_file.h"

namespace semsim {
namespace {

namespace fs = std::filesystem;

// ctest runs each test in a process of its own, maybe two at once: every path is the process's.
fs::path shard_scratch(const std::string& name) {
  const fs::path p = fs::path(::testing::TempDir()) / ("shard_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(p);
  return p;
}

// Removes a test's folder when the test ends.
struct Cleanup {
  fs::path dir;
  ~Cleanup() { fs::remove_all(dir); }
};

// Runs `semsim ARGS`; returns its exit code, stdout and stderr in `out` (the two appended).
int shard_semsim(const std::string& args, std::string* out = nullptr) {
  const fs::path log = shard_scratch("log.txt");
  const int status = std::system((std::string(SEMSIM_BINARY) + " " + args + " >" + log.string() + " 2>&1").c_str());
  if (out) *out = slurp(log);
  fs::remove(log);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// The CSV's lines with the wall-clock columns (wall_s, commands_per_s) emptied.
std::vector<std::string> without_wall_clock(const fs::path& csv) {
  std::vector<std::string> lines;
  std::ifstream in(csv);
  std::vector<std::size_t> wall;
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> fields;
    std::stringstream cells(line);
    for (std::string f; std::getline(cells, f, ',');) fields.push_back(f);
    if (lines.empty())
      for (std::size_t i = 0; i < fields.size(); ++i)
        if (fields[i] == "wall_s" || fields[i] == "commands_per_s") wall.push_back(i);
    for (std::size_t i : wall)
      if (i < fields.size()) fields[i].clear();
    std::string joined;
    for (const std::string& f : fields) joined += f + ",";
    lines.push_back(joined);
  }
  return lines;
}

std::size_t data_rows(const fs::path& csv) { return without_wall_clock(csv).size() - 1; }

const std::string kShardSweep =
    "compare --variants basic,lua --skews 0,5ms --seeds 3 --clients 6 --limit 2 --duration 400ms --seed 11 --no-charts";

class ShardedCompare : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(shard_scratch("compare"));
    ASSERT_EQ(shard_semsim(kShardSweep + " --jobs 1 --out " + (*dir_ / "whole").string()), 0);
    for (int k = 1; k <= 3; ++k)  // each with its own --jobs: the results do not depend on it
      ASSERT_EQ(shard_semsim(kShardSweep + " --jobs " + std::to_string(k) + " --shard " + std::to_string(k) + "/3 --out " +
                       (*dir_ / ("s" + std::to_string(k))).string()),
                0);
  }
  static void TearDownTestSuite() {
    fs::remove_all(*dir_);
    delete dir_;
  }
  static fs::path shard(int k) { return *dir_ / ("s" + std::to_string(k)); }
  static fs::path dir() { return *dir_; }
  static fs::path* dir_;
};
fs::path* ShardedCompare::dir_ = nullptr;

TEST_F(ShardedCompare, EachShardMakesItsThirdOfTheRunsAndNoStatistics) {
  for (int k = 1; k <= 3; ++k) {
    EXPECT_EQ(data_rows(shard(k) / "compare_skew.csv"), 4u) << k;
    EXPECT_TRUE(fs::exists(shard(k) / "shard.ini"));
    EXPECT_FALSE(fs::exists(shard(k) / "compare_skew_stats.csv")) << "statistics over a third of the seeds";
    EXPECT_FALSE(fs::exists(shard(k) / "report.html"));
  }
  // Run 0 of the sweep (basic, skew 0, seed 11) is shard 1's; run 1 (seed 12) shard 2's.
  EXPECT_TRUE(fs::exists(shard(1) / "basic-skew-0" / "seed-11" / "history.csv"));
  EXPECT_TRUE(fs::exists(shard(2) / "basic-skew-0" / "seed-12" / "history.csv"));
  EXPECT_FALSE(fs::exists(shard(2) / "basic-skew-0" / "seed-11"));
}

TEST_F(ShardedCompare, MergedTheyAreTheUnshardedSweep) {
  const fs::path merged = dir() / "merged";
  std::string log;
  ASSERT_EQ(shard_semsim("merge " + shard(3).string() + " " + shard(1).string() + " " + shard(2).string() + " --out " +
                   merged.string(), &log),
            0)
      << log;
  EXPECT_EQ(without_wall_clock(merged / "compare_skew.csv"), without_wall_clock(dir() / "whole" / "compare_skew.csv"));
  EXPECT_EQ(slurp(merged / "compare_skew_stats.csv"), slurp(dir() / "whole" / "compare_skew_stats.csv"));
  // Every run's folder, and report.html with the command that makes the whole sweep.
  EXPECT_EQ(slurp(merged / "lua-skew-5ms" / "seed-13" / "history.csv"),
            slurp(dir() / "whole" / "lua-skew-5ms" / "seed-13" / "history.csv"));
  const std::string report = slurp(merged / "report.html");
  EXPECT_NE(report.find("--seeds 3"), std::string::npos);
  EXPECT_EQ(report.find("--shard"), std::string::npos);
  // The report is the unsharded one but for its command line.
  const auto but_command = [](std::string html) {
    return std::regex_replace(html, std::regex("<pre>semsim compare[^<]*</pre>"), "");
  };
  EXPECT_EQ(but_command(report), but_command(slurp(dir() / "whole" / "report.html")));
}

TEST_F(ShardedCompare, AMissingShardIsNamedOrWithPartialReported) {
  std::string log;
  EXPECT_EQ(shard_semsim("merge " + shard(1).string() + " " + shard(3).string() + " --out " + (dir() / "gap").string(), &log), 2);
  EXPECT_NE(log.find("shard 2/3"), std::string::npos) << log;
  EXPECT_FALSE(fs::exists(dir() / "gap" / "compare_skew.csv"));
  // --partial: merged, and said to be partial in the first line, the report and the exit code.
  ASSERT_EQ(shard_semsim("merge " + shard(1).string() + " " + shard(3).string() + " --partial --out " +
                   (dir() / "partial").string(), &log),
            4)
      << log;
  EXPECT_TRUE(log.starts_with("PARTIAL: shard 2/3 not given")) << log;
  EXPECT_NE(log.find("merged 8 runs from 2 shards (of the sweep's 12 runs: partial)"), std::string::npos) << log;
  EXPECT_EQ(data_rows(dir() / "partial" / "compare_skew.csv"), 8u);
  const std::string report = slurp(dir() / "partial" / "report.html");
  EXPECT_NE(report.find("<p id=\"partial\">"), std::string::npos);
  EXPECT_NE(report.find("Verdicts (PARTIAL"), std::string::npos);
  EXPECT_EQ(report.find("<small>in every run</small>"), std::string::npos) << "a whole-sweep sentence over 8 of 12 runs";
  // Every shard given: not partial, whatever --partial says.
  EXPECT_EQ(shard_semsim("merge " + shard(1).string() + " " + shard(2).string() + " " + shard(3).string() +
                   " --partial --out " + (dir() / "all").string(), &log),
            0)
      << log;
}

// A copy of a shard to tamper with.
fs::path copy_of(const fs::path& shard, const fs::path& to) {
  fs::remove_all(to);
  fs::create_directories(to.parent_path());
  fs::copy(shard, to, fs::copy_options::recursive);
  return to;
}

void replace_in(const fs::path& file, const std::string& from, const std::string& to) {
  std::string text = slurp(file);
  const std::size_t at = text.find(from);
  ASSERT_NE(at, std::string::npos) << from;
  text.replace(at, from.size(), to);
  std::ofstream(file) << text;
}

TEST_F(ShardedCompare, AManifestNamingAFolderOutsideItsShardIsRefusedAndNothingIsWrittenOutsideOut) {
  const fs::path t = dir() / "dotdot";
  fs::remove_all(t);
  const fs::path bad = copy_of(shard(1), t / "shards" / "s1");
  // The run's folder named as ../../victim: read from t/victim (beside the shards), written to
  // t/out/victim (beside --out, t/out/merged/../../victim), a user's file there overwritten.
  replace_in(bad / "shard.ini", ",basic-skew-0/seed-11,", ",../../victim,");
  fs::create_directories(t / "victim");
  fs::create_directories(t / "out" / "victim");
  std::ofstream(t / "victim" / "history.csv") << "from outside the shard\n";
  std::ofstream(t / "out" / "victim" / "history.csv") << "precious\n";
  const std::string merge =
      "merge " + bad.string() + " " + shard(2).string() + " " + shard(3).string() + " --out " + (t / "out" / "c" / "merged").string();
  std::string log;
  EXPECT_EQ(shard_semsim(merge, &log), 2);
  EXPECT_NE(log.find((bad / "shard.ini").string() + ": run 1: its folder = ../../victim: a `..` segment"),
            std::string::npos)
      << log;
  EXPECT_EQ(slurp(t / "out" / "victim" / "history.csv"), "precious\n");
  EXPECT_FALSE(fs::exists(t / "out" / "c" / "merged" / "compare_skew.csv")) << "written before every shard was checked";
  // An absolute folder too.
  replace_in(bad / "shard.ini", ",../../victim,", "," + (t / "victim").string() + ",");
  EXPECT_EQ(shard_semsim(merge, &log), 2);
  EXPECT_NE(log.find("an absolute path"), std::string::npos) << log;
}

TEST_F(ShardedCompare, ASymbolicLinkInAShardIsNeitherFollowedNorCopied) {
  const fs::path t = dir() / "links";
  fs::remove_all(t);
  fs::create_directories(t);
  std::ofstream(t / "secret.txt") << "TOP-SECRET\n";
  const fs::path bad = copy_of(shard(1), t / "s1");
  fs::remove(bad / "basic-skew-0" / "seed-11" / "run.ini");
  fs::create_symlink(t / "secret.txt", bad / "basic-skew-0" / "seed-11" / "run.ini");
  std::string log;
  EXPECT_EQ(shard_semsim("merge " + bad.string() + " " + shard(2).string() + " " + shard(3).string() + " --out " +
                   (t / "merged").string(), &log),
            2);
  EXPECT_NE(log.find((bad / "basic-skew-0" / "seed-11" / "run.ini").string() + "' is a symbolic link"), std::string::npos)
      << log;
  EXPECT_FALSE(fs::exists(t / "merged" / "basic-skew-0" / "seed-11" / "run.ini"));
  EXPECT_EQ(log.find("TOP-SECRET"), std::string::npos);
  // shard.ini itself a link: not read (its lines would be quoted in the error).
  const fs::path manifest_link = copy_of(shard(1), t / "s1m");
  fs::remove(manifest_link / "shard.ini");
  fs::create_symlink(t / "secret.txt", manifest_link / "shard.ini");
  EXPECT_EQ(shard_semsim("merge " + manifest_link.string() + " " + shard(2).string() + " --out " + (t / "m2").string(), &log), 2);
  EXPECT_NE(log.find("shard.ini' is a symbolic link"), std::string::npos) << log;
  EXPECT_EQ(log.find("TOP-SECRET"), std::string::npos) << log;
}

TEST_F(ShardedCompare, MergeWritesThroughNoLinkInItsOut) {
  const fs::path t = dir() / "outlink";
  fs::remove_all(t);
  fs::create_directories(t / "out");
  std::ofstream(t / "victim.html") << "precious\n";
  fs::create_symlink(t / "victim.html", t / "out" / "report.html");
  std::string log;
  EXPECT_EQ(shard_semsim("merge " + shard(1).string() + " " + shard(2).string() + " " + shard(3).string() + " --out " +
                   (t / "out").string(), &log),
            2);
  EXPECT_NE(log.find("report.html' is a symbolic link"), std::string::npos) << log;
  EXPECT_EQ(slurp(t / "victim.html"), "precious\n");
}

TEST_F(ShardedCompare, AShardOfOtherOptionsRefusesToMerge) {
  const fs::path other = dir() / "other";
  ASSERT_EQ(shard_semsim(kShardSweep + " --delay uniform:0ms..1ms --jobs 1 --shard 2/3 --out " + other.string()), 0);
  std::string log;
  EXPECT_EQ(shard_semsim("merge " + shard(1).string() + " " + other.string() + " " + shard(3).string() + " --out " +
                   (dir() / "mixed").string(), &log),
            2);
  EXPECT_NE(log.find("different options: delay = fixed:0ms in"), std::string::npos) << log;
  EXPECT_EQ(shard_semsim(kShardSweep + " --shard 13/12 --out " + (dir() / "bad").string(), &log), 2);
  EXPECT_EQ(shard_semsim(kShardSweep + " --shard 1/13 --out " + (dir() / "bad").string(), &log), 2);  // 12 runs
  EXPECT_NE(log.find("fewer than 13 shards"), std::string::npos) << log;
}

// "first at case #N" in a check's or merge's output.
int first_case(const std::string& log) {
  std::smatch m;
  return std::regex_search(log, m, std::regex("first at case #([0-9]+)")) ? std::stoi(m[1]) : 0;
}

std::string without_comments(const fs::path& ini) {
  std::string out;
  std::istringstream in(slurp(ini));
  for (std::string line; std::getline(in, line);)
    if (!line.starts_with("#")) out += line + "\n";
  return out;
}

TEST(ShardedCheck, MergedShardsFindTheUnshardedSearchsFirstFailureAndCounterexample) {
  const fs::path dir = shard_scratch("check");
  const Cleanup cleanup{dir};
  const std::string search = "check --variant basic --cases 240 --seed 4 --jobs 1";
  std::string whole_log, log;
  ASSERT_EQ(shard_semsim(search + " --out " + (dir / "whole").string(), &whole_log), 1) << whole_log;
  std::string shards;
  for (int k = 1; k <= 3; ++k) {
    const fs::path out = dir / ("s" + std::to_string(k));
    const int code = shard_semsim(search + " --shard " + std::to_string(k) + "/3 --out " + out.string(), &log);
    EXPECT_TRUE(code == 0 || code == 1) << log;
    shards += " " + out.string();
  }
  ASSERT_EQ(shard_semsim("merge" + shards + " --out " + (dir / "merged").string(), &log), 1) << log;
  ASSERT_GT(first_case(whole_log), 0) << whole_log;
  EXPECT_EQ(first_case(log), first_case(whole_log)) << log;
  EXPECT_EQ(without_comments(dir / "merged" / "counterexample.ini"), without_comments(dir / "whole" / "counterexample.ini"));
  for (const char* table : {"clients.csv", "actions.csv"}) {
    ASSERT_EQ(fs::exists(dir / "whole" / table), fs::exists(dir / "merged" / table)) << table;
    if (fs::exists(dir / "whole" / table)) {
      EXPECT_EQ(slurp(dir / "merged" / table), slurp(dir / "whole" / table)) << table;
    }
  }
  // The merged file replays as the unsharded one does.
  EXPECT_EQ(shard_semsim("scenario " + (dir / "merged" / "counterexample.ini").string() + " --out " + (dir / "replay").string()), 1);
  // The counts: what the shards ran together, and what the unsharded search judges.
  EXPECT_NE(log.find("the unsharded search judges " + std::to_string(first_case(whole_log))), std::string::npos) << log;
}

TEST(ShardedCheck, ACleanSearchMergesToNoViolationAndAMissingShardIsNamed) {
  const fs::path dir = shard_scratch("clean");
  const Cleanup cleanup{dir};
  const std::string search = "check --variant lua --cases 12 --seed 2 --jobs 1";
  std::string log;
  for (int k = 1; k <= 3; ++k)
    ASSERT_EQ(shard_semsim(search + " --shard " + std::to_string(k) + "/3 --out " + (dir / ("s" + std::to_string(k))).string(), &log), 0)
        << log;
  ASSERT_EQ(shard_semsim("merge " + (dir / "s1").string() + " " + (dir / "s2").string() + " " + (dir / "s3").string() + " --out " +
                   (dir / "merged").string(), &log),
            0)
      << log;
  EXPECT_NE(log.find("no violation in 12 cases"), std::string::npos) << log;
  EXPECT_NE(log.find("cases run: 12 by the shards together"), std::string::npos) << log;
  EXPECT_EQ(shard_semsim("merge " + (dir / "s1").string() + " " + (dir / "s2").string() + " --out " + (dir / "gap").string(), &log), 2);
  EXPECT_NE(log.find("shard 3/3"), std::string::npos) << log;
  // --partial: the cases of the missing shard are named, the verdict is that of the cases judged,
  // said to be partial first and in the exit code; never "no violation in 12 cases".
  EXPECT_EQ(shard_semsim("merge " + (dir / "s1").string() + " " + (dir / "s2").string() + " --partial --out " +
                   (dir / "partial").string(), &log),
            4);
  EXPECT_TRUE(log.starts_with("PARTIAL: the shards judged 8 of the search's 12 cases")) << log;
  EXPECT_NE(log.find("shard 3/3: 4 cases from #3 (missing)"), std::string::npos) << log;
  EXPECT_NE(log.find("no violation in the 8 of the search's 12 cases judged"), std::string::npos) << log;
  EXPECT_EQ(log.find("no violation in 12 cases"), std::string::npos) << log;
}

}  // namespace
}  // namespace semsim
