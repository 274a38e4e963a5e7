// The conformance card's rules, its classification of a cell, and its outputs.
#include "reports/checks/conformance.h"

#include <gtest/gtest.h>

#include "reports/outputs/conformance_page.h"

namespace semsim {
namespace {

Figures staged_run(Figures more = {}) {
  Figures f{{"exercised", "yes"}, {"as_planned", "yes"}, {"granted", "2"}, {"max_holders", "1"},
            {"over_admission", "0"}, {"live_lease_over_admission", "0"}, {"late_grants", "0"}, {"liveness", "valid"}};
  for (const auto& [k, v] : more) f[k] = v;
  return f;
}

SituationRules default_rules() {
  return {parse_rule("granted >= 2"), parse_rule("live_lease_over_admission > 0 or liveness = invalid"),
          parse_rule("over_admission > 0")};
}

TEST(ConformanceRule, AndBindsTighterThanOr) {
  const Rule r = parse_rule("granted >= 2 and over_admission = 0 or late_grants > 0");
  ASSERT_EQ(r.any_of.size(), 2u);
  EXPECT_EQ(r.any_of[0].size(), 2u);
  EXPECT_TRUE(holds(r, staged_run()));
  EXPECT_FALSE(holds(r, staged_run({{"granted", "1"}})));
  EXPECT_TRUE(holds(r, staged_run({{"granted", "1"}, {"late_grants", "1"}})));
}

TEST(ConformanceRule, ComparesNumbersNumericallyAndWordsAsText) {
  EXPECT_TRUE(holds(parse_rule("longest_no_grant_ms > 1000"), {{"longest_no_grant_ms", "1000.001"}}));
  EXPECT_FALSE(holds(parse_rule("longest_no_grant_ms > 1000"), {{"longest_no_grant_ms", "1000.000"}}));
  EXPECT_TRUE(holds(parse_rule("liveness = invalid"), {{"liveness", "invalid"}}));
  EXPECT_TRUE(holds(parse_rule("liveness != invalid"), {{"liveness", "valid"}}));
  EXPECT_FALSE(holds(parse_rule("lost_permits >= 1"), {{"lost_permits", ""}}));  // n/a is not met
}

TEST(ConformanceRule, NeverHoldsNever) {
  const Rule r = parse_rule("never");
  EXPECT_TRUE(r.any_of.empty());
  std::string why;
  EXPECT_FALSE(holds(r, staged_run(), &why));
  EXPECT_EQ(why, "never");
}

TEST(ConformanceRule, SaysWhatHeldOrWhatFailedWithTheObservedValues) {
  std::string why;
  EXPECT_TRUE(holds(parse_rule("granted >= 2"), staged_run(), &why));
  EXPECT_EQ(why, "granted >= 2 (observed 2)");
  EXPECT_FALSE(holds(parse_rule("granted >= 3 or late_grants > 0"), staged_run(), &why));
  EXPECT_EQ(why, "granted >= 3 (observed 2); nor late_grants > 0 (observed 0)");
}

TEST(ConformanceRule, RefusesWhatIsNotARuleSayingWhy) {
  const auto why = [](const std::string& text) {
    try {
      parse_rule(text);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(why("").find("no condition"), std::string::npos);
  EXPECT_NE(why("grants >= 2").find("'grants' is not a figure"), std::string::npos);
  EXPECT_NE(why("granted => 2").find("not a comparison"), std::string::npos);
  EXPECT_NE(why("granted >=").find("METRIC OP VALUE"), std::string::npos);
  EXPECT_NE(why("granted >= 2 but").find("joined by and / or"), std::string::npos);
  EXPECT_NE(why("granted >= 2 xor late_grants > 0").find("joined by and / or"), std::string::npos);
  EXPECT_NE(why("granted >= 2 and").find("ends with"), std::string::npos);
}

TEST(ConformanceCell, ADefectComesBeforeALeaseLimitAndCarriesItsWitness) {
  const Cell c = classify(default_rules(), staged_run({{"live_lease_over_admission", "1"}, {"over_admission", "1"}}),
                          "live leases at 0.9 s: ...", "holders at 0.6 s: ...");
  EXPECT_EQ(c.verdict, CellVerdict::defect);
  EXPECT_EQ(c.why, "live_lease_over_admission > 0 (observed 1); live leases at 0.9 s: ...");
}

TEST(ConformanceCell, AnOverAdmissionPastALapsedLeaseIsALeaseLimit) {
  const Cell c = classify(default_rules(), staged_run({{"over_admission", "1"}}), "", "holders at 0.6 s: ...");
  EXPECT_EQ(c.verdict, CellVerdict::lease_limit);
  EXPECT_EQ(c.why, "over_admission > 0 (observed 1); holders at 0.6 s: ...");
  SituationRules staged_so = default_rules();
  staged_so.lease_limit = parse_rule("never");
  EXPECT_EQ(classify(staged_so, staged_run({{"over_admission", "1"}}), "", "").verdict, CellVerdict::holds);
}

TEST(ConformanceCell, NothingIsJudgedWhenTheSituationWasNotStaged) {
  const Figures defect{{"live_lease_over_admission", "1"}};
  Figures f = staged_run(defect);
  f["exercised"] = "no";
  EXPECT_EQ(classify(default_rules(), f, "", "").verdict, CellVerdict::not_staged);
  f = staged_run(defect);
  f["as_planned"] = "no";
  f["off_plan"] = "client 1's acquire c1-1 never started";
  const Cell off = classify(default_rules(), f, "", "");
  EXPECT_EQ(off.verdict, CellVerdict::not_staged);
  EXPECT_NE(off.why.find("never started"), std::string::npos);
  f = staged_run(defect);
  f["granted"] = "1";
  const Cell unstaged = classify(default_rules(), f, "", "");
  EXPECT_EQ(unstaged.verdict, CellVerdict::not_staged);
  EXPECT_EQ(unstaged.why, "the situation did not happen: granted >= 2 (observed 1)");
}

TEST(ConformanceCell, HoldsWhenNothingElseDoes) {
  const Cell c = classify(default_rules(), staged_run(), "", "");
  EXPECT_EQ(c.verdict, CellVerdict::holds);
  EXPECT_EQ(c.why, "2 grant(s), at most 1 holder(s)");
}

Card hostile_card() {
  Card card;
  card.columns.push_back({"<img src=x onerror=alert(1)>@1", "driver:node \"x\".js", "warp", "x"});
  CardRow row{"late-release", "a <b>release</b>, late", "refuses & says \"no\"", {}};
  row.cells.push_back({{CellVerdict::defect, "client 2 (<script>alert(2)</script>)"}, "x/late-release/timeline.html"});
  card.rows.push_back(row);
  return card;
}

TEST(ConformancePage, EveryTextIsEscapedAndNoScriptRuns) {
  const std::string page = conformance_html(hostile_card());
  EXPECT_EQ(page.find("<img"), std::string::npos);
  EXPECT_EQ(page.find("<script"), std::string::npos);
  EXPECT_EQ(page.find("<b>release"), std::string::npos);
  EXPECT_NE(page.find("&lt;img src=x onerror=alert(1)&gt;@1"), std::string::npos);
  EXPECT_NE(page.find("Content-Security-Policy"), std::string::npos);
  EXPECT_NE(page.find("script-src 'none'"), std::string::npos);
  EXPECT_NE(page.find("href=\"x/late-release/timeline.html\""), std::string::npos);
  EXPECT_NE(page.find("class=\"defect\""), std::string::npos);
}

TEST(ConformancePage, TheCsvHasOneQuotedRowPerSituationAndLibrary) {
  EXPECT_EQ(conformance_csv(hostile_card()),
            "situation,title,library,folder,variant,mode,verdict,why,timeline\n"
            "late-release,\"a <b>release</b>, late\",<img src=x onerror=alert(1)>@1,x,\"driver:node \"\"x\"\".js\",warp,"
            "defect,client 2 (<script>alert(2)</script>),x/late-release/timeline.html\n");
}

}  // namespace
}  // namespace semsim
