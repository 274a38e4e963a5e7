// semsim check --masters 5 on real (embedded) masters: Redlock inside its assumptions is never
// found to over-admit; outside each one alone (--drop-precondition NAME) the search finds an
// over-admission, shrinks it, and the shrunk case breaks that assumption and keeps the others.
// Seeds are fixed (the search is deterministic); each finds its case within 150 cases.
#include <gtest/gtest.h>

#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "sim/redis/redis_session.h"
#include "sim/search/property_search.h"
#include "sim/search/scenario_gen.h"
#include "tests/budget.h"

namespace semsim {
namespace {

namespace fs = std::filesystem;

class RedlockSearch : public ::testing::Test {
 protected:
  static RedisSession& redis() {
    static RedisSession session("");
    return session;
  }
  static void SetUpTestSuite() { redis().use_masters(std::vector<ServerSetup>(5), {}); }

  static SearchSettings settings(std::uint64_t seed, int cases, const std::string& name) {
    SearchSettings s;
    s.variant = "redlock";
    s.masters = 5;
    s.seed = seed;
    s.cases = cases;
    const fs::path out = fs::path(::testing::TempDir()) / ("semsim-redlock-" + name);
    fs::remove_all(out);
    s.out = out.string();
    return s;
  }
  // The generator's settings the search uses for these, with `dropped` left out.
  static GenSettings gen_settings(const std::vector<std::string>& dropped) {
    GenSettings g;
    g.masters = 5;
    g.lock = true;
    g.pre = preconditions_for("redlock");
    for (const std::string& name : dropped) drop_precondition(g.pre, name);
    return g;
  }
};

// 15 cases in the daily suite, 60 at the full budget (tests/budget.h).
TEST_F(RedlockSearch, InsideRedlocksAssumptionsNothingIsFound) {
  const int cases = test_budget(15, 60);
  const SearchReport r = search(settings(1, cases, "inside"), redis());
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_FALSE(r.found);
  EXPECT_EQ(cases, r.cases_run);
}

struct Outside {
  std::string precondition;
  std::uint64_t seed;
  std::string why;  // what meets() says the shrunk case breaks
};

void PrintTo(const Outside& o, std::ostream* os) { *os << o.precondition << " (seed " << o.seed << ")"; }

class RedlockOutside : public RedlockSearch, public ::testing::WithParamInterface<Outside> {};

TEST_P(RedlockOutside, EachBrokenAssumptionIsFoundAndShrunk) {
  const Outside& p = GetParam();
  SearchSettings s = settings(p.seed, 150, p.precondition);
  s.dropped = {p.precondition};
  const SearchReport r = search(s, redis());
  ASSERT_TRUE(r.error.empty()) << r.error;
  ASSERT_TRUE(r.found) << "nothing found outside " << p.precondition;
  EXPECT_EQ(Violation::safety, r.violation);
  EXPECT_GE(r.minimal_outcome.summary.over_admission, 1);
  EXPECT_TRUE(r.replay_failed);  // the counterexample's files (masters.csv, actions.csv) replay it
  EXPECT_LE(r.minimal.actions.size(), r.first.actions.size());
  EXPECT_EQ(5, r.minimal.masters);

  // The shrunk case keeps every other assumption and breaks the dropped one.
  std::string why;
  EXPECT_TRUE(meets(r.minimal, gen_settings({p.precondition}), &why)) << why;
  EXPECT_FALSE(meets(r.minimal, gen_settings({}), &why));
  EXPECT_NE(std::string::npos, why.find(p.why)) << why;
}

INSTANTIATE_TEST_SUITE_P(
    Redlock, RedlockOutside,
    ::testing::Values(Outside{"delayed-restarts", 6, "restarts without its data"},
                      Outside{"master-clock-rate", 1, "drifts beyond the drift factor"},
                      Outside{"no-master-jumps", 3, "a clock jump"},
                      Outside{"within-validity", 1, "pauses"}),
    [](const ::testing::TestParamInfo<Outside>& info) {
      std::string name = info.param.precondition;
      for (char& c : name)
        if (c == '-') c = '_';
      return name;
    });

}  // namespace
}  // namespace semsim
