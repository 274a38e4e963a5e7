#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "algorithms/registry.h"
#include "sim/scenario/client_table.h"
#include "sim/scenario/scenario.h"

namespace semsim {
namespace {

std::string scenario_file(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

std::string load_error(const std::string& path) {
  try {
    load_scenario(path);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(ScenarioFile, ReadsVariantsSweepAndExpectations) {
  const auto path = scenario_file("ok.ini",
                                  "variants = basic lua\nclients = 3\nsweep.skew = fixed:0ms uniform:-5ms..5ms\n"
                                  "[expect]\ngranted_min = 1\n[expect.basic]\nover_limit_ms_trend = nondecreasing\n");
  const Scenario s = load_scenario(path);
  ASSERT_EQ(s.runs.size(), 4u);  // 2 variants x 2 sweep values, variant-major
  EXPECT_EQ(s.runs[0].variant, "basic");
  EXPECT_EQ(s.runs[1].skew.text(), "uniform:-5ms..5ms");
  EXPECT_EQ(s.runs[2].variant, "lua");
  EXPECT_EQ(s.runs[3].clients, 3);
  ASSERT_EQ(s.expectations.size(), 2u);
  EXPECT_EQ(s.expectations[1].variant, "basic");
  EXPECT_EQ(s.expectations[1].kind, Expectation::Kind::trend);
}

TEST(ScenarioFile, AnUnknownKeyNamesFileLineAndKey) {
  const auto path = scenario_file("unknown.ini", "variant = basic\n# a comment\nclient = 3\n");
  EXPECT_NE(load_error(path).find(path + ":3: client: unknown key"), std::string::npos) << load_error(path);
}

TEST(ScenarioFile, AMalformedValueNamesItsLine) {
  const auto path = scenario_file("malformed.ini", "variant = basic\nclients = 2\nduration = 10 parsecs\n");
  EXPECT_NE(load_error(path).find(path + ":3: --duration=10 parsecs"), std::string::npos) << load_error(path);
}

TEST(ScenarioFile, AnUnknownMetricOrVariantInAnExpectationIsAnError) {
  const auto metric = scenario_file("metric.ini", "variant = basic\n[expect]\nhappiness = 1\n");
  EXPECT_NE(load_error(metric).find(metric + ":3: expect.happiness: unknown metric"), std::string::npos);
  const auto variant = scenario_file("variant.ini", "variant = basic\n[expect.fair]\nover_admission = 0\n");
  EXPECT_NE(load_error(variant).find("not among this scenario's variants"), std::string::npos);
}

TEST(ScenarioFile, TwoScriptsWithOneBaseNameGetFoldersOfTheirOwn) {
  EXPECT_EQ(variant_labels({"script:a/semaphore.ini", "script:../b/semaphore.ini", "lua", "script:c/lease.ini"}),
            (std::vector<std::string>{"a-semaphore", "b-semaphore", "lua", "lease"}));
  EXPECT_EQ(variant_labels({"script:x/a/s.ini", "script:y/a/s.ini"}), (std::vector<std::string>{"x-a-s", "y-a-s"}));
  EXPECT_EQ(variant_labels({"script:s.ini", "script:./s.ini"}), (std::vector<std::string>{"s", "s-2"}));
}

TEST(ScenarioFile, AnExpectationOnABaseNameThatTwoScriptsShareIsAmbiguous) {
  const std::string variants = "variants = script:a/semaphore.ini script:b/semaphore.ini\n";
  const auto ambiguous = scenario_file("ambiguous.ini", variants + "[expect.semaphore]\nover_admission = 0\n");
  EXPECT_NE(load_error(ambiguous).find(ambiguous + ":3: expect.semaphore.over_admission: 'semaphore' names 2 script "
                                       "variants: name one as written (script:FILE.ini) or by its label "
                                       "(a-semaphore, b-semaphore)"),
            std::string::npos)
      << load_error(ambiguous);
  const auto by_label = scenario_file("by_label.ini", variants + "[expect.b-semaphore]\nover_admission = 0\n");
  EXPECT_EQ(load_error(by_label), "");
}

TEST(ScenarioFile, ATrendNeedsASweep) {
  const auto path = scenario_file("trend.ini", "variant = basic\n[expect]\nover_admission_trend = increasing\n");
  EXPECT_NE(load_error(path).find("a trend needs a sweep"), std::string::npos) << load_error(path);
}

TEST(ScenarioFile, TheRedisAndTheOutputFolderAreTheCommandLinesToChoose) {
  const auto path = scenario_file("redis.ini", "variant = basic\nredis = redis://localhost\n");
  EXPECT_NE(load_error(path).find(path + ":2: redis: not allowed"), std::string::npos) << load_error(path);
}

TEST(ScenarioFile, AnEmptyFileADirectoryAndDevNullAreErrors) {
  const auto empty = scenario_file("empty.ini", "# only a comment\n");
  EXPECT_NE(load_error(empty).find("nothing to run"), std::string::npos) << load_error(empty);
  EXPECT_NE(load_error("/dev/null").find("nothing to run"), std::string::npos);
  EXPECT_NE(load_error(::testing::TempDir()).find("is a directory"), std::string::npos);
}

TEST(ScenarioFile, AnExpectationOnANumberMustBeANumber) {
  const auto path = scenario_file("abc.ini", "clients = 2\n[expect]\nover_admission = abc\n");
  EXPECT_NE(load_error(path).find(path + ":3: expect.over_admission: 'abc' is not a number"), std::string::npos)
      << load_error(path);
  // Words stay words where the column holds words.
  EXPECT_EQ(load_error(scenario_file("word.ini", "clients = 2\n[expect]\nliveness = valid\n")), "");
}

TEST(ScenarioFile, SyntaxErrorsAndRepeatedKeysNameTheirLine) {
  const auto syntax = scenario_file("syntax.ini", "clients = 2\nno equals sign here\n");
  EXPECT_NE(load_error(syntax).find(syntax + ":2: "), std::string::npos) << load_error(syntax);
  const auto twice = scenario_file("twice.ini", "seed = 1\nclients = 2\nclients = 3\n");
  EXPECT_NE(load_error(twice).find(twice + ":2: "), std::string::npos) << load_error(twice);
}

TEST(ScenarioFile, NegativeLengthsAndOverflowingDriftsAreRefused) {
  const auto delay = scenario_file("neg_delay.ini", "clients = 2\ndelay = fixed:-5ms\n");
  EXPECT_NE(load_error(delay).find(delay + ":2: "), std::string::npos) << load_error(delay);
  const auto drift = scenario_file("big_drift.ini", "clients = 2\ndrift = fixed:1e308\n");
  EXPECT_NE(load_error(drift).find("out of range"), std::string::npos) << load_error(drift);
  const auto skew = scenario_file("big_skew.ini", "clients = 2\nskew = fixed:100000000s\n");
  EXPECT_NE(load_error(skew).find(skew + ":2: "), std::string::npos) << load_error(skew);
}

// Found by scenario_fuzz: Boost's own message for a bad line loops for ever when the line holds
// its placeholder "%invalid_line%". The error must come at once, naming the line.
TEST(ScenarioFile, ALineHoldingBoostsPlaceholderIsRefusedAtOnce) {
  const auto path = scenario_file("placeholder.ini", "clients = 2\n%%%invalid_line%%%\n");
  EXPECT_NE(load_error(path).find(path + ":2: not a `key = value` line"), std::string::npos) << load_error(path);
}

}  // namespace
}  // namespace semsim
