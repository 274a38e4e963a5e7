// Driver processes (sim/drivers/driver_process.h): lines in and out, stderr in a file, how one
// ended, pauses that land, and every process of the group gone with the object.
#include <gtest/gtest.h>

#include <signal.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "sim/drivers/driver_process.h"
#include "sim/drivers/real_clock.h"

namespace semsim {
namespace {

namespace fs = std::filesystem;

class DriverProcessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("semsim-process-test-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  DriverSpawn spawn(const std::string& command) { return {command, {{"GREETING", "hello there"}}, dir_ / "stderr"}; }
  // Lines until `n` came or its stdout closed (at most 10 s).
  std::vector<std::string> lines(DriverProcess& p, std::size_t n) {
    std::vector<std::string> out;
    const std::int64_t until = monotonic_ns() + 10'000 * kNsPerMs;
    while (out.size() < n && monotonic_ns() < until && p.read_lines(out)) sleep_ns(5 * kNsPerMs);
    return out;
  }
  std::string read(const fs::path& f) { return read_proc_file(f.string()); }
  fs::path dir_;
};

TEST_F(DriverProcessTest, TalksInLinesWithItsEnvironmentAndSaysHowItEnded) {
  DriverProcess p(spawn("echo \"$GREETING\"; read line; echo \"got $line\"; echo oops >&2; exit 3"));
  p.send("a command\n");
  const auto out = lines(p, 3);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0], "hello there");
  EXPECT_EQ(out[1], "got a command");
  EXPECT_TRUE(p.await_gone(5'000 * kNsPerMs));
  EXPECT_EQ(p.exited().value_or(""), "exited with status 3");
  EXPECT_EQ(p.stderr_tail(3), "oops");
}

TEST_F(DriverProcessTest, ALastLineWithoutNewlineStillCounts) {
  DriverProcess p(spawn("printf 'one\\ntwo'"));
  EXPECT_EQ(lines(p, 3), (std::vector<std::string>{"one", "two"}));
}

TEST_F(DriverProcessTest, AStopLandsOnTheWholeGroupAndAResumeEndsIt) {
  DriverProcess p(spawn("sleep 60 & sleep 60 & wait"));
  sleep_ns(200 * kNsPerMs);
  ASSERT_GE(p.members().size(), 3u);  // the shell and its two sleeps
  p.stop();
  EXPECT_TRUE(p.await_stopped(2'000 * kNsPerMs));
  for (const auto& [pid, state] : group_processes(p.pid())) EXPECT_EQ(state, 'T') << pid;
  p.resume();
  EXPECT_TRUE(p.await_running(2'000 * kNsPerMs));
}

TEST_F(DriverProcessTest, EveryProcessOfTheGroupEndsWithTheObject) {
  const fs::path pids = dir_ / "pids";
  pid_t group = 0;
  {
    DriverProcess p(spawn("sleep 60 & echo $! > " + pids.string() + "; (sleep 60; echo late) & echo $! >> " + pids.string() +
                          "; exec sleep 60"));
    group = p.pid();
    const std::int64_t until = monotonic_ns() + 5'000 * kNsPerMs;
    const auto lines = [&] { const std::string t = read(pids); return std::count(t.begin(), t.end(), '\n'); };
    while (lines() < 2 && monotonic_ns() < until) sleep_ns(10 * kNsPerMs);
  }
  std::ifstream in(pids);
  int children = 0;
  for (pid_t pid; in >> pid; ++children) {
    // Killed; reaped by init, or a zombie on the way there.
    const std::int64_t until = monotonic_ns() + 5'000 * kNsPerMs;
    while (::kill(pid, 0) == 0 && fs::exists("/proc/" + std::to_string(pid)) &&
           read("/proc/" + std::to_string(pid) + "/stat").find(") Z") == std::string::npos && monotonic_ns() < until)
      sleep_ns(10 * kNsPerMs);
    const std::string stat = read("/proc/" + std::to_string(pid) + "/stat");
    EXPECT_TRUE(stat.empty() || stat.find(") Z") != std::string::npos) << "pid " << pid << " outlived its driver: " << stat;
  }
  EXPECT_EQ(children, 2);
  for (const auto& [pid, state] : group_processes(group)) EXPECT_EQ(state, 'Z') << pid;
}

TEST_F(DriverProcessTest, ADriverThatClosedItsInputDoesNotKillSemsim) {
  DriverProcess p(spawn("exec 0<&-; sleep 1"));
  sleep_ns(200 * kNsPerMs);
  for (int i = 0; i < 100; ++i) p.send("acquire x\n");  // EPIPE, not SIGPIPE
  SUCCEED();
}

}  // namespace
}  // namespace semsim
