// The client clock library (sim/drivers/clock_library/), preloaded into real processes: their wall
// clock follows the page (skew, drift, a jump by one page write, on every thread) and their
// monotonic clock stays true; and what it cannot reach is told apart.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "sim/drivers/clock_reach.h"
#include "sim/drivers/driver_clock.h"
#include "sim/drivers/driver_process.h"
#include "sim/drivers/real_clock.h"
#include "sim/redis/shipped_files.h"

namespace semsim {
namespace {

namespace fs = std::filesystem;

class ClientClockTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("semsim-clock-test-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    library_ = shipped_library("libsemsim_client_clock.so");
    ASSERT_FALSE(library_.empty()) << "libsemsim_client_clock.so is not built beside semsim";
    clock_ = std::make_unique<DriverClock>(dir_ / "page");
  }
  void TearDown() override {
    clock_.reset();
    fs::remove_all(dir_);
  }
  // Runs `command` under the library with the page; its stdout.
  std::string run(const std::string& command) {
    const std::string full = "LD_PRELOAD=" + library_.string() + " SEMSIM_CLIENT_CLOCK_PAGE=" + clock_->path().string() +
                             " " + command;
    FILE* p = ::popen(full.c_str(), "r");
    std::string out;
    char buffer[4096];
    while (std::fgets(buffer, sizeof buffer, p)) out += buffer;
    ::pclose(p);
    return out;
  }
  // How far the process's wall clock is from the real one: `command` prints its wall clock and its
  // monotonic clock (ns), read together; the real wall clock at that monotonic instant is known
  // here, however long the process took to start.
  std::int64_t shift_seen(const std::string& command) {
    const std::int64_t real_minus_mono = realtime_ns() - monotonic_ns();
    std::istringstream out(run(command));
    std::int64_t wall = 0, mono = 0;
    out >> wall >> mono;
    EXPECT_GT(mono, 0) << command;
    last_mono_ = mono;
    return wall - (mono + real_minus_mono);
  }
  std::int64_t last_mono_ = 0;  // the monotonic instant of the last shift_seen
  fs::path dir_, library_;
  std::unique_ptr<DriverClock> clock_;
};

constexpr std::int64_t kSlack = 50 * kNsPerMs;  // two clock reads in a row, on a loaded machine
constexpr const char* kPythonClocks = "python3 -c 'import time; print(time.time_ns(), time.monotonic_ns())'";

TEST_F(ClientClockTest, PassesRealTimeThroughUntilSet) {
  EXPECT_LT(std::llabs(shift_seen(kPythonClocks)), kSlack);
}

TEST_F(ClientClockTest, SkewMovesEveryWallClockCallAndNotTheMonotonicOne) {
  clock_->set(-600'000 * kNsPerMs, monotonic_ns(), 0);  // 600 s behind
  EXPECT_LT(std::llabs(shift_seen(kPythonClocks) + 600'000 * kNsPerMs), kSlack);  // clock_gettime
  // gettimeofday (datetime.now) and time() (whole seconds) too.
  EXPECT_LT(std::llabs(shift_seen("python3 -c 'import datetime, time; "
                                  "print(int(datetime.datetime.now().timestamp() * 1e9), time.monotonic_ns())'") +
                       600'000 * kNsPerMs),
            kSlack);
  // The monotonic clock is every process's true clock: untouched.
  const std::int64_t before = monotonic_ns();
  std::istringstream out(run(kPythonClocks));
  std::int64_t wall = 0, mono = 0;
  out >> wall >> mono;
  EXPECT_GE(mono, before);
  EXPECT_LE(mono, monotonic_ns());
}

TEST_F(ClientClockTest, EveryThreadSeesTheSameMovedClock) {
  clock_->set(3'000 * kNsPerMs, monotonic_ns(), 0);
  EXPECT_LT(std::llabs(shift_seen("python3 -c 'import threading, time\n"
                                  "r = []\n"
                                  "t = threading.Thread(target=lambda: r.append((time.time_ns(), time.monotonic_ns())))\n"
                                  "t.start(); t.join()\n"
                                  "print(*r[0])'") -
                       3'000 * kNsPerMs),
            kSlack);
}

TEST_F(ClientClockTest, DriftGrowsWithTrueTimeFromTheAnchor) {
  // 10% fast since an anchor 20 s ago: 2 s ahead now.
  clock_->set(0, monotonic_ns() - 20'000 * kNsPerMs, 100'000);
  const std::int64_t seen = shift_seen(kPythonClocks);
  EXPECT_LT(std::llabs(seen - clock_->shift_at(last_mono_)), kSlack);  // as semsim computes it, where the process read it
  EXPECT_GE(clock_->shift_at(last_mono_), 2'000 * kNsPerMs);            // 2 s and what it gained since
  EXPECT_LT(clock_->shift_at(last_mono_), 4'000 * kNsPerMs);
}

TEST_F(ClientClockTest, AJumpIsOneWriteThatARunningProcessSeesAtOnce) {
  DriverProcess p({"while read line; do date +%s%N; done", {{"LD_PRELOAD", library_.string()},
                   {"SEMSIM_CLIENT_CLOCK_PAGE", clock_->path().string()}}, dir_ / "stderr"});
  // `date` (coreutils, C) is started for each question: its start-up is in the reading.
  constexpr std::int64_t kStartSlack = 1'000 * kNsPerMs;
  const auto ask = [&] {
    p.send("now\n");
    std::vector<std::string> lines;
    const std::int64_t until = monotonic_ns() + 10'000 * kNsPerMs;
    while (lines.empty() && monotonic_ns() < until && p.read_lines(lines)) sleep_ns(2 * kNsPerMs);
    return std::stoll(lines.at(0)) - realtime_ns();
  };
  EXPECT_LT(std::llabs(ask()), kStartSlack);
  clock_->jump(-5'000 * kNsPerMs);
  EXPECT_LT(std::llabs(ask() + 5'000 * kNsPerMs), kStartSlack);
  clock_->jump(7'000 * kNsPerMs);
  EXPECT_LT(std::llabs(ask() - 2'000 * kNsPerMs), kStartSlack);
}

TEST_F(ClientClockTest, TellsStaticAndGoBinariesFromOnesItCanMove) {
  EXPECT_EQ(executable_kind("/bin/sh"), "");
  EXPECT_EQ(executable_kind(SEMSIM_STATIC_DRIVER), "static");
  // A Go binary is told by its build info section, whatever else it is.
  const fs::path fake_go = dir_ / "fake-go";
  const std::string objcopy = "objcopy --add-section .go.buildinfo=/dev/null /bin/true " + fake_go.string() + " 2>/dev/null";
  if (std::system(objcopy.c_str()) == 0) {
    EXPECT_EQ(executable_kind(fake_go), "go");
  }
  EXPECT_NE(why_clock_did_not_move({}, library_).find("some other way"), std::string::npos);
}

}  // namespace
}  // namespace semsim
