// Runs over several masters on real redis-server processes: each master its own embedded server
// (own socket, data directory, clock and persistence), restarts with downtime, per-master tables,
// the user's own masters, determinism, and what is refused as bad input.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "reports/history/history_reader.h"
#include "sim/redis/embedded_redis.h"
#include "sim/redis/redis_link.h"
#include "sim/redis/redis_session.h"
#include "sim/run/run_execution.h"
#include "tests/semsim_command.h"

namespace semsim {
namespace {

namespace fs = std::filesystem;

class MastersTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { redis_ = std::make_unique<RedisSession>(""); }
  static void TearDownTestSuite() { redis_.reset(); }
  static std::unique_ptr<RedisSession> redis_;

  static std::string dir(const std::string& name) { return (fs::path(::testing::TempDir()) / ("masters_" + name)).string(); }

  static std::string file(const std::string& name, const std::string& text) {
    fs::create_directories(dir("files"));
    const std::string path = dir("files") + "/" + name;
    std::ofstream(path) << text;
    return path;
  }

  // Redlock over 5 masters, 2 clients, limit 1, ttl 10 s, 1 ms each way, 20 s: the acceptance's runs.
  static RunOptions redlock(const std::string& actions) {
    RunOptions o;
    o.variant = "redlock";
    o.masters = 5;
    o.clients = 2;
    o.limit = 1;
    o.timeout = Micros(10'000'000);
    o.delay = Distribution::parse("fixed:1ms");
    o.duration = Micros(20'000'000);
    o.actions_file = actions;
    return o;
  }

  static RunOutput run(RunOptions o, const std::string& out, RedisSession& redis = *redis_) {
    o.out = dir(out);
    o.charts = false;
    std::ostringstream log;
    return execute_run(o, redis, log);
  }

  static std::vector<Event> history(const std::string& out) {
    HistoryReader reader(dir(out) + "/history.csv");
    std::vector<Event> events;
    for (Event e; reader.next(e);) events.push_back(e);
    return events;
  }

