// Situation files of the conformance card (sim/scenario/situation.h), and the shipped catalogue.
#include "sim/scenario/situation.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "sim/core/client_spec.h"

namespace semsim {
namespace {

std::string situation_file(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

std::string situation_load_error(const std::string& path) {
  try {
    load_situation(path);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

constexpr const char* kPlan = "clients = 2\nlimit = 1\ntimeout = 500ms\n";

TEST(SituationFile, ReadsItsRulesAndDefaultsTheOthers) {
  const Situation s = load_situation(situation_file(
      "paused.ini", std::string(kPlan) + "[conformance]\nsituation = a pause\ncorrect = waits\nstaged = granted >= 2\n"));
  EXPECT_EQ(s.name, "paused");
  EXPECT_EQ(s.title, "a pause");
  EXPECT_EQ(s.rules.staged.text, "granted >= 2");
  EXPECT_EQ(s.rules.defect.text, "live_lease_over_admission > 0 or liveness = invalid");
  EXPECT_EQ(s.rules.lease_limit.text, "over_admission > 0");
  EXPECT_EQ(s.plan.clients, 2);
}

TEST(SituationFile, ABadRuleNamesFileLineAndKey) {
  const std::string path = situation_file(
      "bad-rule.ini", std::string(kPlan) + "[conformance]\nsituation = x\ncorrect = y\ndefect = grants > 0\n");
  EXPECT_EQ(situation_load_error(path), path + ":7: conformance.defect: 'grants' is not a figure (a summary.csv column, "
                                     "live_lease_over_admission, late_grants, unanswered_acquires or as_planned)");
}

TEST(SituationFile, AnUnknownKeyOrAMissingTitleIsBadInput) {
  const std::string unknown =
      situation_file("unknown.ini", std::string(kPlan) + "[conformance]\nsituation = x\ncorrect = y\nverdict = z\n");
  EXPECT_NE(situation_load_error(unknown).find(unknown + ":7: conformance.verdict: unknown key"), std::string::npos);
  const std::string untitled = situation_file("untitled.ini", std::string(kPlan) + "[conformance]\ncorrect = y\n");
  EXPECT_NE(situation_load_error(untitled).find("must say `situation = ...`"), std::string::npos);
  const std::string expecting =
      situation_file("expecting.ini", std::string(kPlan) + "[expect]\ngranted = 1\n[conformance]\nsituation = x\ncorrect = y\n");
  EXPECT_NE(situation_load_error(expecting).find("a situation is one run"), std::string::npos);
}

TEST(SituationCatalogue, TheShippedOneHasTwelveSituationsOverOneRedisThenThoseOverSeveralMasters) {
  const std::vector<Situation> all = load_catalogue(std::string(SEMSIM_SOURCE_DIR) + "/scenarios/conformance");
  int one = 0;
  bool several_seen = false;
  for (const Situation& s : all) {
    if (s.plan.masters == 1) {
      EXPECT_FALSE(several_seen) << s.name << " comes after a situation over several masters";
      ++one;
    } else {
      several_seen = true;
    }
  }
  EXPECT_EQ(one, 12);
  EXPECT_GE(all.size() - one, 6u);
}

}  // namespace
}  // namespace semsim
