// Warp end to end (`semsim run --variant driver:COMMAND --mode virtual`): a real driver process in
// virtual time against the embedded Redis. What it must give: the same history bytes for a seed
// (the library's identifiers included), the plan's instants and clocks exactly, Redis's clock
// following the run's, and a driver warp cannot hold to virtual time named and stopped (exit 2),
// never run silently in real time. No assertion on wall time: a loaded machine changes none of it.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/drivers/run_output.h"

namespace {

namespace fs = std::filesystem;

class WarpRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("semsim-warp-test-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    driver_ = dir_ / "minimal-lock-driver.py";  // a copy under a name of this test's own (pgrep -f)
    fs::copy_file(SEMSIM_MINIMAL_DRIVER, driver_);
  }
  void TearDown() override {
    // The pattern's last character in brackets: it matches the drivers' command lines, not pgrep's own.
    const std::string name = dir_.string();
    const std::string pattern = name.substr(0, name.size() - 1) + "[" + name.back() + "]";
    EXPECT_NE(std::system(("pgrep -f '" + pattern + "' > /dev/null").c_str()), 0) << "driver processes outlived the run";
    fs::remove_all(dir_);
  }
  // `semsim run` in warp with `args`, into `out`: its exit code; its output in output_.
  int warp(const std::string& args, const std::string& out = "out", const std::string& mode = "virtual") {
    return semsim::testing::run_logged(std::string(SEMSIM_BINARY) + " run --mode " + mode + " --no-charts " + args +
                                           " --out " + (dir_ / out).string(),
                                       dir_ / "log", output_);
  }
  std::string variant() const { return "--variant \"driver:python3 " + driver_.string() + "\""; }
  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  }
  std::string read(const fs::path& file) const {
    std::ifstream in(dir_ / file);
    return std::string((std::istreambuf_iterator<char>(in)), {});
  }
  // The value of `column` in summary.csv's row.
  std::string summary(const std::string& column, const std::string& out = "out") const {
    return semsim::testing::csv_column(dir_ / out / "summary.csv", column);
  }
  // history.csv's rows, as fields.
  std::vector<std::vector<std::string>> rows(const std::string& out = "out") const {
    std::istringstream in(read(fs::path(out) / "history.csv"));
    std::vector<std::vector<std::string>> out_rows;
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
      std::vector<std::string> fields;
      std::stringstream s(line);
      for (std::string f; std::getline(s, f, ',');) fields.push_back(f);
      out_rows.push_back(fields);
    }
    return out_rows;
  }
  fs::path dir_, driver_;
  std::string output_;
};

// The same seed, the same bytes: the plan's draws, the driver's clock reads, its random bytes (its
// lock tokens) and the order of everything, with pauses, delays, skew and drift in the plan.
TEST_F(WarpRunTest, OneSeedGivesOneHistoryByteForByte) {
  const std::string clients = write("clients.csv", "client,skew,drift_ppm,delay_out,delay_in\n2,fixed:-40ms,fixed:200,fixed:1ms,fixed:3ms\n");
  const std::string args = variant() + " --clients 3 --limit 1 --timeout 300ms --hold uniform:50ms..300ms --think "
                           "uniform:10ms..100ms --pause-rate 1 --delay uniform:0ms..2ms --duration 3s --seed 5 --clients-file " +
                           clients;
  ASSERT_EQ(warp(args, "a"), 0) << output_;
  ASSERT_EQ(warp(args, "b"), 0) << output_;
  EXPECT_GE(std::stoi(summary("granted", "a")), 5) << output_;
  EXPECT_EQ(read("a/history.csv"), read("b/history.csv"));
  ASSERT_EQ(warp(args.substr(0, args.find("--seed")) + "--seed 6 --clients-file " + clients, "c"), 0) << output_;
  EXPECT_NE(read("a/history.csv"), read("c/history.csv")) << "another seed, another plan";
}

