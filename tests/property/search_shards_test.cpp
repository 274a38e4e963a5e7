// check --shard K/N in process: the shards of a search, each generating every case and running
// its own, merge (search_coverage) to the unsharded search: the same first failing case, the same
// shrinking, the same counterexample; and a clean search's shards judge every case once.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/redis/redis_session.h"
#include "sim/search/property_search.h"
#include "sim/search/search_shards.h"

namespace semsim {
namespace {

namespace fs = std::filesystem;

RedisSession& redis() {
  static RedisSession session("");
  return session;
}

SearchSettings settings(const std::string& variant, int cases, std::uint64_t seed, const std::string& name) {
  SearchSettings s;
  s.variant = variant;
  s.cases = cases;
  s.seed = seed;
  s.out = (fs::path(::testing::TempDir()) / ("semsim-shards-" + name)).string();
  fs::remove_all(s.out);
  return s;
}

// counterexample.ini but for its comments (which say how it was found).
std::string without_comments(const std::string& path) {
  std::ifstream in(path);
  std::string out;
  for (std::string line; std::getline(in, line);)
    if (!line.starts_with("#")) out += line + "\n";
  return out;
}

TEST(SearchShards, ThreeShardsMergeToTheWholeSearchsFirstFailureAndCounterexample) {
  const SearchReport whole = search(settings("basic", 200, 3, "whole"), redis());
  ASSERT_TRUE(whole.error.empty()) << whole.error;
  ASSERT_TRUE(whole.found);
  std::vector<SearchReport> shards;
  std::vector<std::optional<ShardCoverage>> coverage;
  int ran = 0;
  for (int k = 1; k <= 3; ++k) {
    SearchSettings s = settings("basic", 200, 3, "shard-" + std::to_string(k));
    s.shard = {k, 3};
    const SearchReport& r = shards.emplace_back(search(s, redis()));
    ASSERT_TRUE(r.error.empty()) << r.error;
    // Each shard ran only cases it owns, and judged them in order up to its first failure.
    if (r.found) {
      EXPECT_EQ((r.first_failure_case - 1) % 3, k - 1);
      EXPECT_EQ(r.judged_through, r.first_failure_case);
      EXPECT_EQ(r.cases_run, (r.first_failure_case - k) / 3 + 1);
    } else {
      EXPECT_EQ(r.judged_through, 200);
    }
    ran += r.cases_run;
    coverage.push_back(ShardCoverage{r.judged_through, r.found ? std::optional(r.first_failure_case) : std::nullopt});
  }
  const SearchCoverage merged = search_coverage(200, coverage);
  EXPECT_TRUE(merged.gaps.empty());
  ASSERT_TRUE(merged.first_failure);
  EXPECT_EQ(*merged.first_failure, whole.first_failure_case);
  const SearchReport& winner = shards[static_cast<std::size_t>(merged.found_by - 1)];
  EXPECT_EQ(winner.first, whole.first);
  EXPECT_EQ(winner.minimal, whole.minimal);
  EXPECT_EQ(winner.violation, whole.violation);
  EXPECT_EQ(winner.shrink_steps, whole.shrink_steps);
  EXPECT_EQ(winner.shrink_tries, whole.shrink_tries);
  EXPECT_EQ(without_comments(winner.counterexample), without_comments(whole.counterexample));
  // The shards together ran at least the whole search's cases (those of the other shards past
  // the first failure too).
  EXPECT_GE(ran, whole.cases_run);
}

TEST(SearchShards, TheShardsOfACleanSearchJudgeEveryCaseOnce) {
  const SearchReport whole = search(settings("lua", 24, 5, "clean-whole"), redis());
  ASSERT_TRUE(whole.error.empty()) << whole.error;
  ASSERT_FALSE(whole.found);
  int ran = 0;
  std::vector<std::optional<ShardCoverage>> coverage;
  for (int k = 1; k <= 3; ++k) {
    SearchSettings s = settings("lua", 24, 5, "clean-" + std::to_string(k));
    s.shard = {k, 3};
    const SearchReport r = search(s, redis());
    ASSERT_TRUE(r.error.empty()) << r.error;
    EXPECT_FALSE(r.found);
    EXPECT_EQ(r.cases_run, 8);
    ran += r.cases_run;
    coverage.push_back(ShardCoverage{r.judged_through, std::nullopt});
  }
  EXPECT_EQ(ran, whole.cases_run);
  const SearchCoverage merged = search_coverage(24, coverage);
  EXPECT_FALSE(merged.first_failure);
  EXPECT_TRUE(merged.gaps.empty());
}

}  // namespace
}  // namespace semsim
