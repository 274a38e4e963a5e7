// The client clock library in warp (sim/drivers/clock_library/): this test plays semsim's side of
// the page (client_clock_page.h) against real processes that preload the library: their clocks
// read the page, their timed waits end only when virtual time reaches them (and semsim's wake
// signal comes), and their random bytes are the client's stream.
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "sim/drivers/clock_library/client_clock_page.h"
#include "sim/drivers/real_clock.h"
#include "sim/redis/shipped_files.h"

namespace semsim {
namespace {

namespace fs = std::filesystem;

constexpr std::int64_t kMono = 5'000 * 1'000'000'000LL;             // virtual CLOCK_MONOTONIC at start
constexpr std::int64_t kWall = 1'700'000'000 * 1'000'000'000LL;     // virtual CLOCK_REALTIME at start
constexpr std::int64_t kWaitMs = 1'000;                              // every timed wait's timeout

// A process of the test driver (or any command), its stdin and stdout piped.
struct Child {
  pid_t pid = -1;
  int in = -1, out = -1;
  std::string buffered;

  // The next line of its stdout, waiting up to `ms` of real time ("" at end or time out).
  std::string line(int ms = 10'000) {
    const std::int64_t until = monotonic_ns() + ms * kNsPerMs;
    for (;;) {
      const auto nl = buffered.find('\n');
      if (nl != std::string::npos) {
        std::string l = buffered.substr(0, nl);
        buffered.erase(0, nl + 1);
        return l;
      }
      if (monotonic_ns() >= until) return "";
      char chunk[4096];
      const ssize_t n = ::read(out, chunk, sizeof chunk);
      if (n > 0) buffered.append(chunk, static_cast<std::size_t>(n));
      else if (n == 0) return "";
      else sleep_ns(2 * kNsPerMs);
    }
  }
  ~Child() {
    if (pid > 0) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
    if (in >= 0) ::close(in);
    if (out >= 0) ::close(out);
  }
};

class WarpLibraryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("semsim-warp-test-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    library_ = shipped_library("libsemsim_client_clock.so");
    ASSERT_FALSE(library_.empty()) << "libsemsim_client_clock.so is not built beside semsim";
    // The page as semsim makes it: a file of the struct, mapped shared.
    path_ = dir_ / "page";
    const int fd = ::open(path_.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
    ASSERT_GE(fd, 0);
    semsim_client_clock_page initial{};
    initial.magic = SEMSIM_CLIENT_CLOCK_MAGIC;
    initial.flags = SEMSIM_CLIENT_CLOCK_WARP;
    initial.mono_ns = kMono;
    initial.wall_ns = kWall;
    initial.seed = 42;
    ASSERT_EQ(::write(fd, &initial, sizeof initial), static_cast<ssize_t>(sizeof initial));
    void* p = ::mmap(nullptr, sizeof initial, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    ::close(fd);
    ASSERT_NE(p, MAP_FAILED);
    page_ = static_cast<semsim_client_clock_page*>(p);
  }
  void TearDown() override {
    ::munmap(page_, sizeof *page_);
    fs::remove_all(dir_);
  }

  // Moves virtual time as semsim does: under the seqlock.
  void set_clocks(std::int64_t mono, std::int64_t wall) {
    std::atomic_ref<std::uint32_t> seq(page_->seq);
    const std::uint32_t s = seq.load();
    seq.store(s + 1);
    std::atomic_thread_fence(std::memory_order_release);
    page_->mono_ns = mono;
    page_->wall_ns = wall;
    seq.store(s + 2, std::memory_order_release);
  }

  // Starts `argv` with the library preloaded and the page named (`page` false: no page at all).
  void start(Child& c, std::vector<std::string> argv, bool with_page = true) {
    int in[2], out[2];
    ASSERT_EQ(::pipe2(in, O_CLOEXEC), 0);
    ASSERT_EQ(::pipe2(out, O_CLOEXEC), 0);
    const std::string preload = "LD_PRELOAD=" + library_.string();
    const std::string page = std::string(SEMSIM_CLIENT_CLOCK_ENV) + "=" + path_.string();
    std::vector<char*> args, env;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    for (char** e = environ; *e; ++e)
      if (std::strncmp(*e, "LD_PRELOAD=", 11) != 0) env.push_back(*e);
    env.push_back(const_cast<char*>(preload.c_str()));
    if (with_page) env.push_back(const_cast<char*>(page.c_str()));
    env.push_back(nullptr);
    c.pid = ::fork();
    if (c.pid == 0) {
      ::dup2(in[0], 0);
      ::dup2(out[1], 1);
      ::execvpe(args[0], args.data(), env.data());
      ::_exit(127);
    }
    ::close(in[0]);
    ::close(out[1]);
    c.in = in[1];
    c.out = out[0];
    ::fcntl(c.out, F_SETFL, O_NONBLOCK);
  }

  // Runs `argv` to its end; its stdout.
  std::string run(std::vector<std::string> argv, bool with_page = true) {
    Child c;
    start(c, std::move(argv), with_page);
    std::string all, l;
    while (!(l = c.line()).empty()) all += l + "\n";  // to the end of its output (none of its lines is empty)
    return all;
  }

  // The slot of thread `tid`, once it says it waits with `deadline` (nullptr after 10 s).
  semsim_warp_thread* slot_waiting(pid_t tid, std::uint32_t state, std::int64_t deadline) {
    const std::int64_t until = monotonic_ns() + 10'000 * kNsPerMs;
    while (monotonic_ns() < until) {
      for (auto& t : page_->threads) {
        if (std::atomic_ref<std::int32_t>(t.tid).load() != tid) continue;
        if (std::atomic_ref<std::uint32_t>(t.state).load(std::memory_order_acquire) == state &&
            t.deadline_ns == deadline)
          return &t;
      }
      sleep_ns(2 * kNsPerMs);
    }
    return nullptr;
  }

  // Starts `warp_driver wait KIND kWaitMs` (or another mode with the same protocol); its tid.
  pid_t start_wait(Child& c, const std::string& kind, const std::string& mode = "wait") {
    start(c, {SEMSIM_WARP_DRIVER, mode, kind, std::to_string(kWaitMs)});
    std::string l = c.line();
    if (mode == "sigaction") {
      // It believes it took and unblocked the signal; the library keeps it blocked outside its waits.
      EXPECT_EQ(l, "sigaction 0 wake_blocked 1");
      l = c.line();
    }
    EXPECT_EQ(l.rfind("tid ", 0), 0u) << kind << ": " << l;
    return l.size() > 4 ? std::stoi(l.substr(4)) : -1;
  }

  fs::path dir_, library_, path_;
  semsim_client_clock_page* page_ = nullptr;
};

std::map<std::string, long long> fields(const std::string& line) {
  std::map<std::string, long long> m;
  std::istringstream in(line);
  std::string k;
  long long v;
  while (in >> k >> v) m[k] = v;
  return m;
}

TEST_F(WarpLibraryTest, EveryClockReadsThePageOnEveryThread) {
  set_clocks(kMono + 123, kWall + 456'789'000);
  Child c;
  start(c, {SEMSIM_WARP_DRIVER, "clocks"});
  for (int thread = 0; thread < 2; ++thread) {
    auto f = fields(c.line());
    EXPECT_EQ(f["mono"], kMono + 123) << "thread " << thread;
    EXPECT_EQ(f["boot"], kMono + 123);
    EXPECT_EQ(f["coarse"], kMono + 123);
    EXPECT_EQ(f["raw"], kMono + 123);
    EXPECT_EQ(f["wall"], kWall + 456'789'000);
    EXPECT_EQ(f["tai"], kWall + 456'789'000);
    EXPECT_EQ(f["tod_us"], (kWall + 456'789'000) / 1000);
    EXPECT_EQ(f["time"], kWall / 1'000'000'000);
    EXPECT_EQ(f["utc"], kWall + 456'789'000);
  }
}

TEST_F(WarpLibraryTest, WithoutWarpTheMonotonicClockStaysReal) {
  page_->flags = 0;
  const std::int64_t before = monotonic_ns();
  auto f = fields(run({SEMSIM_WARP_DRIVER, "clocks"}));
  EXPECT_GE(f["mono"], before);
  EXPECT_LE(f["mono"], monotonic_ns());
  EXPECT_LT(std::llabs(f["wall"] - realtime_ns()), 5'000 * kNsPerMs);
}

// Each timed wait, one process each: it says WAITING (or SLICED) with its virtual deadline, does
// not return while virtual time is short of it, and returns its timeout result once semsim moves
// the clock past it and (for a signal-interrupted wait) sends the wake signal.
struct WaitKind {
  const char* kind;
  std::uint32_t state;
  const char* timeout_result;  // what the program prints when it timed out
};

class WarpWaitTest : public WarpLibraryTest, public ::testing::WithParamInterface<WaitKind> {};

constexpr WaitKind kWaits[] = {
    {"epoll_wait", SEMSIM_WARP_WAITING, "result 0 errno 0"},
    {"epoll_pwait", SEMSIM_WARP_WAITING, "result 0 errno 0"},
    {"epoll_pwait2", SEMSIM_WARP_WAITING, "result 0 errno 0"},
    {"poll", SEMSIM_WARP_WAITING, "result 0 errno 0"},
    {"ppoll", SEMSIM_WARP_WAITING, "result 0 errno 0"},
    {"select", SEMSIM_WARP_WAITING, "result 0 errno 0"},
    {"pselect", SEMSIM_WARP_WAITING, "result 0 errno 0"},
    {"nanosleep", SEMSIM_WARP_WAITING, "result 0 errno 0"},
    {"clock_nanosleep", SEMSIM_WARP_WAITING, "result 0 errno 0"},
    {"clock_nanosleep_abs", SEMSIM_WARP_WAITING, "result 0 errno 0"},
    {"clock_nanosleep_abs_realtime", SEMSIM_WARP_WAITING, "result 0 errno 0"},
    {"usleep", SEMSIM_WARP_WAITING, "result 0 errno 0"},
    {"sleep", SEMSIM_WARP_WAITING, "result 0 errno 0"},
    {"cond_timedwait", SEMSIM_WARP_SLICED, "result 110 errno 0"},  // ETIMEDOUT, returned
    {"cond_timedwait_monotonic", SEMSIM_WARP_SLICED, "result 110 errno 0"},
    {"cond_clockwait", SEMSIM_WARP_SLICED, "result 110 errno 0"},
    {"sem_timedwait", SEMSIM_WARP_SLICED, "result -1 errno 110"},
    {"sem_clockwait", SEMSIM_WARP_SLICED, "result -1 errno 110"},
    {"mutex_timedlock", SEMSIM_WARP_SLICED, "result 110 errno 0"},
    {"mutex_clocklock", SEMSIM_WARP_SLICED, "result 110 errno 0"},
    {"rwlock_timedwrlock", SEMSIM_WARP_SLICED, "result 110 errno 0"},
    {"futex_wait", SEMSIM_WARP_SLICED, "result -1 errno 110"},
    {"futex_wait_bitset", SEMSIM_WARP_SLICED, "result -1 errno 110"},
};

constexpr std::int64_t kDeadline = kMono + kWaitMs * kNsPerMs;

TEST_P(WarpWaitTest, ReturnsOnlyWhenVirtualTimeReachesItsDeadline) {
  Child c;
  const pid_t tid = start_wait(c, GetParam().kind);
  semsim_warp_thread* slot = slot_waiting(tid, GetParam().state, kDeadline);
  ASSERT_NE(slot, nullptr) << "no slot says the wait";
  EXPECT_EQ(slot->pid, c.pid);
  EXPECT_EQ(page_->wake_signal, SIGRTMAX - 2);
  // 300 ms of real time, virtual time short of the deadline (and a wake signal too early): no return.
  set_clocks(kDeadline - 1, kWall);
  ::syscall(SYS_tgkill, c.pid, tid, page_->wake_signal);
  EXPECT_EQ(c.line(300), "") << "returned before its virtual deadline";
  EXPECT_EQ(std::atomic_ref<std::uint32_t>(slot->state).load(), GetParam().state);
  // The deadline comes: a prompt timeout.
  set_clocks(kDeadline, kWall + kWaitMs * kNsPerMs);
  const std::int64_t woken = monotonic_ns();
  if (GetParam().state == SEMSIM_WARP_WAITING) ::syscall(SYS_tgkill, c.pid, tid, page_->wake_signal);
  EXPECT_EQ(c.line(), GetParam().timeout_result);
  EXPECT_LT(monotonic_ns() - woken, 1'000 * kNsPerMs);
  EXPECT_EQ(std::atomic_ref<std::uint32_t>(slot->state).load(), SEMSIM_WARP_RUNNING);
  EXPECT_EQ(slot->waits, 1u);
}

INSTANTIATE_TEST_SUITE_P(Kinds, WarpWaitTest, ::testing::ValuesIn(kWaits),
                         [](const auto& info) { return std::string(info.param.kind); });

// Readiness ends a wait on a descriptor at once, in virtual time that did not move.
TEST_F(WarpLibraryTest, ReadinessReturnsEarly) {
  for (const char* kind : {"epoll_wait", "epoll_pwait2", "poll", "ppoll", "select", "pselect"}) {
    Child c;
    const pid_t tid = start_wait(c, kind);
    ASSERT_NE(slot_waiting(tid, SEMSIM_WARP_WAITING, kDeadline), nullptr) << kind;
    ASSERT_EQ(::write(c.in, "x", 1), 1);
    EXPECT_EQ(c.line(), "result 1 errno 0") << kind;
  }
}

// A signal of the program's own ends a signal-interrupted wait with EINTR, as the kernel would,
// and a sleep says how much virtual time was left.
TEST_F(WarpLibraryTest, AForeignSignalGivesEintr) {
  for (const char* kind : {"epoll_wait", "poll", "select", "nanosleep"}) {
    Child c;
    const pid_t tid = start_wait(c, kind);
    ASSERT_NE(slot_waiting(tid, SEMSIM_WARP_WAITING, kDeadline), nullptr) << kind;
    set_clocks(kMono + 400 * kNsPerMs, kWall);
    ::syscall(SYS_tgkill, c.pid, tid, SIGUSR1);
    std::string l = c.line();
    if (std::string(kind) == "nanosleep") {
      EXPECT_EQ(l, "rem " + std::to_string(600 * kNsPerMs));
      l = c.line();
    }
    EXPECT_EQ(l, "result -1 errno 4") << kind;
    set_clocks(kMono, kWall);
  }
}

// A signal handler that waits, inside a wait it interrupted: its own deadline in the slot while it
// sleeps, then the interrupted wait's again, which ends with the handler's EINTR.
TEST_F(WarpLibraryTest, AWaitInASignalHandlerNestsInTheWaitItInterrupted) {
  Child c;
  const pid_t tid = start_wait(c, "poll_sleeping_handler");
  ASSERT_NE(slot_waiting(tid, SEMSIM_WARP_WAITING, kDeadline), nullptr);
  ::syscall(SYS_tgkill, c.pid, tid, SIGUSR1);
  ASSERT_NE(slot_waiting(tid, SEMSIM_WARP_WAITING, kMono + 500 * kNsPerMs), nullptr);
  set_clocks(kMono + 500 * kNsPerMs, kWall);
  ::syscall(SYS_tgkill, c.pid, tid, page_->wake_signal);
  EXPECT_EQ(c.line(), "handler slept");
  EXPECT_EQ(c.line(), "result -1 errno 4");
}

// The program cannot take the wake signal (sigaction, signal) nor block it (sigprocmask,
// pthread_sigmask with every signal): its waits still end, and semsim is told of the attempt.
TEST_F(WarpLibraryTest, TheProgramCannotTakeTheWakeSignal) {
  Child c;
  const pid_t tid = start_wait(c, "epoll_wait", "sigaction");
  ASSERT_NE(slot_waiting(tid, SEMSIM_WARP_WAITING, kDeadline), nullptr);
  EXPECT_TRUE(page_->escapes & SEMSIM_WARP_ESCAPE_SIGNAL);
  // Still the library's handler: a wake before the deadline is not the program's EINTR.
  ::syscall(SYS_tgkill, c.pid, tid, page_->wake_signal);
  EXPECT_EQ(c.line(300), "");
  set_clocks(kDeadline, kWall);
  ::syscall(SYS_tgkill, c.pid, tid, page_->wake_signal);
  EXPECT_EQ(c.line(), "result 0 errno 0");
}

// Timers the kernel runs in real time run, and each sets its escape bit.
TEST_F(WarpLibraryTest, RealTimeTimersAreNamedAsEscapes) {
  EXPECT_EQ(run({SEMSIM_WARP_DRIVER, "escapes"}), "armed\n");
  EXPECT_EQ(page_->escapes, SEMSIM_WARP_ESCAPE_TIMERFD | SEMSIM_WARP_ESCAPE_ITIMER);
}

// Without warp, a wait is the real one: a 1 s poll times out after 1 s of real time, no slot used.
TEST_F(WarpLibraryTest, PacedWaitsAreReal) {
  page_->flags = SEMSIM_CLIENT_CLOCK_SHIFT;
  for (const char* kind : {"poll", "cond_timedwait_monotonic"}) {
    const std::int64_t began = monotonic_ns();
    Child c;
    start(c, {SEMSIM_WARP_DRIVER, "wait", kind, "300"});
    c.line();
    EXPECT_NE(c.line(), "") << kind;
    EXPECT_GE(monotonic_ns() - began, 300 * kNsPerMs) << kind;
  }
  EXPECT_EQ(page_->threads[0].tid, 0);
  EXPECT_EQ(page_->wake_signal, 0);
}

// Real runtimes: the main thread prints its clocks, sleeps 100 s of virtual time (its slot says
// the deadline; semsim moves the clock there and sends the wake signal), prints its clocks again.
bool have(const std::string& program) {
  return std::system(("command -v " + program + " >/dev/null 2>&1").c_str()) == 0;
}

constexpr std::int64_t kSleepNs = 100'000 * kNsPerMs;

TEST_F(WarpLibraryTest, PythonClocksAndSleepAreVirtual) {
  if (!have("python3")) GTEST_SKIP() << "no python3";
  Child c;
  start(c, {"python3", "-c",
            "import time\n"
            "print(time.monotonic_ns(), time.time_ns(), flush=True)\n"
            "time.sleep(100)\n"
            "print(time.monotonic_ns(), time.time_ns(), flush=True)\n"});
  EXPECT_EQ(c.line(30'000), std::to_string(kMono) + " " + std::to_string(kWall));
  semsim_warp_thread* slot = slot_waiting(c.pid, SEMSIM_WARP_WAITING, kMono + kSleepNs);
  ASSERT_NE(slot, nullptr);
  EXPECT_EQ(c.line(300), "");
  set_clocks(kMono + kSleepNs, kWall + kSleepNs);
  ::syscall(SYS_tgkill, c.pid, c.pid, page_->wake_signal);
  EXPECT_EQ(c.line(), std::to_string(kMono + kSleepNs) + " " + std::to_string(kWall + kSleepNs));
}

TEST_F(WarpLibraryTest, NodeClocksAndTimersAreVirtual) {
  if (!have("node")) GTEST_SKIP() << "no node";
  Child c;
  start(c, {"node", "-e",
            "console.log(String(process.hrtime.bigint()), Date.now());\n"
            "setTimeout(() => console.log(String(process.hrtime.bigint()), Date.now()), 100000);\n"});
  EXPECT_EQ(c.line(30'000), std::to_string(kMono) + " " + std::to_string(kWall / kNsPerMs));
  // libuv's loop: one epoll wait with the timer's deadline on the main thread.
  semsim_warp_thread* slot = slot_waiting(c.pid, SEMSIM_WARP_WAITING, kMono + kSleepNs);
  ASSERT_NE(slot, nullptr);
  EXPECT_EQ(c.line(300), "");
  set_clocks(kMono + kSleepNs, kWall + kSleepNs);
  ::syscall(SYS_tgkill, c.pid, c.pid, page_->wake_signal);
  EXPECT_EQ(c.line(), std::to_string(kMono + kSleepNs) + " " + std::to_string((kWall + kSleepNs) / kNsPerMs));
  EXPECT_EQ(page_->escapes, 0u) << "node took the wake signal or armed a real-time timer";
}

// Without a page (a process semsim did not start) the library is invisible: real clocks, real
// waits, real randomness.
TEST_F(WarpLibraryTest, WithoutAPageEverythingIsReal) {
  const std::int64_t before = monotonic_ns();
  auto f = fields(run({SEMSIM_WARP_DRIVER, "clocks"}, false));
  EXPECT_GE(f["mono"], before);
  EXPECT_LT(std::llabs(f["wall"] - realtime_ns()), 5'000 * kNsPerMs);
  const std::int64_t began = monotonic_ns();
  const std::string waited = run({SEMSIM_WARP_DRIVER, "wait", "epoll_wait", "300"}, false);
  EXPECT_NE(waited.find("result 0 errno 0"), std::string::npos) << waited;
  EXPECT_GE(monotonic_ns() - began, 300 * kNsPerMs);
  EXPECT_NE(run({SEMSIM_WARP_DRIVER, "random", "20"}, false), run({SEMSIM_WARP_DRIVER, "random", "20"}, false));
  EXPECT_EQ(page_->drawn, 0u);
}

// Random bytes: the client's stream, block by block, whatever asks for them.
std::string hex_of_stream(std::uint64_t seed, std::uint64_t first_block, std::size_t n) {
  std::string out;
  char byte[3];
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t block = semsim_warp_random_block(seed, first_block + i / 8);
    std::snprintf(byte, sizeof byte, "%02x", static_cast<unsigned>((block >> (8 * (i % 8))) & 0xff));
    out += byte;
  }
  return out;
}

TEST_F(WarpLibraryTest, EveryRandomSourceGivesTheSeedsStream) {
  const auto draw = [&](std::uint64_t seed) {
    page_->seed = seed;
    page_->drawn = 0;
    return run({SEMSIM_WARP_DRIVER, "random", "20"});
  };
  const std::string first = draw(42);
  // 20 bytes: 3 blocks each, in the order the program asked (a device opened by name: its file
  // is 1 MiB of the stream, drawn at the open).
  std::istringstream lines(first);
  std::string source, bytes;
  std::uint64_t block = 0;
  for (const char* expected : {"getrandom", "getentropy", "arc4random_buf", "syscall", "open", "fopen"}) {
    ASSERT_TRUE(lines >> source >> bytes) << first;
    EXPECT_EQ(source, expected);
    EXPECT_EQ(bytes, hex_of_stream(42, block, 20)) << source;
    block += source == "open" || source == "fopen" ? (1 << 20) / 8 : 3;
  }
  EXPECT_EQ(page_->drawn, block);
  EXPECT_EQ(draw(42), first);  // the same seed, the same bytes
  const std::string other = draw(43);
  EXPECT_NE(other.substr(0, other.find('\n')), first.substr(0, first.find('\n')));
}

TEST_F(WarpLibraryTest, PacedRandomnessIsReal) {
  page_->flags = SEMSIM_CLIENT_CLOCK_SHIFT;
  EXPECT_NE(run({SEMSIM_WARP_DRIVER, "random", "20"}), run({SEMSIM_WARP_DRIVER, "random", "20"}));
  EXPECT_EQ(page_->drawn, 0u);
}

// python3's os.urandom, uuid4 and random (seeded from the system at import) follow the seed; uuid1
// has the virtual time in it.
TEST_F(WarpLibraryTest, PythonRandomFollowsTheSeed) {
  if (!have("python3")) GTEST_SKIP() << "no python3";
  const auto draw = [&](std::uint64_t seed) {
    page_->seed = seed;
    page_->drawn = 0;
    return run({"python3", "-c", "import os, uuid, random; print(os.urandom(8).hex(), uuid.uuid4(), random.random())"});
  };
  const std::string first = draw(7);
  EXPECT_EQ(first.size(), 16 + 1 + 36 + 1 + 18 + 1u) << first;  // printed something whole
  EXPECT_EQ(draw(7), first);
  EXPECT_NE(draw(8), first);
  // uuid1's 60-bit time: 100 ns since 1582-10-15, from the virtual wall clock.
  const std::string uuid1 = run({"python3", "-c", "import uuid; print(uuid.uuid1().time)"});
  EXPECT_EQ(std::stoll(uuid1), kWall / 100 + 0x01b21dd213814000LL);
  // All of uuid1 (libuuid mixes the pid into its clock sequence): the seed's, the same each run.
  const auto uuid1s = [&] {
    page_->drawn = 0;
    return run({"python3", "-c", "import uuid; print(uuid.uuid1(), uuid.uuid1())"});
  };
  const std::string both = uuid1s();
  EXPECT_EQ(both.size(), 36 + 1 + 36 + 1u) << both;
  EXPECT_NE(both.substr(0, 36), both.substr(37, 36));  // the clock stands still: each the next tick
  EXPECT_EQ(uuid1s(), both);
}

// Outside warp, uuid1 is libuuid's own, which Python reaches through a module it loaded with dlopen
// (the library found it there: it called a null function, and the driver died).
TEST_F(WarpLibraryTest, PacedUuidsAreLibuuids) {
  if (!have("python3")) GTEST_SKIP() << "no python3";
  page_->flags = SEMSIM_CLIENT_CLOCK_SHIFT;
  const std::string text = run({"python3", "-c", "import uuid; print(uuid.uuid1(), uuid.uuid4())"});
  EXPECT_EQ(text.size(), 36 + 1 + 36 + 1u) << text;
  EXPECT_NE(run({"python3", "-c", "import uuid; print(uuid.uuid1())"}), run({"python3", "-c", "import uuid; print(uuid.uuid1())"}));
}

}  // namespace
}  // namespace semsim