// Each row of a driver is at the virtual instant it happened, on the clock the plan gave it: a
// command's invoke at the instant semsim sent it, client 2's wall clock exactly 40 ms behind.
TEST_F(WarpRunTest, RowsHaveThePlansInstantsAndClocksExactly) {
  write("clients.csv", "client,skew,drift_ppm,delay_out,delay_in\n2,fixed:-40ms,fixed:0,fixed:0ms,fixed:0ms\n");
  write("actions.csv", "at,client,action,arg\n100ms,1,acquire,300ms\n450ms,2,acquire,100ms\n");
  ASSERT_EQ(warp(variant() + " --clients 2 --limit 1 --timeout 1s --duration 1s --clients-file " + (dir_ / "clients.csv").string() +
                 " --actions-file " + (dir_ / "actions.csv").string()),
            0)
      << output_;
  int invokes = 0;
  for (const auto& r : rows()) {  // seq,true_us,client,op,phase,client_us,...
    if (r.size() < 6 || r[4] != "invoke") continue;
    ++invokes;
    if (r[2] == "1" && r[3] == "acquire") {
      EXPECT_EQ(r[1], "100000");
    }
    if (r[2] == "2" && r[3] == "acquire") {
      EXPECT_EQ(r[1], "450000");
    }
    // WALL_MS is whole milliseconds, and Python's time.time() * 1000 a float: within 1 ms below.
    const long long skew_us = std::stoll(r[5]) - std::stoll(r[1]), planned = r[2] == "2" ? -40000 : 0;
    EXPECT_LE(skew_us, planned) << r[1];
    EXPECT_GE(skew_us, planned - 1000) << r[1];
  }
  EXPECT_EQ(invokes, 4) << read("out/history.csv");  // two acquires, two releases
}

// Redis's clock is the run's: a jump of 1.5 s under a holder of a 2 s lease lets another in.
TEST_F(WarpRunTest, RedisClockFollowsTheVirtualClockAndItsJumps) {
  write("jump.csv", "at,client,action,arg\n100ms,1,acquire,3s\n1s,0,server_jump,+1500ms\n1200ms,2,acquire,1s\n");
  write("nojump.csv", "at,client,action,arg\n100ms,1,acquire,3s\n1200ms,2,acquire,1s\n");
  const std::string args = variant() + " --clients 2 --limit 1 --timeout 2s --duration 5s --actions-file ";
  ASSERT_EQ(warp(args + (dir_ / "jump.csv").string(), "jump"), 0) << output_;
  EXPECT_EQ(summary("over_admission", "jump"), "1") << output_;
  ASSERT_EQ(warp(args + (dir_ / "nojump.csv").string(), "nojump"), 0) << output_;
  EXPECT_EQ(summary("over_admission", "nojump"), "0") << output_;
}

// The masters' clocks of a --masters-file move in warp as in a model run, and the history's first row
// says them (the timeline draws them on the masters' lanes).
TEST_F(WarpRunTest, TheMastersClocksReachTheHistorysFirstRow) {
  const std::string masters = write("masters.csv", "master,skew,drift_ppm\n2,5ms,200\n");
  ASSERT_EQ(warp(variant() + " --masters 3 --clients 1 --limit 1 --timeout 500ms --duration 500ms --masters-file " + masters),
            0)
      << output_;
  std::ifstream in(dir_ / "out" / "history.csv");
  std::string header, first;
  std::getline(in, header);
  std::getline(in, first);
  EXPECT_NE(first.find("master_skew_us=0,5000,0"), std::string::npos) << first;
  EXPECT_NE(first.find("master_drift_ppm=0,200,0"), std::string::npos) << first;
}

// A driver that waits by spinning on its clock would spin for ever (the clock stands still while
// it runs): named and stopped, exit 2, its processes gone.
TEST_F(WarpRunTest, ADriverSpinningOnTheClockIsNamedAndStopped) {
  const std::string spin = write("spin-driver.py",
                                 "import sys, time\n"
                                 "print(time.monotonic_ns(), int(time.time() * 1000), 'driver ok - ready', flush=True)\n"
                                 "for line in sys.stdin:\n"
                                 "    op, ident = line.split()[:2]\n"
                                 "    print(time.monotonic_ns(), int(time.time() * 1000), op, 'invoke', ident, flush=True)\n"
                                 "    deadline = time.monotonic() + 0.05\n"
                                 "    while time.monotonic() < deadline:\n"
                                 "        pass\n");
  EXPECT_EQ(warp("--variant \"driver:python3 " + spin + "\" --clients 1 --limit 1 --timeout 500ms --duration 1s"), 2);
  EXPECT_NE(output_.find("client 1: a thread of the driver"), std::string::npos) << output_;
  EXPECT_NE(output_.find("without sleeping: a busy loop"), std::string::npos) << output_;
}

