// --shard K/N and what `semsim merge` reads: which indices a shard owns, shard.ini, which sets of
// shards merge, and the coverage argument that makes merged check shards the unsharded search.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "sim/run/shard.h"
#include "sim/run/shard_manifest.h"
#include "sim/search/search_shards.h"

namespace semsim {
namespace {

namespace fs = std::filesystem;

TEST(Shard, ParsesKOverNAndRefusesTheRest) {
  EXPECT_EQ(parse_shard("2/3"), (Shard{2, 3}));
  EXPECT_EQ(parse_shard("1/1"), (Shard{1, 1}));
  for (const char* bad : {"", "2", "0/3", "4/3", "-1/3", "a/b", "2/3x", "2/", "/3", "1/0", "1/100001"})
    EXPECT_THROW(parse_shard(bad), std::invalid_argument) << bad;
  try {
    parse_shard("4/3");
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--shard 4/3"), std::string::npos) << e.what();
  }
}

TEST(Shard, TheShardsOfASplitOwnEveryIndexExactlyOnce) {
  for (int n = 1; n <= 5; ++n)
    for (std::int64_t total = 0; total <= 23; ++total) {
      std::int64_t owned = 0;
      for (std::int64_t i = 0; i < total; ++i) {
        int owners = 0;
        for (int k = 1; k <= n; ++k) owners += Shard{k, n}.owns(i) ? 1 : 0;
        EXPECT_EQ(owners, 1) << i << " of " << total << " in " << n;
      }
      for (int k = 1; k <= n; ++k) owned += Shard{k, n}.owned(total);
      EXPECT_EQ(owned, total) << n;
    }
  EXPECT_TRUE((Shard{2, 3}.owns(1)));  // index 1 is case #2: shard 2 runs cases 2, 5, 8, ...
  EXPECT_TRUE((Shard{2, 3}.owns(4)));
  EXPECT_EQ((Shard{3, 3}.owned(7)), 2);
}

fs::path scratch(const std::string& name) {
  const fs::path p = fs::path(::testing::TempDir()) / ("shard_" + name);
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

TEST(ShardManifest, ValuesKeepEveryCharacterAndKeysMayRepeat) {
  Manifest m = shard_manifest("compare", {2, 3}, "embedded redis-server 7.0.15", "7.0.15");
  m.add("options", "variants", "driver:node a.js # not a comment, a, b");
  m.add("report", "common", "clients = 6");
  m.add("report", "common", "limit = 2");
  const fs::path dir = scratch("roundtrip");
  m.write(dir.string());
  const Manifest back = Manifest::read(dir.string());
  EXPECT_EQ(back.get("", "shard"), "2/3");
  EXPECT_EQ(back.get("options", "variants"), "driver:node a.js # not a comment, a, b");
  EXPECT_EQ(back.all("report", "common"), (std::vector<std::string>{"clients = 6", "limit = 2"}));
  EXPECT_EQ(back.in("options"), m.in("options"));
  EXPECT_THROW(back.get("report", "nothing"), std::invalid_argument);
}

// compare and check writing anew into a folder remove an older shard's manifest, and only one
// that semsim wrote: a user's own shard.ini stays (semsim deletes only what it made).
TEST(ShardManifest, OnlyAManifestSemsimWroteIsRemovedFromAnOut) {
  const fs::path dir = scratch("older");
  fs::create_directories(dir);
  shard_manifest("check", {1, 2}, "embedded", "7.0.15").write(dir.string());
  remove_older_manifest(dir.string());
  EXPECT_FALSE(fs::exists(dir / "shard.ini"));
  std::ofstream(dir / "shard.ini") << "[mine]\nkeep = yes\n";
  remove_older_manifest(dir.string());
  EXPECT_TRUE(fs::exists(dir / "shard.ini"));
}

TEST(ShardManifest, AFolderWithoutOneOrABadLineIsNamed) {
  const fs::path dir = scratch("bad");
  try {
    Manifest::read(dir.string());
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(dir.string() + ": no shard.ini"), std::string::npos) << e.what();
  }
  std::ofstream(dir / "shard.ini") << "# comment\ncommand = check\nthis line is wrong\n";
  try {
    Manifest::read(dir.string());
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("shard.ini:3:"), std::string::npos) << e.what();
  }
}

// A check shard's manifest, as much of it as read_shard_set reads.
struct Spec {
  Shard shard;
  std::string command = "check", version = "0.3.0 (commit abc)", redis_version = "7.0.15", seed = "5";
};

std::vector<std::string> write_set(const std::string& name, const std::vector<Spec>& specs) {
  std::vector<std::string> dirs;
  for (const Spec& s : specs) {
    Manifest m;
    m.add("", "command", s.command);
    m.add("", "version", s.version);
    m.add("", "shard", s.shard.text());
    m.add("", "redis", "embedded redis-server " + s.redis_version);
    m.add("", "redis_version", s.redis_version);
    m.add("options", "variant", "basic");
    m.add("options", "seed", s.seed);
    const fs::path dir = scratch(name + std::to_string(dirs.size()));
    m.write(dir.string());
    dirs.push_back(dir.string());
  }
  return dirs;
}

std::string refusal(const std::string& name, const std::vector<Spec>& specs) {
  try {
    read_shard_set(write_set(name, specs));
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(merged)";
}

TEST(ShardSet, ShardsOfOneSearchMergeAndTheMissingAreNamed) {
  const auto dirs = write_set("ok", {{{1, 3}}, {{2, 3}}, {{3, 3}}});
  const ShardSet all = read_shard_set(dirs);
  EXPECT_EQ(all.command, "check");
  EXPECT_TRUE(all.missing().empty());
  const ShardSet two = read_shard_set({dirs[2], dirs[0]});
  EXPECT_EQ(two.missing(), std::vector<int>{2});
  EXPECT_EQ(two.missing_text(), "shard 2/3");
  EXPECT_EQ(two.first().shard, (Shard{1, 3}));
  EXPECT_EQ(read_shard_set({dirs[0]}).missing_text(), "shards 2/3 and 3/3");
}

TEST(ShardSet, ShardsOfDifferentCommandsBuildsOptionsOrSplitsRefuseToMerge) {
  Spec other_seed{{2, 3}};
  other_seed.seed = "6";
  EXPECT_NE(refusal("seed", {{{1, 3}}, other_seed}).find("different options: seed = 5 in "), std::string::npos);
  Spec compare{{2, 3}};
  compare.command = "compare";
  EXPECT_NE(refusal("command", {{{1, 3}}, compare}).find("not shards of one command"), std::string::npos);
  Spec build{{2, 3}};
  build.version = "0.3.0 (commit def)";
  EXPECT_NE(refusal("build", {{{1, 3}}, build}).find("one semsim build"), std::string::npos);
  Spec redis{{2, 3}};
  redis.redis_version = "7.2.4";
  EXPECT_NE(refusal("redis", {{{1, 3}}, redis}).find("one Redis version"), std::string::npos);
  EXPECT_NE(refusal("split", {{{1, 3}}, {{2, 4}}}).find("not shards of one split"), std::string::npos);
  EXPECT_NE(refusal("twice", {{{1, 3}}, {{1, 3}}}).find("shard 1/3 given twice"), std::string::npos);
}

// search_coverage: the lowest first failure is the whole search's only when every case below it
// was judged by its shard.
TEST(SearchCoverage, TheLowestFirstFailureIsTheWholeSearchsWhenNothingBelowItWasSkipped) {
  // 20 cases in 3 shards: shard 1 owns 1, 4, 7, ...; shard 2: 2, 5, 8, ...; shard 3: 3, 6, 9, ...
  const SearchCoverage c = search_coverage(20, {ShardCoverage{13, 13}, ShardCoverage{8, 8}, ShardCoverage{20, {}}});
  ASSERT_TRUE(c.first_failure);
  EXPECT_EQ(*c.first_failure, 8);
  EXPECT_EQ(c.found_by, 2);
  EXPECT_TRUE(c.gaps.empty());
}

TEST(SearchCoverage, NoFailureNeedsEveryCaseJudged) {
  const SearchCoverage clean = search_coverage(20, {ShardCoverage{20, {}}, ShardCoverage{20, {}}, ShardCoverage{20, {}}});
  EXPECT_FALSE(clean.first_failure);
  EXPECT_TRUE(clean.gaps.empty());
  // Shard 3 stopped on an error after judging 3 and 6: its 9, 12, 15, 18 were not judged.
  const SearchCoverage stopped = search_coverage(20, {ShardCoverage{20, {}}, ShardCoverage{20, {}}, ShardCoverage{7, {}}});
  ASSERT_EQ(stopped.gaps.size(), 1u);
  EXPECT_EQ(stopped.gaps[0].shard, 3);
  EXPECT_EQ(stopped.gaps[0].first_case, 9);
  EXPECT_EQ(stopped.gaps[0].count, 4);
}

TEST(SearchCoverage, AShardThatStoppedOrIsMissingBelowTheFailureLeavesAGap) {
  // Shard 1 fails at 10; shard 3 stopped after 3: case 6 and 9, below 10, were not judged.
  const SearchCoverage c = search_coverage(20, {ShardCoverage{10, 10}, ShardCoverage{20, {}}, ShardCoverage{3, {}}});
  ASSERT_EQ(*c.first_failure, 10);
  ASSERT_EQ(c.gaps.size(), 1u);
  EXPECT_EQ(c.gaps[0].first_case, 6);
  EXPECT_EQ(c.gaps[0].count, 2);
  // A missing shard judged nothing: all of its cases below the failure are a gap...
  const SearchCoverage missing = search_coverage(20, {ShardCoverage{10, 10}, std::nullopt, ShardCoverage{20, {}}});
  ASSERT_EQ(missing.gaps.size(), 1u);
  EXPECT_EQ(missing.gaps[0].shard, 2);
  EXPECT_EQ(missing.gaps[0].first_case, 2);
  EXPECT_EQ(missing.gaps[0].count, 3);  // 2, 5, 8
  // ... none when the failure comes before its first case.
  EXPECT_TRUE(search_coverage(20, {ShardCoverage{1, 1}, std::nullopt, std::nullopt}).gaps.empty());
}

}  // namespace
}  // namespace semsim
