// The embedded redis-server: starts, answers, cleans up after itself, and never outlives semsim.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>

#include "sim/redis/embedded_redis.h"
#include "sim/redis/redis_link.h"

namespace semsim {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// Gone means no process, or a zombie that nobody has reaped yet (it runs nothing any more).
bool process_gone(pid_t pid) {
  if (::kill(pid, 0) != 0) return errno == ESRCH;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  auto close = line.rfind(')');
  return close == std::string::npos || line.substr(close + 2, 1) == "Z";
}

bool becomes_gone(pid_t pid, std::chrono::milliseconds within) {
  const auto deadline = std::chrono::steady_clock::now() + within;
  while (!process_gone(pid)) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(10ms);
  }
  return true;
}

// Sets PATH for one test and restores it, whatever happens.
class PathGuard {
 public:
  explicit PathGuard(const std::string& path) {
    if (const char* old = std::getenv("PATH")) old_ = old;
    ::setenv("PATH", path.c_str(), 1);
  }
  ~PathGuard() {
    if (old_) ::setenv("PATH", old_->c_str(), 1);
    else ::unsetenv("PATH");
  }
  PathGuard(const PathGuard&) = delete;
  PathGuard& operator=(const PathGuard&) = delete;

 private:
  std::optional<std::string> old_;
};

TEST(EmbeddedRedis, StartsAnswersAndLeavesNothingBehind) {
  pid_t pid = -1;
  std::string dir;
  {
    EmbeddedRedis server;
    pid = server.pid();
    dir = server.directory();
    ASSERT_GT(pid, 0);
    EXPECT_TRUE(fs::is_directory(dir));
    EXPECT_NE(fs::path(dir).filename().string().find("semsim-redis-"), std::string::npos);
    EXPECT_EQ(server.target().unix_path, dir + "/redis.sock");
    EXPECT_EQ((fs::status(dir).permissions() & fs::perms::others_all), fs::perms::none);
    auto link = RedisLink::connect(server.target());
    EXPECT_EQ(link->execute({{"PING"}}).at(0).text, "PONG");
    // No TCP listener, no persistence.
    auto port = link->execute({{"CONFIG", "GET", "port"}}).at(0);
    ASSERT_EQ(port.elements.size(), 2u);
    EXPECT_EQ(port.elements[1].text, "0");
    EXPECT_EQ(link->execute({{"CONFIG", "GET", "save"}}).at(0).elements.at(1).text, "");
  }
  EXPECT_TRUE(process_gone(pid)) << "redis-server " << pid << " outlived its EmbeddedRedis";
  EXPECT_FALSE(fs::exists(dir)) << dir;
}

TEST(EmbeddedRedis, RunsInItsOwnProcessGroupSoCtrlCReachesOnlySemsim) {
  EmbeddedRedis server;
  EXPECT_EQ(::getpgid(server.pid()), server.pid());
  EXPECT_NE(::getpgid(server.pid()), ::getpgrp());
}

TEST(EmbeddedRedis, TwoServersAreIndependent) {
  EmbeddedRedis first;
  EmbeddedRedis second;
  EXPECT_NE(first.directory(), second.directory());
  auto a = RedisLink::connect(first.target());
  auto b = RedisLink::connect(second.target());
  a->execute({{"SET", "semsim-test:only-in-first", "1"}});
  EXPECT_TRUE(b->execute({{"GET", "semsim-test:only-in-first"}}).at(0).is_nil());
}