// A driver whose clocks the library cannot reach (a static binary) is refused at `ready`.
TEST_F(WarpRunTest, ADriverWhoseClocksWarpCannotReachIsRefused) {
  EXPECT_EQ(warp(std::string("--variant \"driver:") + SEMSIM_STATIC_DRIVER + "\" --clients 1 --limit 1 --duration 1s"), 2);
  EXPECT_NE(output_.find("its clocks do not read warp's virtual time"), std::string::npos) << output_;
  EXPECT_NE(output_.find("--mode paced"), std::string::npos) << output_;
}

// A script's refused acquire is tried again after --retry-delay, up to --retries times, as a
// model's is (before, a driver's scripted acquire was tried once, whatever --retries said).
TEST_F(WarpRunTest, AScriptedAcquireRefusedIsTriedAgainAsRetriesSay) {
  const std::string plan = write("plan.csv", "at,client,action,arg\n0ms,1,acquire,250ms\n50ms,2,acquire,100ms\n");
  ASSERT_EQ(warp(variant() + " --clients 2 --limit 1 --timeout 1s --duration 1s --retries 3 --retry-delay fixed:100ms "
                             "--actions-file " + plan),
            0)
      << output_;
  std::vector<std::string> tries;  // client 2's acquire outcomes, with their instants
  for (const auto& r : rows())
    if (r.size() > 4 && r[2] == "2" && r[3] == "acquire" && r[4] != "invoke") tries.push_back(r[1] + " " + r[4]);
  // Refused at 50 and 150 ms while client 1 holds (to 250 ms), granted at 250 ms.
  EXPECT_EQ(tries, (std::vector<std::string>{"50000 fail", "150000 fail", "250000 ok"})) << output_;
  ASSERT_EQ(warp(variant() + " --clients 2 --limit 1 --timeout 1s --duration 1s --retries 1 --retry-delay fixed:100ms "
                             "--actions-file " + plan, "once"),
            0)
      << output_;
  EXPECT_EQ(summary("granted", "once"), "1");  // one retry, at 150 ms: refused, and no more
  EXPECT_NE(read("once/history.csv").find("no further acquire in the script"), std::string::npos);
}

// Warp is a driver's default on the embedded Redis; one whose clocks it cannot reach runs paced,
// as it did before warp (and on a user's Redis, whose clock warp cannot move, paced too).
TEST_F(WarpRunTest, ADriverRunsInWarpByDefaultAndPacedWhereWarpCannotHoldIt) {
  EXPECT_EQ(semsim::testing::run_logged(std::string(SEMSIM_BINARY) + " run --no-charts " + variant() +
                                            " --clients 2 --limit 1 --duration 1s --out " + (dir_ / "warp").string(),
                                        dir_ / "log", output_),
            0)
      << output_;
  EXPECT_EQ(summary("mode", "warp"), "virtual");
  EXPECT_EQ(output_.find("warp (virtual time, the default for a driver) cannot run it"), std::string::npos) << output_;
  EXPECT_EQ(semsim::testing::run_logged(std::string(SEMSIM_BINARY) + " run --no-charts --variant \"driver:" +
                                            SEMSIM_STATIC_DRIVER + "\" --clients 1 --duration 300ms --out " +
                                            (dir_ / "static").string(),
                                        dir_ / "log", output_),
            0)
      << output_;
  EXPECT_NE(output_.find("warp (virtual time, the default for a driver) cannot run it"), std::string::npos) << output_;
  EXPECT_EQ(summary("mode", "static"), "paced");
  EXPECT_TRUE(fs::exists(dir_ / "static" / "realtime.csv"));
}

// Redis's own clock can be skewed and drift in warp (it follows the virtual one); in a paced run
// it is the machine's, and semsim says so.
TEST_F(WarpRunTest, ServerSkewIsForWarpAlone) {
  EXPECT_EQ(warp(variant() + " --clients 2 --limit 1 --timeout 300ms --duration 1s --server-skew 50ms"), 0) << output_;
  EXPECT_EQ(warp(variant() + " --clients 2 --limit 1 --timeout 300ms --duration 1s --server-skew 50ms", "paced", "paced"), 2);
  EXPECT_NE(output_.find("--mode virtual moves it"), std::string::npos) << output_;
}

}  // namespace
