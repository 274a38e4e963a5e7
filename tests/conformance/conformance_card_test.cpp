// `semsim conformance` end to end on the shipped catalogue, with built-in variants (the embedded
// Redis, virtual time): which cells are defects, exit codes, the files it writes.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "tests/drivers/run_output.h"

namespace semsim {
namespace {

namespace fs = std::filesystem;
using testing::run_logged;

struct CardRun {
  int exit = 0;
  std::string output;
  std::map<std::string, std::string> verdicts;  // "folder situation" -> verdict
};

// The CSV's situation, folder and verdict columns (its fields may hold commas, in quotes).
CardRun card(const std::string& name, const std::string& args) {
  const fs::path out = fs::path(::testing::TempDir()) / ("conformance-" + name);
  fs::remove_all(out);
  CardRun r;
  r.exit = run_logged(std::string(SEMSIM_BINARY) + " conformance --out " + out.string() + " " + args, out.string() + ".log",
                      r.output);
  std::ifstream csv(out / "conformance.csv");
  std::string line;
  std::getline(csv, line);
  while (std::getline(csv, line)) {
    std::vector<std::string> fields;
    std::string field;
    bool quoted = false;
    for (char c : line) {
      if (c == '"') quoted = !quoted;
      else if (c == ',' && !quoted) fields.push_back(std::exchange(field, ""));
      else field += c;
    }
    fields.push_back(field);
    if (fields.size() >= 7) r.verdicts[fields[3] + " " + fields[0]] = fields[6];  // folder situation -> verdict
  }
  return r;
}

TEST(ConformanceCard, ALeaseOnTheClientsClocksIsALeaseLimitWhereClocksDifferAndOneOnRedisHolds) {
  const CardRun r = card("models", "--variant basic --variant lua");
  EXPECT_EQ(r.exit, 0) << r.output;  // no defect: the clocks' cells are that design's limit
  ASSERT_EQ(r.verdicts.size(), 24u) << r.output;
  for (const auto& [cell, verdict] : r.verdicts) {
    EXPECT_NE(verdict, "defect") << cell;
    EXPECT_NE(verdict, "not staged") << cell;
  }
  for (const char* clocks : {"clock-ahead", "clock-behind", "drift"}) {
    EXPECT_EQ(r.verdicts.at(std::string("basic ") + clocks), "lease limit") << clocks;
    EXPECT_EQ(r.verdicts.at(std::string("lua ") + clocks), "holds") << clocks;
  }
  EXPECT_EQ(r.verdicts.at("lua paused-past-lease"), "lease limit");
  EXPECT_EQ(r.verdicts.at("lua restart-no-persistence"), "lease limit");
  EXPECT_EQ(r.verdicts.at("lua late-release"), "holds");
  EXPECT_EQ(r.verdicts.at("basic server-clock-jump"), "holds");  // its leases are on the clients' clocks
  const fs::path out = fs::path(::testing::TempDir()) / "conformance-models";
  std::ifstream page(out / "conformance.html");
  const std::string html((std::istreambuf_iterator<char>(page)), {});
  EXPECT_NE(html.find("href=\"basic/clock-ahead/timeline.html\""), std::string::npos);
  EXPECT_TRUE(fs::exists(out / "basic" / "clock-ahead" / "timeline.html"));
  EXPECT_TRUE(fs::exists(out / "lua" / "drift" / "history.csv"));
}

TEST(ConformanceCard, OverSeveralMastersTheValidityCheckAndTheLimitPerMasterAreJudged) {
  const CardRun lock = card("redlock", "--variant redlock --variant lua --masters 5 --situation masters-pause-in-flight "
                                       "--situation masters-vote-orders --situation masters-restart-empty");
  EXPECT_EQ(lock.exit, 1) << lock.output;
  EXPECT_EQ(lock.verdicts.at("redlock masters-pause-in-flight"), "holds");
  EXPECT_EQ(lock.verdicts.at("lua masters-pause-in-flight"), "defect");  // no validity check
  EXPECT_EQ(lock.verdicts.at("redlock masters-restart-empty"), "lease limit");
  EXPECT_EQ(lock.verdicts.at("redlock masters-vote-orders"), "n/a");  // a semaphore's, at limit 1
  const CardRun semaphore =
      card("votes", "--variant redlock-semaphore --variant script:" + std::string(SEMSIM_SOURCE_DIR) +
                        "/scenarios/redlock-examples/zset-semaphore.ini --masters 5 --limit 2 --situation masters-vote-orders");
  EXPECT_EQ(semaphore.exit, 1) << semaphore.output;
  EXPECT_EQ(semaphore.verdicts.at("redlock-semaphore masters-vote-orders"), "holds");
  EXPECT_EQ(semaphore.verdicts.at("zset-semaphore masters-vote-orders"), "defect");
}

TEST(ConformanceCard, ALimitAboveASituationsOwnKeepsTheOtherPermitsHeld) {
  const CardRun r = card("limit-3", "--variant lua --variant basic --limit 3 --situation clock-ahead --situation paused-past-lease");
  EXPECT_EQ(r.exit, 0) << r.output;
  EXPECT_EQ(r.verdicts.at("lua clock-ahead"), "holds");
  EXPECT_EQ(r.verdicts.at("basic clock-ahead"), "lease limit");
  EXPECT_EQ(r.verdicts.at("lua paused-past-lease"), "lease limit");
  EXPECT_NE(r.output.find("at most 3 holder(s)"), std::string::npos) << r.output;
}

TEST(ConformanceCard, CtrlCWritesThePartialCardSaidPartialWithTheCellsNotRun) {
  // A paced driver's cells take seconds: Ctrl-C once the first is judged.
  const fs::path out = fs::path(::testing::TempDir()) / "conformance-interrupted";
  fs::remove_all(out);
  const std::string log = out.string() + ".log";
  const std::string script = std::string(SEMSIM_BINARY) + " conformance --mode paced --variant \"driver:python3 " +
                             SEMSIM_SOURCE_DIR + "/examples/drivers/minimal-lock-driver.py\" --variant lua --out " +
                             out.string() + " >" + log + " 2>&1 & pid=$!; for i in $(seq 600); do grep -q \": holds\" " + log +
                             " 2>/dev/null && break; sleep 0.1; done; kill -INT $pid; wait $pid";
  const int status = std::system(("bash -c '" + script + "'").c_str());
  std::ifstream in(log);
  const std::string output((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 130) << output;
  EXPECT_NE(output.find("PARTIAL: interrupted after "), std::string::npos) << output;
  std::ifstream csv(out / "conformance.csv");
  const std::string rows((std::istreambuf_iterator<char>(csv)), {});
  EXPECT_NE(rows.find(",holds,"), std::string::npos) << rows;
  EXPECT_NE(rows.find(",lua,lua,lua,not run,not run,interrupted before this cell ran,"), std::string::npos) << rows;
  std::ifstream page(out / "conformance.html");
  const std::string html((std::istreambuf_iterator<char>(page)), {});
  EXPECT_LT(html.find("PARTIAL: interrupted"), html.find("<h1>")) << "the page says PARTIAL before anything else";
}

TEST(ConformanceCard, BadInputIsRefusedBeforeAnythingRuns) {
  EXPECT_EQ(card("no-variant", "").exit, 2);
  const CardRun unknown = card("unknown", "--variant lua --situation no-such");
  EXPECT_EQ(unknown.exit, 2);
  EXPECT_NE(unknown.output.find("--situation no-such: no such situation"), std::string::npos) << unknown.output;
  EXPECT_EQ(card("masters-only", "--variant lua --situation masters-split-votes").exit, 2);
}

}  // namespace
}  // namespace semsim