TEST(EmbeddedRedis, WithoutRedisServerOnPathSaysHowToInstallIt) {
  PathGuard path("/nonexistent-semsim-test-dir");
  try {
    EmbeddedRedis server;
    ADD_FAILURE() << "started without redis-server on PATH";
  } catch (const EmbeddedRedisError& e) {
    std::string message = e.what();
    EXPECT_NE(message.find("redis-server"), std::string::npos) << message;
    EXPECT_NE(message.find("apt-get install redis-server"), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << "one line: " << message;
  }
}

TEST(EmbeddedRedis, AServerThatExitsAtStartIsReportedWithTheEndOfItsLog) {
  // A stand-in redis-server that fails the way a bad option does: a message, then exit 3.
  char fake_dir[] = "/tmp/semsim-test-fake-XXXXXX";
  ASSERT_NE(::mkdtemp(fake_dir), nullptr);
  const std::string fake = std::string(fake_dir) + "/redis-server";
  {
    std::ofstream script(fake);
    script << "#!/bin/sh\necho '*** FATAL CONFIG FILE ERROR: planted by the test' >&2\nexit 3\n";
  }
  ::chmod(fake.c_str(), 0700);
  // A private TMPDIR: counting /tmp would race with every other test creating files there.
  char tmp_dir[] = "/tmp/semsim-test-tmp-XXXXXX";
  ASSERT_NE(::mkdtemp(tmp_dir), nullptr);
  const char* old_tmpdir = std::getenv("TMPDIR");
  const std::string saved_tmpdir = old_tmpdir ? old_tmpdir : "";
  ::setenv("TMPDIR", tmp_dir, 1);
  {
    PathGuard path(fake_dir);
    try {
      EmbeddedRedis server;
      ADD_FAILURE() << "a server that exits at once was reported as started";
    } catch (const EmbeddedRedisError& e) {
      std::string message = e.what();
      EXPECT_NE(message.find("planted by the test"), std::string::npos) << message;
      EXPECT_NE(message.find("status 3"), std::string::npos) << message;
    }
  }
  if (old_tmpdir) ::setenv("TMPDIR", saved_tmpdir.c_str(), 1);
  else ::unsetenv("TMPDIR");
  // Its private directory was removed all the same.
  EXPECT_TRUE(fs::is_empty(tmp_dir));
  fs::remove_all(tmp_dir);
  fs::remove_all(fake_dir);
}

TEST(EmbeddedRedis, DiesWhenSemsimIsKilled) {
  int report[2];
  ASSERT_EQ(::pipe(report), 0);
  pid_t semsim = ::fork();
  ASSERT_GE(semsim, 0);
  if (semsim == 0) {
    // Stands in for semsim: starts a server, says which, and waits to be killed.
    ::close(report[0]);
    try {
      EmbeddedRedis server;
      std::string line = std::to_string(server.pid()) + " " + server.directory() + "\n";
      if (::write(report[1], line.data(), line.size()) < 0) ::_exit(2);
      for (;;) ::pause();
    } catch (...) {
      ::_exit(1);
    }
  }
  ::close(report[1]);
  std::string line;
  char buffer[512];
  for (ssize_t n; (n = ::read(report[0], buffer, sizeof buffer)) > 0;) {
    line.append(buffer, static_cast<std::size_t>(n));
    if (line.find('\n') != std::string::npos) break;
  }
  ::close(report[0]);
  ASSERT_NE(line.find(' '), std::string::npos) << "the child did not start a server";
  const pid_t redis = static_cast<pid_t>(std::stol(line.substr(0, line.find(' '))));
  const std::string dir = line.substr(line.find(' ') + 1, line.find('\n') - line.find(' ') - 1);

  ASSERT_EQ(::kill(semsim, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(semsim, &status, 0), semsim);

  const bool gone = becomes_gone(redis, 2s);
  if (!gone) ::kill(redis, SIGKILL);  // do not leak it into the rest of the run
  EXPECT_TRUE(gone) << "redis-server " << redis << " outlived a SIGKILLed parent";
  // SIGKILL gave the parent no chance to remove its directory: the watchdog does.
  ASSERT_TRUE(fs::path(dir).is_absolute());
  bool removed = false;
  for (int i = 0; i < 200 && !(removed = !fs::exists(dir)); ++i) std::this_thread::sleep_for(10ms);
  EXPECT_TRUE(removed) << dir << " outlived a SIGKILLed parent";
  fs::remove_all(dir);
}

}  // namespace
}  // namespace semsim