  static std::string slurp(const std::string& path) {
    std::ifstream in(path);
    return {std::istreambuf_iterator<char>(in), {}};
  }
};
std::unique_ptr<RedisSession> MastersTest::redis_;

std::vector<Event> rows_of(const std::vector<Event>& events, Op op, int client = -1) {
  std::vector<Event> out;
  for (const Event& e : events)
    if (e.op == op && (client < 0 || e.client == client)) out.push_back(e);
  return out;
}

TEST_F(MastersTest, EachMasterIsAServerOfItsOwnAndTheRunLeavesNoKeysOnAny) {
  const std::string actions = file("hold.csv", "at,client,action,arg\n0ms,1,acquire,10s\n");
  RunOptions o = redlock(actions);
  o.masters = 3;
  o.duration = Micros(500'000);
  const RunOutput out = run(o, "own");
  ASSERT_TRUE(out.result.completed) << out.result.stop_reason;
  ASSERT_EQ(redis_->masters(), 3);
  std::set<std::string> sockets;
  for (int m = 0; m < 3; ++m) {
    sockets.insert(redis_->master(m).target().unix_path);
    auto link = RedisLink::connect(redis_->master(m).target());
    EXPECT_EQ(link->execute({{"DBSIZE"}}).at(0).integer, 0) << "master " << m + 1;
  }
  EXPECT_EQ(sockets.size(), 3u);
  const auto granted = rows_of(history("own"), Op::acquire, 1);
  ASSERT_EQ(granted.size(), 2u);
  EXPECT_EQ(granted[1].phase, Phase::ok);
  EXPECT_EQ(granted[1].detail.substr(0, 24), "votes=3/3 granted=1,2,3 ");
  // Back to one master: the others are stopped.
  RunOptions one;
  one.variant = "lua";
  one.duration = Micros(100'000);
  ASSERT_TRUE(run(one, "one").result.completed);
  EXPECT_EQ(redis_->masters(), 1);
}

// Master 3 crashes at 1 s and is down 10.1 s: client 2's acquire at 6.5 s finds it refusing
// connections (a failed vote), and masters 1 and 2 still hold client 1's key: refused.
TEST_F(MastersTest, AMasterDownForItsDowntimeRefusesConnectionsAndComesBack) {
  const std::string actions = file("down.csv",
                                   "at,client,action,arg,masters\n0ms,1,partition,100ms,4 5\n0ms,1,acquire,8s,\n"
                                   "1s,0,redis_restart,10100ms,3\n6500ms,2,acquire,1s,\n12s,2,acquire,1s,\n");
  const RunOutput out = run(redlock(actions), "down");
  ASSERT_TRUE(out.result.completed) << out.result.stop_reason;
  EXPECT_EQ(out.summary.over_admission, 0);
  const auto events = history("down");
  const auto restart = rows_of(events, Op::redis_restart);
  ASSERT_EQ(restart.size(), 1u);
  EXPECT_EQ(restart[0].detail, "master=3 persistence=none down_us=10100000 lost_since_us=0");
  const auto acquires = rows_of(events, Op::acquire, 2);
  ASSERT_EQ(acquires.size(), 4u);
  EXPECT_EQ(acquires[1].phase, Phase::fail);
  EXPECT_NE(acquires[1].detail.find("votes=2/5 granted=4,5 "), std::string::npos) << acquires[1].detail;
  // At 12 s master 3 is back (empty) and client 1's keys have expired everywhere: granted.
  EXPECT_EQ(acquires[3].phase, Phase::ok);
  EXPECT_NE(acquires[3].detail.find("votes=5/5"), std::string::npos) << acquires[3].detail;
}

// Persistence and clocks per master (masters.csv): master 3 keeps its data (aof-always) where the
// others lose it; master 2's clock runs fast, so client 1's key there expires early.
TEST_F(MastersTest, TheMastersFileGivesEachMasterItsPersistenceAndClockRate) {
  const std::string masters = file("masters.csv", "master,skew,drift_ppm,persistence\n3,,,aof-always\n");
  const std::string actions = file("aof.csv",
                                   "at,client,action,arg,masters\n0ms,1,partition,100ms,4 5\n0ms,1,acquire,8s,\n"
                                   "1s,0,redis_restart,,3\n6500ms,2,acquire,1s,\n");
  RunOptions o = redlock(actions);
  o.masters_file = masters;
  const RunOutput kept = run(o, "aof");
  EXPECT_EQ(kept.summary.over_admission, 0);
  EXPECT_EQ(rows_of(history("aof"), Op::redis_restart).at(0).detail, "master=3 persistence=aof-always");

  // The same timeline without the restart, master 2's clock running at 1.95 times the rate: client
  // 1's 10 s key there expires at 5.13 s of true time, and client 2 at 6 s gets 2, 4 and 5.
  const std::string fast = file("drift.csv", "master,drift_ppm\n2,950000\n");
  const std::string no_restart = file("plain.csv",
                                      "at,client,action,arg,masters\n0ms,1,partition,100ms,4 5\n0ms,1,acquire,8s,\n"
                                      "6s,2,acquire,1s,\n");
  o = redlock(no_restart);
  o.masters_file = fast;
  const RunOutput early = run(o, "skew");
  EXPECT_EQ(early.summary.over_admission, 1);
  const auto second = rows_of(history("skew"), Op::acquire, 2);
  ASSERT_EQ(second.size(), 2u);
  EXPECT_NE(second[1].detail.find("granted=2,4,5 "), std::string::npos) << second[1].detail;
}

// The same seed gives the same bytes with 5 servers; pipelined or not, the same history.
TEST_F(MastersTest, FiveMastersReplayByteForByteWithAndWithoutTheLookahead) {
  RunOptions o;
  o.variant = "redlock-semaphore";
  o.masters = 5;
  o.clients = 20;
  o.limit = 3;
  o.timeout = Micros(200'000);
  o.hold = Distribution::parse("uniform:10ms..50ms");
  o.delay = Distribution::parse("uniform:0ms..3ms");
  o.refresh_every = Micros(40'000);
  o.retries = 2;
  o.duration = Micros(1'500'000);
  o.seed = 11;
  o.server_drift_ppm = 300;
  const RunOutput a = run(o, "same-a");
  const RunOutput b = run(o, "same-b");
  o.pipeline = false;
  const RunOutput c = run(o, "same-c");
  ASSERT_TRUE(a.result.completed && b.result.completed && c.result.completed);
  EXPECT_GT(a.summary.granted, 10);
  EXPECT_EQ(a.summary.over_admission, 0);
  const std::string first = slurp(dir("same-a") + "/history.csv");
  EXPECT_EQ(first, slurp(dir("same-b") + "/history.csv"));
  EXPECT_EQ(first, slurp(dir("same-c") + "/history.csv"));
}

// The user's own masters: only the run's keys, removed from every one.
TEST_F(MastersTest, TheUsersMastersKeepOnlyTheirOwnKeys) {
  std::vector<std::unique_ptr<EmbeddedRedis>> theirs;
  for (int i = 0; i < 3; ++i) theirs.push_back(std::make_unique<EmbeddedRedis>());
  for (auto& server : theirs) RedisLink::connect(server->target())->execute({{"SET", "theirs", "1"}});
  RedisSession user("unix://" + theirs[0]->target().unix_path);
  RunOptions o;
  o.variant = "redlock";
  o.masters = 3;
  o.more_redis_urls = {"unix://" + theirs[1]->target().unix_path, "unix://" + theirs[2]->target().unix_path};
  o.redis_url = "unix://" + theirs[0]->target().unix_path;
  o.mode = TimeMode::paced;
  o.clients = 3;
  o.limit = 1;
  o.timeout = Micros(1'000'000);
  o.duration = Micros(500'000);
  const RunOutput out = run(o, "user", user);
  ASSERT_TRUE(out.result.completed) << out.result.stop_reason;
  EXPECT_GE(out.summary.granted, 1);
  for (auto& server : theirs) {
    auto link = RedisLink::connect(server->target());
    EXPECT_EQ(link->execute({{"DBSIZE"}}).at(0).integer, 1);
    EXPECT_EQ(link->execute({{"GET", "theirs"}}).at(0).text, "1");
  }
}

TEST(MastersInput, WhatSeveralMastersCannotTakeIsBadInputNamingItsPlace) {
  const std::string base = "run --duration 100ms --no-charts --out " + (fs::path(::testing::TempDir()) / "masters_bad").string();
  const auto expect_bad = [&](const std::string& args, const std::string& message) {
    const auto [code, err] = run_semsim(base + " " + args);
    EXPECT_EQ(code, 2) << args << "\n" << err;
    EXPECT_NE(err.find(message), std::string::npos) << args << "\n" << err;
  };
  expect_bad("--variant lua --masters 3", "variant lua runs on one Redis");
  expect_bad("--variant redlock --masters 10", "--masters=10: must be between 1 and 9");
  expect_bad("--variant redlock --masters 3 --replicas 1", "have no replicas");
  expect_bad("--variant redlock --masters 3 --persistence aof-everysec", "not with --persistence aof-everysec");
  expect_bad("--variant redlock --masters 2 --redis unix:///a --redis unix:///b --redis unix:///c",
             "--redis is given 3 times but --masters is 2");
  const fs::path files = fs::path(::testing::TempDir()) / "masters_bad_files";
  fs::create_directories(files);
  std::ofstream(files / "no-masters.csv") << "at,client,action,arg\n0ms,0,server_jump,+1s\n";
  expect_bad("--variant redlock --masters 3 --actions-file " + (files / "no-masters.csv").string(),
             "no-masters.csv:2: field 'masters': with 3 masters a server action names the masters it acts on");
  std::ofstream(files / "six.csv") << "at,client,action,arg,masters\n0ms,1,partition,1s,2 6\n";
  expect_bad("--variant redlock --masters 5 --actions-file " + (files / "six.csv").string(),
             "six.csv:2: field 'masters': master 6 does not exist (masters are 1..5)");
  std::ofstream(files / "pause-masters.csv") << "at,client,action,arg,masters\n0ms,1,pause,1s,2\n";
  expect_bad("--variant redlock --masters 5 --actions-file " + (files / "pause-masters.csv").string(),
             "pause-masters.csv:2: field 'masters': pause acts on its client, not on masters");
  std::ofstream(files / "masters.csv") << "master,persistence\n4,aof-always\n";
  expect_bad("--variant redlock --masters 3 --masters-file " + (files / "masters.csv").string(),
             "masters.csv:2: field 'master': master 4 does not exist (masters are 1..3)");
  std::ofstream(files / "links.csv") << "client,master,delay_out\n1,2,-1ms\n";
  expect_bad("--variant redlock --masters 3 --links-file " + (files / "links.csv").string(),
             "links.csv:2: field 'delay_out': a delay must not be negative");
}

// run.ini replays the masters and the links: `semsim scenario OUT/run.ini` gives the same history,
// byte for byte, as the run that wrote it (masters.csv's clock rate and persistence, links.csv's
// staged delays, the master timeout and drift factor included).
TEST(MastersInput, RunIniReplaysTheMastersAndTheLinks) {
  const fs::path d = fs::path(::testing::TempDir()) / "masters_replay";
  fs::remove_all(d);
  fs::create_directories(d);
  std::ofstream(d / "masters.csv") << "master,drift_ppm,persistence\n2,3000,aof-always\n4,-2000,\n";
  std::ofstream(d / "links.csv") << "client,master,delay_out,delay_in\n1,4,3ms,1ms\n2,1,4ms,2ms\n3,5,5ms,1ms\n";
  std::ofstream(d / "actions.csv") << "at,client,action,arg,masters\n300ms,0,redis_restart,50ms,3\n"
                                      "500ms,2,partition,100ms,1 2\n700ms,0,server_jump,+200ms,5\n";
  const std::string files = " --masters-file " + (d / "masters.csv").string() + " --links-file " +
                            (d / "links.csv").string() + " --actions-file " + (d / "actions.csv").string();
  const auto [code, err] = run_semsim("run --variant redlock --masters 5 --mode virtual --clients 3 --timeout 300ms "
                                      "--master-timeout 20ms --drift-factor 0.02 --duration 1500ms --seed 7 --no-charts "
                                      "--out " + (d / "first").string() + files);
  ASSERT_EQ(code, 0) << err;
  const auto [again, err2] = run_semsim("scenario --out " + (d / "replay").string() + " " + (d / "first" / "run.ini").string());
  ASSERT_EQ(again, 0) << err2;
  std::string replayed;
  for (const auto& e : fs::recursive_directory_iterator(d / "replay"))
    if (e.path().filename() == "history.csv") replayed = e.path().string();
  ASSERT_FALSE(replayed.empty());
  const auto slurp = [](const fs::path& p) {
    std::ifstream in(p);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const std::string first = slurp(d / "first" / "history.csv");
  EXPECT_NE(first.find("master=3"), std::string::npos);
  EXPECT_NE(first.find("partition"), std::string::npos);
  EXPECT_EQ(first, slurp(replayed));
}

// What a script variant over several masters says of its library's own retries and timeouts
// (docs/script-variants.md, "Several masters"): npm redlock's Lua (acquire refuses a key that
// exists, its own included; release deletes where the value is its own), written here.
class LibraryMastersTest : public MastersTest {
 protected:
  static std::string library_ini(const std::string& name, const std::string& masters_keys) {
    file("lock.lua",
         "for i, key in ipairs(KEYS) do\n  if redis.call('exists', key) == 1 then return 0 end\nend\n"
         "for i, key in ipairs(KEYS) do redis.call('set', key, ARGV[1], 'PX', ARGV[2]) end\nreturn #KEYS\n");
    file("unlock.lua",
         "local count = 0\nfor i, key in ipairs(KEYS) do\n  if redis.call('get', key) == ARGV[1] then\n"
         "    redis.pcall('del', key)\n    count = count + 1\n  end\nend\nreturn count\n");
    return file(name, "clock = ttl\nacquire = lock.lua\nacquire.args = {id} {timeout_ms}\nrelease = unlock.lua\n"
                      "release.args = {id}\nmasters = each\n" + masters_keys);
  }
  // Three clients ask at once and split the votes 2/2/1 (scenarios/conformance/masters-split-votes).
  static RunOptions split_votes(const std::string& ini, int retries) {
    RunOptions o;
    o.variant = "script:" + ini;
    o.masters = 5;
    o.clients = 3;
    o.limit = 1;
    o.timeout = Micros(2'000'000);
    o.duration = Micros(4'000'000);
    o.retries = retries;
    o.retry_delay = Distribution::parse("uniform:50ms..150ms");
    const fs::path conformance = fs::path(SEMSIM_SOURCE_DIR) / "scenarios/conformance";
    o.links_file = (conformance / "masters-split-votes.links.csv").string();
    o.actions_file = (conformance / "masters-split-votes.actions.csv").string();
    return o;
  }
  static std::int64_t first_grant_us(const std::string& out) {
    for (const Event& e : rows_of(history(out), Op::acquire))
      if (e.phase == Phase::ok) return e.true_us;
    return -1;
  }
};

// masters.release_on_refusal = last (npm redlock 5's retries): the tries of one acquire share its
// value and keep their votes, so three clients that split the votes block each other, and
// themselves, until the keys expire (the 2 s ttl); `yes` gives the votes back and one is granted
// within a few tries. Where the last try is refused, the one value releases every try's keys: an
// acquire at 500 ms, after three tries of each, finds every master free.
TEST_F(LibraryMastersTest, ReleaseOnlyAfterTheLastRetryKeepsTheVotesAndBlocksItselfUntilTheyExpire) {
  const std::string give_back = library_ini("give-back.ini", "masters.release_on_refusal = yes\n");
  const std::string keep = library_ini("keep.ini", "masters.release_on_refusal = last\n");
  ASSERT_TRUE(run(split_votes(give_back, 20), "give-back").result.completed);
  const std::int64_t given_back = first_grant_us("give-back");
  EXPECT_GE(given_back, 0);
  EXPECT_LT(given_back, 1'000'000);
  const RunOutput kept = run(split_votes(keep, 20), "keep");
  ASSERT_TRUE(kept.result.completed) << kept.result.stop_reason;
  EXPECT_GE(first_grant_us("keep"), 2'000'000) << "a grant before the split votes expired";
  EXPECT_GE(kept.summary.longest_no_grant_us, 2'000'000);
  EXPECT_EQ(kept.summary.over_admission, 0);

  RunOptions last = split_votes(keep, 2);
  last.retry_delay = Distribution::parse("fixed:100ms");
  last.actions_file = file("split-then-one.csv", "at,client,action,arg,masters\n0ms,1,acquire,300ms,\n"
                                                 "0ms,2,acquire,300ms,\n0ms,3,acquire,300ms,\n500ms,1,acquire,300ms,\n");
  ASSERT_TRUE(run(last, "last").result.completed);
  const auto client1 = rows_of(history("last"), Op::acquire, 1);
  ASSERT_EQ(client1.size(), 8u);  // three tries, invoke and outcome, then the acquire at 500 ms
  for (std::size_t i = 1; i < 6; i += 2) EXPECT_EQ(client1[i].phase, Phase::fail) << client1[i].detail;
  EXPECT_EQ(client1[7].phase, Phase::ok) << "the chain's keys were not all released: " << client1[7].detail;
  EXPECT_NE(client1[7].detail.find("votes=5/5"), std::string::npos) << client1[7].detail;
}

// masters.timeout: a library with no timeout of its own (none) waits for the masters a partition
// cuts it from, and gets them once it heals, as over TCP: client 1 holds on all five, so master
// 3's restart without persistence leaves it a quorum and client 2 is refused. With the run's
// 50 ms it held on three and the restart over-admits (docs/redlock.md); with its own 20 ms it gives
// up on masters 4 and 5 after 20 ms.
TEST_F(LibraryMastersTest, ALibraryWithoutAMasterTimeoutWaitsOutAPartition) {
  const std::string actions = file("restart.csv",
                                   "at,client,action,arg,masters\n0ms,1,partition,100ms,4 5\n0ms,1,acquire,8s,\n"
                                   "1s,0,redis_restart,,3\n6500ms,2,acquire,1s,\n");
  const auto client1_grant = [](const std::string& out) { return rows_of(history(out), Op::acquire, 1).at(1); };
  RunOptions o = redlock(actions);
  o.variant = "script:" + library_ini("run.ini", "");
  const RunOutput run_timeout = run(o, "run-timeout");
  EXPECT_EQ(run_timeout.summary.over_admission, 1);
  EXPECT_NE(client1_grant("run-timeout").detail.find("granted=1,2,3 no_answer=4,5 elapsed_us=50000"), std::string::npos)
      << client1_grant("run-timeout").detail;

  o.variant = "script:" + library_ini("none.ini", "masters.timeout = none\n");
  const RunOutput none = run(o, "none");
  ASSERT_TRUE(none.result.completed) << none.result.stop_reason;
  EXPECT_EQ(none.summary.over_admission, 0);
  const Event waited = client1_grant("none");
  EXPECT_EQ(waited.phase, Phase::ok);
  EXPECT_NE(waited.detail.find("votes=5/5"), std::string::npos) << waited.detail;
  EXPECT_GE(waited.true_us, 100'000) << "answered before the partition healed";
  EXPECT_EQ(rows_of(history("none"), Op::acquire, 2).at(1).phase, Phase::fail);

  o.variant = "script:" + library_ini("own.ini", "masters.timeout = 20ms\n");
  run(o, "own");
  EXPECT_NE(client1_grant("own").detail.find("no_answer=4,5 elapsed_us=20000"), std::string::npos)
      << client1_grant("own").detail;
}

}  // namespace
}  // namespace semsim
