// Driver runs end to end (`semsim run --variant driver:COMMAND`), with the dependency-free driver of
// examples/drivers/minimal-lock-driver.py (a SET NX PX lock) against the embedded Redis: what the
// history says, the faults landing on real processes, what semsim refuses, and no driver process
// outliving its run on any path. Real time on a loaded machine: margins of hundreds of ms.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "sim/drivers/driver_process.h"
#include "tests/drivers/run_output.h"

namespace {

namespace fs = std::filesystem;

struct Row {
  long long true_us, client, client_us;
  std::string op, phase, id, detail;
};

class DriverRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("semsim-driver-run-test-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    // A copy under a name of this test's own: `pgrep -f` then finds exactly its processes.
    driver_ = dir_ / "minimal-lock-driver.py";
    fs::copy_file(SEMSIM_MINIMAL_DRIVER, driver_);
    fake_ = dir_ / "fake-driver.py";
    fs::copy_file(fs::path(SEMSIM_SOURCE_DIR) / "tests/drivers/fake_driver.py", fake_);
    majority_ = dir_ / "majority-lock-driver.py";
    fs::copy_file(fs::path(SEMSIM_SOURCE_DIR) / "tests/drivers/majority_lock_driver.py", majority_);
  }
  void TearDown() override {
    EXPECT_EQ(left_running(), "") << "driver processes outlived the run";
    fs::remove_all(dir_);
  }
  // Runs semsim with `args` (a shell command line's tail), paced unless they name a mode (these are
  // the real-time tests; warp's are driver_warp_test.cpp): its exit code, and its output in output_.
  int semsim(const std::string& args, const std::string& before = "") {
    const std::string mode = args.find("--mode") == std::string::npos ? " --mode paced" : "";
    return semsim::testing::run_logged(before + std::string(SEMSIM_BINARY) + " run " + args + mode + " --out " +
                                           (dir_ / "out").string() + " --no-charts",
                                       dir_ / "log", output_);
  }
  // A driver that grants its first acquire, then says nothing of the next command: the run stops
  // after the command limit (a minute, real when paced, virtual in warp), exit 2, naming it.
  void expect_a_stall_stops_the_run(const std::string& mode) {
    EXPECT_EQ(semsim("--variant \"driver:python3 " + fake_.string() + " stalls\" --mode " + mode +
                     " --clients 1 --limit 1 --timeout 5s --hold fixed:100ms --think fixed:50ms --duration 120s"),
              2)
        << output_;
    EXPECT_NE(output_.find("client 1: the driver said nothing of `release c1-1` (no invoke) within 60 s of semsim sending it"),
              std::string::npos)
        << output_;
  }
  std::string variant() const { return "--variant \"driver:python3 " + driver_.string() + "\""; }
  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  }
  std::string summary(const std::string& column) const { return csv_column(dir_ / "out" / "summary.csv", column); }
  static std::string csv_column(const fs::path& file, const std::string& column) {
    return semsim::testing::csv_column(file, column);
  }
  std::vector<Row> history() const {
    std::ifstream in(dir_ / "out" / "history.csv");
    std::string line;
    std::getline(in, line);
    std::vector<Row> rows;
    while (std::getline(in, line)) {
      std::vector<std::string> f;
      std::string field;
      bool quoted = false;
      for (char c : line) {
        if (c == '"') quoted = !quoted;
        else if (c == ',' && !quoted) f.push_back(std::exchange(field, {}));
        else field += c;
      }
      f.push_back(field);
      rows.push_back({std::stoll(f[1]), std::stoll(f[2]), std::stoll(f[5]), f[3], f[4], f[6], f.size() > 7 ? f[7] : ""});
    }
    return rows;
  }
  // Processes whose command line names this test's own copies of the drivers.
  std::string left_running() const {
    std::string out;
    for (const auto& entry : fs::directory_iterator("/proc")) {
      std::string cmdline = semsim::read_proc_file((entry.path() / "cmdline").string());
      std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
      // semsim's own processes (the embedded Redis's watchdog, a moment after semsim) name the
      // driver on their command line too: only a driver's own count.
      if (cmdline.starts_with(SEMSIM_BINARY)) continue;
      if (cmdline.find(driver_.string()) != std::string::npos || cmdline.find(fake_.string()) != std::string::npos ||
          cmdline.find(majority_.string()) != std::string::npos) {
        const std::string state = semsim::read_proc_file((entry.path() / "stat").string());
        if (state.find(") Z") != std::string::npos) continue;  // ended, its parent about to reap it
        out += entry.path().filename().string() + " " + cmdline + "\n";
      }
    }
    return out;
  }
  // Over --masters N: tests/drivers/majority_lock_driver.py, each master's vote in its outcomes' detail.
  std::string majority_variant() const { return "--variant \"driver:python3 " + majority_.string() + "\""; }
  fs::path dir_, driver_, fake_, majority_;
  std::string output_;
};

