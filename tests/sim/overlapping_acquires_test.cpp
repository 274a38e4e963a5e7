// A scripted client's acquires overlap: each acquire row starts when it comes due, even while the
// client's earlier acquire is in flight or holding, so one client may hold several permits; each
// is held for its own row's time and released on its own, and every permit counts
// (docs/contract.md, actions.csv; reports/DEFINITIONS.md, Safety).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <sys/wait.h>

#include "reports/history/history_reader.h"

namespace semsim {
namespace {

namespace fs = std::filesystem;

fs::path folder(const std::string& name) {
  const fs::path d = fs::path(::testing::TempDir()) / ("overlap_" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// `semsim run` of basic, limit 2, 1 s, with these actions.csv rows and `options`; its exit code.
// The run's folder is `d`/out.
int run_plan(const fs::path& d, const std::string& actions, const std::string& options) {
  std::ofstream(d / "actions.csv") << "at,client,action,arg\n" << actions;
  const std::string command = std::string(SEMSIM_BINARY) + " run --no-charts --variant basic --limit 2 --duration 1s" +
                              " --actions-file " + (d / "actions.csv").string() + " --out " + (d / "out").string() +
                              " " + options + " >" + (d / "log").string() + " 2>&1";
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::vector<Event> history(const fs::path& d) {
  HistoryReader r((d / "out" / "history.csv").string());
  std::vector<Event> out;
  for (Event e; r.next(e);) out.push_back(e);
  return out;
}

// Three clients, client 2's clock 100 ms behind (client 3 unscripted: it loops).
std::string skewed_three(const fs::path& d) {
  std::ofstream(d / "clients.csv") << "client,skew\n2,-100ms\n";
  return "--clients 3 --clients-file " + (d / "clients.csv").string() + " --expect over_admission_max=0";
}

// Client 1 asks twice at 0 and is granted both permits of 2; client 2, 100 ms behind, asks at
// 10 ms and basic admits it too: three permits held from 10 ms. Before permits were counted, the
// first plan passed (client 1 counted once) where the second, the same acquires on clients 1 and
// 3, failed.
TEST(OverlappingAcquires, TwoPermitsOfOneClientFailAnExpectationAsTwoClientsDo) {
  const fs::path one = folder("one_client"), two = folder("two_clients");
  EXPECT_EQ(run_plan(one, "0ms,1,acquire,500ms\n0ms,1,acquire,500ms\n10ms,2,acquire,500ms\n", skewed_three(one)), 1);
  EXPECT_EQ(run_plan(two, "0ms,1,acquire,500ms\n0ms,3,acquire,500ms\n10ms,2,acquire,500ms\n", skewed_three(two)), 1);
  const std::vector<Event> h = history(one);
  // Rows 3, 4 and 6: client 1's two grants, client 2's, each with its own identifier.
  ASSERT_GE(h.size(), 7u);
  std::set<std::string> granted;
  for (std::size_t i : {3, 4, 6}) {
    EXPECT_EQ(h[i].op, Op::acquire);
    EXPECT_EQ(h[i].phase, Phase::ok);
    granted.insert(h[i].identifier);
  }
  EXPECT_EQ(granted.size(), 3u);
  EXPECT_EQ(h[3].client, 1);
  EXPECT_EQ(h[4].client, 1);
}

TEST(OverlappingAcquires, EachPermitOfAClientIsReleasedAfterItsOwnHold) {
  // Client 1 asks at 0 (holding 300 ms) and at 100 ms (holding 50 ms): the second permit is
  // released at 150 ms, the first at 300 ms; nothing is left held at the end.
  const fs::path d = folder("own_hold");
  ASSERT_EQ(run_plan(d, "0ms,1,acquire,300ms\n100ms,1,acquire,50ms\n", "--clients 1"), 0);
  std::map<std::string, std::int64_t> granted_at, released_at;
  for (const Event& e : history(d)) {
    if (e.client != 1) continue;
    if (e.op == Op::acquire && e.phase == Phase::ok) granted_at[e.identifier] = e.true_us;
    if (e.op == Op::release && e.phase == Phase::invoke) released_at[e.identifier] = e.true_us;
  }
  ASSERT_EQ(granted_at.size(), 2u);
  for (const auto& [id, t] : granted_at) {
    ASSERT_TRUE(released_at.count(id)) << id << " never released";
    EXPECT_EQ(released_at[id] - t, t == 0 ? 300'000 : 50'000) << id;
  }
}

TEST(OverlappingAcquires, AScriptedReleaseActsOnThePermitGrantedFirst) {
  // Client 1 holds the permits of 0 ms and 10 ms; the release row at 20 ms releases the first,
  // and the second is held to its end at 510 ms.
  const fs::path d = folder("release_last");
  ASSERT_EQ(run_plan(d, "0ms,1,acquire,500ms\n10ms,1,acquire,500ms\n20ms,1,release,\n", "--clients 1"), 0);
  std::vector<std::string> granted;
  std::map<std::string, std::int64_t> released_at;
  for (const Event& e : history(d)) {
    if (e.client != 1) continue;
    if (e.op == Op::acquire && e.phase == Phase::ok) granted.push_back(e.identifier);
    if (e.op == Op::release && e.phase == Phase::invoke) released_at[e.identifier] = e.true_us;
  }
  ASSERT_EQ(granted.size(), 2u);
  EXPECT_EQ(released_at[granted[0]], 20'000);
  EXPECT_EQ(released_at[granted[1]], 510'000);
}

}  // namespace
}  // namespace semsim
