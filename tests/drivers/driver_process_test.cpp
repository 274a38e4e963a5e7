// Driver processes (sim/drivers/driver_process.h): lines in and out, stderr in a file, how one
// ended, pauses that land, and every process of the group gone with the object.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

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

// Up to 5 s for each pid in `file` to be gone (or a zombie on its way); those that are not.
std::vector<std::string> survivors(const fs::path& file) {
  std::vector<std::string> alive;
  std::ifstream in(file);
  for (pid_t pid; in >> pid;) {
    const std::string proc = "/proc/" + std::to_string(pid) + "/stat";
    const auto gone = [&] { const std::string s = read_proc_file(proc); return s.empty() || s.find(") Z") != std::string::npos; };
    const std::int64_t until = monotonic_ns() + 5'000 * kNsPerMs;
    while (!gone() && monotonic_ns() < until) sleep_ns(10 * kNsPerMs);
    if (!gone()) {
      alive.push_back(read_proc_file(proc));
      ::kill(pid, SIGKILL);
    }
  }
  return alive;
}

std::size_t lines_in(const fs::path& file) {
  const std::string t = read_proc_file(file.string());
  return static_cast<std::size_t>(std::count(t.begin(), t.end(), '\n'));
}

// Left the group, left the session, orphaned by a double fork: still the driver's, and gone with it.
TEST_F(DriverProcessTest, AProcessThatLeftTheGroupAndTheSessionEndsWithTheObject) {
  const fs::path pids = dir_ / "pids";
  {
    // Each pid written once its process is where it stays: after setsid; the second one orphaned at once.
    DriverProcess p(spawn("setsid sh -c 'echo $$ >> " + pids.string() + "; exec sleep 60' & setsid bash -c '(echo $BASHPID >> " +
                          pids.string() + "; exec sleep 61) &'; exec sleep 60"));
    const std::int64_t until = monotonic_ns() + 5'000 * kNsPerMs;
    while (lines_in(pids) < 2 && monotonic_ns() < until) sleep_ns(10 * kNsPerMs);
    ASSERT_EQ(lines_in(pids), 2u);
  }
  EXPECT_EQ(survivors(pids), std::vector<std::string>{});
}

// semsim killed outright (SIGKILL: no destructor runs) takes every process of its drivers with it,
// those in sessions of their own included.
TEST_F(DriverProcessTest, SemsimKilledOutrightTakesEveryProcessOfItsDriverWithIt) {
  const fs::path pids = dir_ / "pids";
  const pid_t semsim = ::fork();
  if (semsim == 0) {
    // Each pid written once its process is where it stays (after setsid).
    DriverProcess p(spawn("echo $$ > " + pids.string() + "; setsid sh -c 'echo $$ >> " + pids.string() +
                          "; exec sleep 60' & sleep 60 & echo $! >> " + pids.string() + "; wait"));
    for (;;) ::pause();
  }
  ASSERT_GT(semsim, 0);
  const std::int64_t until = monotonic_ns() + 5'000 * kNsPerMs;
  while (lines_in(pids) < 3 && monotonic_ns() < until) sleep_ns(10 * kNsPerMs);
  ::kill(semsim, SIGKILL);
  ::waitpid(semsim, nullptr, 0);
  ASSERT_EQ(lines_in(pids), 3u);
  EXPECT_EQ(survivors(pids), std::vector<std::string>{});
}

// A run's file starts empty (no earlier run's traceback quoted as this one's); a fresh process of
// the same run's client (after a crash) goes on after the last one's.
TEST_F(DriverProcessTest, ItsStderrFileStartsEmptyForARunAndGoesOnForAFreshProcessOfIt) {
  { DriverProcess p(spawn("echo first >&2")); p.await_gone(5'000 * kNsPerMs); }
  { DriverProcess p(spawn("echo second >&2")); p.await_gone(5'000 * kNsPerMs); EXPECT_EQ(p.stderr_tail(3), "second"); }
  DriverSpawn again = spawn("echo third >&2");
  again.append_stderr = true;
  DriverProcess p(again);
  p.await_gone(5'000 * kNsPerMs);
  EXPECT_EQ(p.stderr_tail(3), "second | third");
}

// Node prints the error above its stack and its version: the quote keeps it.
TEST_F(DriverProcessTest, ItsStderrTailKeepsTheErrorLineThatScrolledAbove) {
  DriverProcess p(spawn("printf 'node:internal/modules/cjs/loader:1228\\n  throw err;\\n\\nError: Cannot find module "
                        "\\047redlock\\047\\n    at Module._resolveFilename (x:1)\\n}\\n\\nNode.js v20.19.2\\n' >&2"));
  p.await_gone(5'000 * kNsPerMs);
  EXPECT_EQ(p.stderr_tail(3), "Error: Cannot find module 'redlock' | ... | at Module._resolveFilename (x:1) | } | Node.js v20.19.2")
      << p.stderr_tail(3);
}

TEST_F(DriverProcessTest, ADriverThatClosedItsInputDoesNotKillSemsim) {
  DriverProcess p(spawn("exec 0<&-; sleep 1"));
  sleep_ns(200 * kNsPerMs);
  for (int i = 0; i < 100; ++i) p.send("acquire x\n");  // EPIPE, not SIGPIPE
  SUCCEED();
}

}  // namespace
}  // namespace semsim