long long median(std::vector<long long> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

TEST_F(DriverRunTest, ACalmRunOfARealLockIsValidBusyAndInTrueTimeOrder) {
  ASSERT_EQ(semsim(variant() + " --clients 3 --limit 1 --timeout 5s --hold fixed:20ms --think fixed:20ms --duration 2s"), 0)
      << output_;
  EXPECT_EQ(summary("over_admission"), "0");
  EXPECT_EQ(summary("mode"), "paced");
  EXPECT_GE(std::stoi(summary("granted")), 5) << output_;
  EXPECT_GT(std::stoi(summary("commands")), 5);  // counted by the proxies
  const auto rows = history();
  ASSERT_GE(rows.size(), 3u);
  EXPECT_EQ(rows.front().op, "run");
  EXPECT_EQ(rows.back().op, "run");
  EXPECT_EQ(rows.back().phase, "ok");
  EXPECT_TRUE(std::is_sorted(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.true_us < b.true_us; }));
  // Each permit's rows carry its ID; the library's own identifier is the ok's detail.
  std::map<std::string, std::vector<std::string>> phases;
  for (const Row& r : rows)
    if (r.op == "acquire") phases[r.id].push_back(r.phase);
  for (const auto& [id, p] : phases) {
    EXPECT_EQ(p.front(), "invoke") << id;
    if (p.size() == 2) {
      EXPECT_TRUE(p[1] == "ok" || p[1] == "fail") << id;
    }
  }
  EXPECT_TRUE(fs::exists(dir_ / "out" / "realtime.csv"));
  EXPECT_NE(output_.find("unplanned: command lag"), std::string::npos) << output_;
  EXPECT_TRUE(fs::exists(dir_ / "out" / "drivers" / "client-3.stderr"));
  EXPECT_EQ(std::system((std::string(SEMSIM_BINARY) + " analyze " + (dir_ / "out" / "history.csv").string() + " >/dev/null").c_str()), 0);
}

TEST_F(DriverRunTest, EachClientsWallClockReadsItsSkewAndItsJumps) {
  const std::string clients = write("clients.csv", "client,skew\n1,fixed:0ms\n2,fixed:-300ms\n");
  const std::string actions = write("actions.csv", "at,client,action,arg\n100ms,1,acquire,50ms\n300ms,2,acquire,50ms\n"
                                                   "500ms,2,jump,+2s\n800ms,2,acquire,50ms\n");
  ASSERT_EQ(semsim(variant() + " --clients 2 --limit 1 --timeout 5s --duration 1500ms --clients-file " + clients +
                   " --actions-file " + actions),
            0)
      << output_;
  std::vector<long long> one, two_before, two_after;
  for (const Row& r : history()) {
    if (r.op != "acquire") continue;
    const long long offset_ms = (r.client_us - r.true_us) / 1000;
    if (r.client == 1) one.push_back(offset_ms);
    if (r.client == 2) (r.true_us < 500'000 ? two_before : two_after).push_back(offset_ms);
  }
  ASSERT_FALSE(one.empty());
  ASSERT_FALSE(two_before.empty());
  ASSERT_FALSE(two_after.empty());
  EXPECT_NEAR(median(one), 0, 30);
  EXPECT_NEAR(median(two_before), -300, 30);  // WALL_MS as the driver read it, on the run's time base
  EXPECT_NEAR(median(two_after), 1700, 30);
  bool jump_row = false;
  for (const Row& r : history()) jump_row |= r.op == "jump" && r.client == 2 && r.detail == "by_us=2000000";
  EXPECT_TRUE(jump_row);
}

TEST_F(DriverRunTest, AHolderStoppedPastItsLeaseOverAdmitsAndThePauseLandsInTheHistory) {
  // 300 ms between the grant and the stop: a loaded machine may take a while to answer the acquire.
  const std::string actions = write("actions.csv", "at,client,action,arg\n100ms,1,acquire,1s\n400ms,1,pause,1200ms\n"
                                                   "1000ms,2,acquire,200ms\n");
  ASSERT_EQ(semsim(variant() + " --clients 2 --limit 1 --timeout 500ms --duration 3s --actions-file " + actions), 0)
      << output_;
  std::ifstream rows(dir_ / "out" / "history.csv");
  EXPECT_EQ(summary("over_admission"), "1") << output_ << std::string((std::istreambuf_iterator<char>(rows)), {});
  long long paused = -1, resumed = -1, release_invoke = -1;
  for (const Row& r : history()) {
    if (r.client != 1) continue;
    if (r.op == "pause") paused = r.true_us;
    if (r.op == "resume") resumed = r.true_us;
    if (r.op == "release" && r.phase == "invoke") release_invoke = r.true_us;
  }
  ASSERT_GE(paused, 0);
  // As planned, but for how late semsim's own step ran (a loaded machine): which it reports.
  const long long late_us = std::llround(std::stod(csv_column(dir_ / "out" / "realtime.csv", "step_late_max_ms")) * 1000);
  EXPECT_GE(resumed - paused, 1'200'000 - 5'000);
  EXPECT_LE(resumed - paused, 1'200'000 + late_us + 50'000);
  EXPECT_GE(release_invoke, resumed);  // the stopped process read its release only once it ran again
}

TEST_F(DriverRunTest, ACrashedClientsNextAcquireStartsAFreshProcessThatHoldsNothing) {
  // The dead process's lock (10 s lease) is still in Redis: the fresh one is refused, however long
  // it takes to start on a loaded machine.
  const std::string actions = write("actions.csv", "at,client,action,arg\n100ms,1,acquire,9s\n400ms,1,crash,\n"
                                                   "700ms,1,acquire,100ms\n");
  ASSERT_EQ(semsim(variant() + " --clients 1 --limit 1 --timeout 10s --duration 8s --actions-file " + actions), 0) << output_;
  std::vector<std::string> client1;
  for (const Row& r : history())
    if (r.client == 1) client1.push_back(r.op + " " + r.phase);
  EXPECT_EQ(client1, (std::vector<std::string>{"acquire invoke", "acquire ok", "crash ok", "acquire invoke", "acquire fail",
                                                "done ok"}))
      << output_;
  EXPECT_EQ(csv_column(dir_ / "out" / "realtime.csv", "restarts"), "1");
}

TEST_F(DriverRunTest, ARedisRestartWithoutPersistenceLosesTheLockUnderItsHolder) {
  const std::string actions = write("actions.csv", "at,client,action,arg\n100ms,1,acquire,3s\n500ms,0,redis_restart,\n"
                                                   "1200ms,2,acquire,200ms\n1600ms,2,acquire,200ms\n");
  ASSERT_EQ(semsim(variant() + " --clients 2 --limit 1 --timeout 10s --duration 2500ms --persistence none --actions-file " +
                   actions),
            0)
      << output_;
  EXPECT_EQ(summary("over_admission"), "1") << output_;
  EXPECT_EQ(summary("server_faults"), "1");
}

TEST_F(DriverRunTest, ADisconnectCutsEveryClientsConnectionAndTheyComeBack) {
  const std::string actions = write("actions.csv", "at,client,action,arg\n400ms,0,disconnect,\n");
  // A lease of 300 ms: a release that the cut made unknown leaves the lock to expire, not to block the run.
  ASSERT_EQ(semsim(variant() + " --clients 2 --limit 1 --timeout 300ms --hold fixed:20ms --think fixed:50ms --duration 2s "
                               "--actions-file " + actions),
            0)
      << output_;
  long long cut = -1, granted_after = 0;
  for (const Row& r : history()) {
    if (r.op == "disconnect") cut = r.true_us;
    if (cut >= 0 && r.op == "acquire" && r.phase == "ok" && r.true_us > cut) ++granted_after;
  }
  EXPECT_GE(cut, 400'000);
  EXPECT_GE(granted_after, 2) << output_;
}

TEST_F(DriverRunTest, APartitionHoldsTheClientsCommandsUntilItHealsAndLandsInTheHistory) {
  const std::string actions = write("actions.csv", "at,client,action,arg,masters\n100ms,1,partition,800ms,all\n"
                                                   "300ms,1,acquire,100ms,\n");
  ASSERT_EQ(semsim(variant() + " --clients 1 --limit 1 --duration 2s --actions-file " + actions), 0) << output_;
  long long parted = -1, healed = -1, granted = -1;
  std::string detail;
  for (const Row& r : history()) {
    if (r.op == "partition") parted = r.true_us, detail = r.detail;
    if (r.op == "heal") healed = r.true_us;
    if (r.op == "acquire" && r.phase == "ok") granted = r.true_us;
  }
  ASSERT_GE(parted, 100'000) << output_;
  EXPECT_EQ(detail, "masters=1 length_us=800000");
  EXPECT_GE(healed, 900'000);
  // Planned at 100 ms for 800 ms: nothing the driver sent at 300 ms reached Redis before 900 ms.
  EXPECT_GE(granted, 900'000) << output_;
}

TEST_F(DriverRunTest, ADriverRunOverThreeMastersGivesEachClientOneAddressPerMasterAndReplaysFromItsRunIni) {
  ASSERT_EQ(semsim(majority_variant() + " --masters 3 --clients 2 --limit 1 --timeout 5s --hold fixed:50ms --think fixed:50ms "
                                        "--duration 1500ms"),
            0)
      << output_;
  std::ifstream err(dir_ / "out" / "drivers" / "client-1.stderr");
  std::string said((std::istreambuf_iterator<char>(err)), {});
  std::istringstream words(said.substr(said.find("masters: ") + 9));
  std::vector<std::string> addresses;
  for (std::string w; words >> w;) addresses.push_back(w);
  ASSERT_EQ(addresses.size(), 3u) << said;
  EXPECT_EQ(std::set<std::string>(addresses.begin(), addresses.end()).size(), 3u) << said;  // a proxy per master
  int granted_on_all = 0;
  for (const Row& r : history()) granted_on_all += r.op == "acquire" && r.phase == "ok" && r.detail == "granted=1,2,3";
  EXPECT_GE(granted_on_all, 2) << output_;
  EXPECT_EQ(summary("over_admission"), "0") << output_;
  EXPECT_EQ(summary("lost_permits"), "0");
  // run.ini replays it over three masters.
  const std::string command = std::string(SEMSIM_BINARY) + " scenario " + (dir_ / "out" / "run.ini").string() + " --out " +
                              (dir_ / "replay").string() + " > " + (dir_ / "log").string() + " 2>&1";
  const int status = std::system(command.c_str());
  std::ifstream in(dir_ / "log");
  output_ = std::string((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0) << output_;
  bool replayed = false;
  for (const auto& entry : fs::recursive_directory_iterator(dir_ / "replay"))
    if (entry.path().filename() == "history.csv") {
      std::ifstream rows(entry.path());
      std::string header, first;
      std::getline(rows, header);
      std::getline(rows, first);
      replayed |= first.find("masters=3") != std::string::npos;
    }
  EXPECT_TRUE(replayed) << output_;
}

// links.csv's row for a client and a master is that proxy's delay, as in a model run: 400 ms on
// the way to master 2 only, which every acquire over three masters then waits for (a majority
// needs it or master 3, and master 3 is 400 ms away too), while one to master 1 alone does not.
TEST_F(DriverRunTest, ALinksFileDelaysEachClientsProxyToEachMasterAsItsRowSays) {
  const std::string links = write("links.csv", "client,master,delay_out,delay_in\n1,2,400ms,0ms\n1,3,400ms,0ms\n");
  const std::string actions = write("actions.csv", "at,client,action,arg\n0ms,1,acquire,100ms\n");
  ASSERT_EQ(semsim(majority_variant() + " --masters 3 --clients 1 --limit 1 --timeout 5s --duration 1500ms --links-file " +
                   links + " --actions-file " + actions),
            0)
      << output_;
  long long invoked = -1, answered = -1;
  for (const Row& r : history())
    if (r.op == "acquire" && r.client == 1) (r.phase == "invoke" ? invoked : answered) = r.true_us;
  ASSERT_GE(invoked, 0) << output_;
  ASSERT_GT(answered, invoked) << output_;
  EXPECT_GE(answered - invoked, 400'000) << "the links file's 400 ms to masters 2 and 3 were not applied";
  EXPECT_LT(answered - invoked, 1'000'000);
}

// A driver run's Redis clocks are the machine's: a masters file's skew or drift is refused, naming
// the file, the master and the field, not silently dropped (and recorded in run.ini as if it ran).
TEST_F(DriverRunTest, AMastersFileClockInADriverRunIsRefusedNamingTheField) {
  const std::string masters = write("masters.csv", "master,skew\n2,5ms\n");
  EXPECT_EQ(semsim(majority_variant() + " --masters 3 --clients 1 --duration 500ms --masters-file " + masters), 2) << output_;
  EXPECT_NE(output_.find(masters + ": master 2: field 'skew'"), std::string::npos) << output_;
}

TEST_F(DriverRunTest, ARedisRestartNamingMaster2RestartsThatMasterOnlyAndSaysSoInTheHistory) {
  // Client 1 holds on masters 1, 2 and 3; master 2 comes back empty; client 2 then gets master 2
  // alone (1 and 3 still hold client 1's key): refused. Had every master restarted, it would get all three.
  const std::string actions = write("actions.csv", "at,client,action,arg,masters\n0ms,1,acquire,3s,\n"
                                                   "500ms,0,redis_restart,,2\n1200ms,2,acquire,200ms,\n");
  ASSERT_EQ(semsim(majority_variant() + " --masters 3 --clients 2 --limit 1 --timeout 10s --duration 2500ms "
                                        "--persistence none --actions-file " + actions),
            0)
      << output_;
  std::string restart, first_ok, second;
  long long restarted = -1;
  for (const Row& r : history()) {
    if (r.op == "redis_restart") restart = r.detail, restarted = r.true_us;
    if (r.op == "acquire" && r.client == 1 && r.phase == "ok") first_ok = r.detail;
    if (r.op == "acquire" && r.client == 2 && r.phase != "invoke") second = r.phase + " " + r.detail;
  }
  EXPECT_EQ(restart, "master=2 persistence=none lost_since_us=0") << output_;
  EXPECT_GE(restarted, 500'000);
  EXPECT_EQ(first_ok, "granted=1,2,3") << output_;
  EXPECT_EQ(second, "fail granted=2") << output_;
  EXPECT_EQ(summary("over_admission"), "0");
  EXPECT_EQ(summary("server_faults"), "1");
  EXPECT_EQ(summary("lost_permits"), "");  // a driver says no votes: which permits fell below the quorum is unknown
}

TEST_F(DriverRunTest, APartitionNamingOneMasterCutsOnlyThatMastersProxy) {
  // Client 1 cannot reach master 3 from 100 ms to 1.6 s; it asks at 300 ms and, each master with a
  // 200 ms timeout, gets masters 1 and 2 long before the heal.
  const std::string actions = write("actions.csv", "at,client,action,arg,masters\n100ms,1,partition,1500ms,3\n"
                                                   "300ms,1,acquire,100ms,\n");
  ASSERT_EQ(semsim(majority_variant() + " --masters 3 --clients 1 --limit 1 --timeout 5s --duration 2500ms --actions-file " +
                   actions),
            0)
      << output_;
  std::string parted, granted;
  long long granted_at = -1, healed = -1;
  for (const Row& r : history()) {
    if (r.op == "partition") parted = r.detail;
    if (r.op == "heal") healed = r.true_us;
    if (r.op == "acquire" && r.phase == "ok") granted = r.detail, granted_at = r.true_us;
  }
  EXPECT_EQ(parted, "masters=3 length_us=1500000") << output_;
  EXPECT_EQ(granted, "granted=1,2") << output_;
  EXPECT_LT(granted_at, healed) << output_;
  EXPECT_GE(healed, 1'600'000);
}

TEST_F(DriverRunTest, AFailoverOverSeveralMastersIsRefusedNamingTheLine) {
  const std::string actions = write("actions.csv", "at,client,action,arg,masters\n100ms,0,failover,10ms,1\n");
  EXPECT_EQ(semsim(majority_variant() + " --masters 3 --clients 1 --duration 1s --actions-file " + actions), 2) << output_;
  EXPECT_NE(output_.find("actions.csv:2: field 'action': failover promotes a replica"), std::string::npos) << output_;
}

struct Refusal {
  const char* how;
  const char* says;
};

class DriverRefusalTest : public DriverRunTest, public ::testing::WithParamInterface<Refusal> {};

TEST_P(DriverRefusalTest, ADriverThatBreaksTheProtocolIsRefusedWithExit2NamingTheClient) {
  const Refusal r = GetParam();
  const std::string pid_file = (dir_ / "pid").string();
  EXPECT_EQ(semsim("--variant \"driver:python3 " + fake_.string() + " " + r.how + " " + pid_file +
                   "\" --clients 2 --limit 1 --think fixed:50ms --duration 2s"),
            2)
      << output_;
  EXPECT_NE(output_.find("client "), std::string::npos) << output_;
  EXPECT_NE(output_.find(r.says), std::string::npos) << output_;
}

INSTANTIATE_TEST_SUITE_P(
    Refusals, DriverRefusalTest,
    ::testing::Values(Refusal{"exit-before-ready", "ended before it said `driver ok - ready` (its stdout closed; it exited "
                                                   "with status 4) (its stderr ends: about to fail)"},
                      Refusal{"ready-twice", "said `driver ok - ready` twice"},
                      Refusal{"unknown-id", "ID 'nobody-sent-this' is none semsim sent"},
                      Refusal{"outcome-before-invoke", "an outcome before its invoke"},
                      Refusal{"garbage-mid-run", "not a protocol line: 4 of at least 5 fields (a line is MONO_NS WALL_MS OP PHASE ID "
                                                 "[DETAIL]): 'acquire? sure, why not'"},
                      Refusal{"exit-mid-run", "the driver ended (its stdout closed; it exited with status 5)"},
                      // What a run never sends to Redis: its proxy passes none of it on, and the run ends.
                      Refusal{"config-get", "the driver sent what a run does not send to Redis: CONFIG GET is an admin "
                                            "command (@admin); its proxy passed nothing of it on"},
                      Refusal{"foreign-key", "SET names the key 'app:y', which is not this run's (each key must contain "}),
    [](const ::testing::TestParamInfo<Refusal>& info) {
      std::string name = info.param.how;
      std::replace(name.begin(), name.end(), '-', '_');
      return name;
    });

// Another process on the machine (this test is semsim's parent, none of its descendants) that
// connects to a client's proxy is closed at once, before Redis is reached, and the run says so.
TEST_F(DriverRunTest, AnOutsiderOnADriversProxyIsClosedAtOnceAndTheRunSaysSo) {
  const std::string pid_file = (dir_ / "pid").string();
  const std::string rc = (dir_ / "rc").string();
  std::system(("(" + std::string(SEMSIM_BINARY) + " run --variant \"driver:python3 " + fake_.string() + " address " +
               pid_file + "\" --mode paced --clients 1 --limit 1 --duration 3s --no-charts --out " + (dir_ / "out").string() + " > " +
               (dir_ / "log").string() + " 2>&1; echo $? > " + rc + ") &")
                  .c_str());
  std::string address;
  for (int i = 0; i < 400 && address.empty(); ++i) {
    std::ifstream(pid_file + ".addr") >> address;
    if (address.empty()) ::usleep(25'000);
  }
  ASSERT_FALSE(address.empty()) << "the driver never wrote its proxy's address";
  const std::string outsider = write("outsider.py",
                                     "import socket, sys\n"
                                     "s = socket.create_connection(('127.0.0.1', int(sys.argv[1])), timeout=5)\n"
                                     "s.sendall(b'*2\\r\\n$4\\r\\nECHO\\r\\n$1\\r\\nx\\r\\n')\n"
                                     "try:\n    print(s.recv(100) or 'closed')\n"
                                     "except OSError:\n    print('closed')\n");
  // popen's sh is this test's child, not semsim's: an outsider to the run.
  std::string got;
  FILE* pipe = ::popen(("python3 " + outsider + " " + address.substr(address.rfind(':') + 1) + " 2>&1").c_str(), "r");
  char buffer[256];
  while (pipe && std::fgets(buffer, sizeof buffer, pipe)) got += buffer;
  if (pipe) ::pclose(pipe);
  EXPECT_EQ(got, "closed\n");  // before any answer
  std::string code;
  for (int i = 0; i < 400 && code.empty(); ++i) {
    std::ifstream(rc) >> code;
    if (code.empty()) ::usleep(50'000);
  }
  std::ifstream in(dir_ / "log");
  output_ = std::string((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(code, "0") << output_;  // the run itself went on
  EXPECT_NE(output_.find("1 connection(s) to the drivers' proxies came from a process that is neither semsim nor one it "
                         "started: each was refused and closed before Redis was reached"),
            std::string::npos)
      << output_;
}

// The limit is a real minute in both modes (a driver's start-up is real CPU): a long test only
// (ctest -L long).
TEST_F(DriverRunTest, ADriverThatNeverSaysReadyIsRefusedAfterAMinuteNamingTheClient) {
  const std::string pid_file = (dir_ / "pid").string();
  EXPECT_EQ(semsim("--variant \"driver:python3 " + fake_.string() + " never-ready " + pid_file + "\" --clients 1 --duration 1s"), 2)
      << output_;
  EXPECT_NE(output_.find("client 1: the driver did not say `driver ok - ready` within 60 s"), std::string::npos) << output_;
  // TearDown: the sleeping driver is gone too.
}

// Grants that never touched semsim's Redis say nothing about the library under its faults: not
// exercised, so an expectation it meets is no pass.
TEST_F(DriverRunTest, ADriverWhoseLibraryNeverReachesSemsimsRedisIsNotExercised) {
  EXPECT_EQ(semsim("--variant \"driver:python3 " + fake_.string() + " grants-elsewhere\" --clients 2 --limit 1 --timeout 5s "
                   "--hold fixed:100ms --think fixed:50ms --duration 1s --expect over_admission_max=1"),
            1)
      << output_;
  EXPECT_EQ(summary("commands"), "0");
  EXPECT_EQ(summary("exercised"), "no");
  EXPECT_NE(output_.find("no command reached Redis in this run"), std::string::npos) << output_;
}

// A pause planned 50 ms after an acquire, landing before the driver (300 ms to start each command)
// had begun it, pauses nothing the plan meant: the run says so, and meets no expectation.
TEST_F(DriverRunTest, APlannedFaultThatOvertakesTheCommandBeforeItIsNotAsPlannedAndPassesNothing) {
  const std::string actions = write("actions.csv", "at,client,action,arg\n0ms,1,acquire,500ms\n50ms,1,pause,100ms\n");
  EXPECT_EQ(semsim("--variant \"driver:python3 " + fake_.string() + " slow-invoke\" --clients 1 --limit 1 --duration 1500ms "
                   "--actions-file " + actions + " --expect over_admission_max=1 --expect exercised=no"),
            1)
      << output_;
  EXPECT_NE(output_.find("FAILED  as planned (implied by --expect for a driver run)"), std::string::npos) << output_;
  // Due at 0 ms (1 ms when semsim itself was late on a loaded machine), not started at the pause (50 ms on).
  EXPECT_NE(output_.find("client 1's acquire c1-1, due at "), std::string::npos) << output_;
  EXPECT_NE(output_.find(" had not started when its planned pause came at 5"), std::string::npos) << output_;
  EXPECT_EQ(csv_column(dir_ / "out" / "realtime.csv", "overtaken"), "1");
  // As a scenario: its claims are not passed either.
  write("off-plan.ini", "variant = driver:python3 " + fake_.string() + " slow-invoke\nclients = 1\nlimit = 1\n"
                        "duration = 1500ms\nactions-file = actions.csv\n\n[expect]\nexercised = no\n");
  const std::string command = std::string(SEMSIM_BINARY) + " scenario " + (dir_ / "off-plan.ini").string() + " --out " +
                              (dir_ / "sc").string() + " > " + (dir_ / "log").string() + " 2>&1";
  const int status = std::system(command.c_str());
  std::ifstream in(dir_ / "log");
  output_ = std::string((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 1) << output_;
  EXPECT_NE(output_.find("1 passed, 1 failed"), std::string::npos) << output_;
}

// A scripted client asking again while it holds, and a library granting both: two permits, each
// released after its own hold (the first was never released when a client held one slot).
TEST_F(DriverRunTest, TwoPermitsOfOneClientAreEachReleasedAfterTheirOwnHold) {
  const std::string actions = write("actions.csv", "at,client,action,arg\n0ms,1,acquire,300ms\n100ms,1,acquire,300ms\n");
  ASSERT_EQ(semsim("--variant \"driver:python3 " + fake_.string() + " grants-elsewhere\" --clients 1 --limit 2 "
                   "--duration 1500ms --actions-file " + actions),
            0)
      << output_;
  std::map<std::string, std::pair<long long, long long>> held;  // id -> (granted, release invoked)
  for (const Row& r : history()) {
    if (r.op == "acquire" && r.phase == "ok") held[r.id].first = r.true_us;
    if (r.op == "release" && r.phase == "invoke") held[r.id].second = r.true_us;
  }
  ASSERT_EQ(held.size(), 2u) << output_;
  for (const auto& [id, times] : held) {
    EXPECT_GT(times.second, times.first) << id << " was never released";
    EXPECT_GE(times.second - times.first, 300'000) << id;
  }
}

// A command the plan had due that the driver never started (a stuck library) is counted and said.
TEST_F(DriverRunTest, APlannedCommandThatNeverStartedIsCountedAndSaid) {
  EXPECT_EQ(semsim("--variant \"driver:python3 " + fake_.string() + " stalls\" --clients 1 --limit 1 --timeout 5s "
                   "--hold fixed:100ms --think fixed:50ms --duration 1s"),
            0)
      << output_;
  EXPECT_EQ(csv_column(dir_ / "out" / "realtime.csv", "never_ran"), "1") << output_;
  EXPECT_NE(output_.find("did not go as planned: 1 planned command(s) never started (the first: client 1's release c1-1"),
            std::string::npos)
      << output_;
}

// A library blocked for good on a command (no invoke, no outcome for a minute) stops the run,
// naming the command, rather than passing for a quiet client until the end. Paced, the minute is
// a real one: this test runs in the long label (ctest -L long); the daily suite runs its warped
// twin below, where the same limit passes in virtual time.
TEST_F(DriverRunTest, ADriverSilentAboutACommandForAMinuteStopsTheRunNamingIt) {
  expect_a_stall_stops_the_run("paced");
}

TEST_F(DriverRunTest, AWarpedDriverSilentAboutACommandForAVirtualMinuteStopsTheRunNamingIt) {
  expect_a_stall_stops_the_run("virtual");
}

// A crashed client's fresh process starts its command late by its own start-up: that lag counts
// from the instant the plan had it due, not from when the process said ready.
TEST_F(DriverRunTest, AFreshProcesssStartUpCountsInItsCommandsLag) {
  const std::string actions =
      write("actions.csv", "at,client,action,arg\n0ms,1,acquire,100ms\n300ms,1,crash,\n500ms,1,acquire,100ms\n");
  // Long enough for a start-up on a loaded machine (a second and more seen with the CPU taken).
  ASSERT_EQ(semsim(variant() + " --clients 1 --limit 1 --timeout 5s --duration 6s --actions-file " + actions), 0) << output_;
  long long second_invoke = -1;
  for (const Row& r : history())
    if (r.op == "acquire" && r.phase == "invoke" && r.true_us >= 500'000) second_invoke = r.true_us;
  ASSERT_GT(second_invoke, 500'000) << output_;
  // The lag counts from when semsim's step ran; how late that was is counted apart.
  const double lag_max_ms = std::stod(csv_column(dir_ / "out" / "realtime.csv", "lag_max_ms"));
  const double step_late_ms = std::stod(csv_column(dir_ / "out" / "realtime.csv", "step_late_max_ms"));
  EXPECT_GE((lag_max_ms + step_late_ms) * 1000 + 200, static_cast<double>(second_invoke - 500'000)) << output_;
}

TEST_F(DriverRunTest, APermitTheLibraryReportsLostUnaskedIsLostInTheHistoryAndNeverReleased) {
  ASSERT_EQ(semsim("--variant \"driver:python3 " + fake_.string() + " loses-permit\" --clients 1 --limit 1 --timeout 5s "
                   "--hold fixed:100ms --think fixed:50ms --duration 1s"),
            0)
      << output_;
  std::map<std::string, std::vector<std::string>> permits;  // ID -> its rows
  std::string last;  // the last permit asked for
  for (const Row& r : history()) {
    if (r.client != 1 || r.id.empty()) continue;
    permits[r.id].push_back(r.op + " " + r.phase + (r.detail.empty() ? "" : " " + r.detail));
    last = r.id;
  }
  int judged = 0;
  for (const auto& [id, rows] : permits) {
    if (rows.size() < 3 && id == last) continue;  // the last one may be cut by the run's end
    ++judged;
    EXPECT_EQ(rows, (std::vector<std::string>{"acquire invoke", "acquire ok token-" + id, "refresh fail lost: the lock expired"}))
        << id;  // and no release: the client knows it holds nothing
  }
  EXPECT_GE(judged, 2) << output_;
  EXPECT_EQ(summary("over_admission"), "0");
}

TEST_F(DriverRunTest, ARepeatedRunSaysInHowManyOfItsRunsThePlanWasInvalid) {
  const std::string actions = write("actions.csv", "at,client,action,arg\n100ms,1,acquire,1s\n400ms,1,pause,1200ms\n"
                                                   "1000ms,2,acquire,200ms\n");
  ASSERT_EQ(semsim(variant() + " --clients 2 --limit 1 --timeout 500ms --duration 2500ms --seed 7 --repeat 2 --actions-file " +
                   actions),
            0)
      << output_;
  EXPECT_NE(output_.find("seed 7: invalid"), std::string::npos) << output_;
  EXPECT_NE(output_.find("seed 8: invalid"), std::string::npos) << output_;
  EXPECT_NE(output_.find("invalid (over-admission) in 2 of 2 runs"), std::string::npos) << output_;
  EXPECT_EQ(csv_column(dir_ / "out" / "seed-8" / "summary.csv", "over_admission"), "1");
  std::ifstream repeat(dir_ / "out" / "repeat.csv");
  std::vector<std::string> lines;
  for (std::string line; std::getline(repeat, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 3u);  // a header, one row per run
  EXPECT_NE(lines[0].find("lag_max_ms"), std::string::npos);  // each run's unplanned delays beside its verdict
}

TEST_F(DriverRunTest, AModelsCounterexampleReplaysAgainstTheDriverWithTheSamePlanEachTime) {
  // As `semsim check` writes one: a model variant in virtual time, its plan, the broken expectation.
  write("counterexample.actions.csv", "at,client,action,arg\n100ms,1,acquire,1s\n400ms,1,pause,1200ms\n1000ms,2,acquire,200ms\n");
  const std::string ini = write("counterexample.ini", "variant = ttl-key\nmode = virtual\nclients = 2\nlimit = 1\n"
                                                      "timeout = 500ms\nduration = 2500ms\n"
                                                      "actions-file = counterexample.actions.csv\n\n[expect]\nover_admission_max = 0\n");
  const std::string command = std::string(SEMSIM_BINARY) + " scenario " + ini + " " + variant() + " --repeat 2 --out " +
                              (dir_ / "out").string() + " > " + (dir_ / "log").string() + " 2>&1";
  const int status = std::system(command.c_str());
  std::ifstream in(dir_ / "log");
  output_ = std::string((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 1) << output_;  // the real lock fails the same way
  EXPECT_NE(output_.find("invalid (over-admission) in 2 of 2 runs"), std::string::npos) << output_;
  int paused = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir_ / "out"))
    if (entry.path().filename() == "history.csv") {
      std::ifstream rows(entry.path());
      for (std::string line; std::getline(rows, line);) paused += line.find(",1,pause,") != std::string::npos;
    }
  EXPECT_EQ(paused, 2) << output_;  // the plan's pause, on the real process, in each run
}

TEST_F(DriverRunTest, ADriverWhoseClockCannotBeMovedIsRefusedSayingWhyWhenThePlanMovesIt) {
  EXPECT_EQ(semsim(std::string("--variant driver:") + SEMSIM_STATIC_DRIVER + " --clients 1 --skew fixed:100ms --duration 1s"), 2)
      << output_;
  EXPECT_NE(output_.find("did not follow semsim's client clock library"), std::string::npos) << output_;
  EXPECT_NE(output_.find("is a static binary"), std::string::npos) << output_;
  // A plan that moves no clock runs it as it is, and says so.
  EXPECT_EQ(semsim(std::string("--variant driver:") + SEMSIM_STATIC_DRIVER + " --clients 1 --duration 300ms"), 0) << output_;
  EXPECT_NE(output_.find("its wall clock cannot be moved"), std::string::npos) << output_;
}

TEST_F(DriverRunTest, CtrlCEndsTheRunWithEveryDriverGoneAndAnAnalyzableHistory) {
  // Ctrl-C once the history has rows (the drivers may take seconds to start on a loaded machine).
  const std::string out = (dir_ / "out").string(), log = (dir_ / "log").string();
  const std::string script = std::string(SEMSIM_BINARY) + " run " + variant() +
                             " --mode paced --clients 3 --limit 1 --timeout 5s --duration 60s --no-charts --out " + out + " >" + log +
                             " 2>&1 & pid=$!; for i in $(seq 600); do [ \"$(wc -l < " + out +
                             "/history.csv 2>/dev/null || echo 0)\" -ge 5 ] && break; sleep 0.1; done; "
                             "kill -INT $pid; wait $pid";
  const int status = std::system(("bash -c '" + script + "'").c_str());
  std::ifstream in(log);
  output_ = std::string((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 130) << output_;
  const auto rows = history();
  ASSERT_GE(rows.size(), 5u);
  EXPECT_EQ(rows.back().op, "run");
  EXPECT_EQ(rows.back().phase, "fail");
  EXPECT_NE(rows.back().detail.find("interrupted by signal 2"), std::string::npos);
  // TearDown: no driver process left.
}

// Warp needs Redis's clock to follow virtual time: a user's Redis keeps its own.
TEST_F(DriverRunTest, VirtualTimeIsRefusedOnAUsersRedis) {
  EXPECT_EQ(semsim(variant() + " --mode virtual --redis 127.0.0.1:1"), 2);
  EXPECT_NE(output_.find("needs Redis's clock to follow virtual time"), std::string::npos) << output_;
}

}  // namespace

namespace {

// A scripted release while its client holds two permits releases the one granted first, once, and
// the other after its own hold. (The plan handed release() a reference into the list it drops
// the permit from: the release went out for the second permit, which was released again after its
// hold, and the first was never released.)
TEST_F(DriverRunTest, AScriptedReleaseOfOneOfTwoPermitsReleasesTheFirstOnce) {
  const std::string actions = write("actions.csv", "at,client,action,arg\n0ms,1,acquire,500ms\n100ms,1,acquire,500ms\n"
                                                   "250ms,1,release,\n");
  ASSERT_EQ(semsim("--variant \"driver:python3 " + fake_.string() + " grants-elsewhere\" --clients 1 --limit 2 "
                   "--duration 1500ms --actions-file " + actions),
            0)
      << output_;
  std::map<std::string, std::vector<long long>> released;  // id -> release invokes
  for (const Row& r : history())
    if (r.op == "release" && r.phase == "invoke") released[r.id].push_back(r.true_us);
  ASSERT_EQ(released["c1-1"].size(), 1u) << output_;
  ASSERT_EQ(released["c1-2"].size(), 1u) << output_;
  EXPECT_LT(released["c1-1"][0], 450'000);   // the scripted release, at 250 ms
  EXPECT_GE(released["c1-2"][0], 600'000);   // its own hold, 100 + 500 ms
}

}  // namespace
