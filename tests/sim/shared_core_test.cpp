// A run in virtual time puts its thread and the embedded server on one core, and puts them back.
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/types.h>

#include <string>
#include <vector>

#include "sim/redis/embedded_redis.h"
#include "sim/redis/redis_session.h"
#include "sim/redis/shared_core.h"

namespace semsim {
namespace {

pid_t server_pid(RedisSession& redis) {
  const std::string info = redis.link().execute({{"INFO", "server"}}).at(0).text;
  const auto at = info.find("process_id:");
  return static_cast<pid_t>(std::stol(info.substr(at + 11)));
}

cpu_set_t cpus_of(pid_t pid) {
  cpu_set_t set;
  CPU_ZERO(&set);
  EXPECT_EQ(0, ::sched_getaffinity(pid, sizeof set, &set));
  return set;
}

bool on_one_core(const cpu_set_t& set, int cpu) { return CPU_COUNT(&set) == 1 && CPU_ISSET(cpu, &set); }

TEST(SharedCore, TheThreadAndTheServerShareTheHomeCoreAndGoBackAfterwards) {
  RedisSession redis("");
  const cpu_set_t thread_before = cpus_of(0), server_before = cpus_of(server_pid(redis));
  const int home = job_cores(2).back();
  redis.set_home_core(home);
  {
    const SharedCore core(redis);
    ASSERT_TRUE(core.pinned());
    EXPECT_TRUE(on_one_core(cpus_of(0), home));
    EXPECT_TRUE(on_one_core(cpus_of(server_pid(redis)), home));
    redis.restart();  // a server fault starts a new process: it joins the core too
    EXPECT_TRUE(on_one_core(cpus_of(server_pid(redis)), home));
  }
  const cpu_set_t thread_after = cpus_of(0), server_after = cpus_of(server_pid(redis));
  EXPECT_TRUE(CPU_EQUAL(&thread_before, &thread_after));
  EXPECT_TRUE(CPU_EQUAL(&server_before, &server_after));
}

TEST(SharedCore, WithoutAHomeCoreTheRunStaysOnTheCoreItStartedOn) {
  RedisSession redis("");
  const SharedCore core(redis);
  ASSERT_TRUE(core.pinned());
  const cpu_set_t thread = cpus_of(0), server = cpus_of(server_pid(redis));
  EXPECT_EQ(1, CPU_COUNT(&thread));
  EXPECT_TRUE(CPU_EQUAL(&thread, &server));
}

TEST(SharedCore, AUsersServerIsLeftWhereItsOwnerPutIt) {
  EmbeddedRedis theirs;
  RedisSession redis("unix://" + theirs.target().unix_path);
  const cpu_set_t thread_before = cpus_of(0);
  const SharedCore core(redis);
  EXPECT_FALSE(core.pinned());
  const cpu_set_t thread_after = cpus_of(0);
  EXPECT_TRUE(CPU_EQUAL(&thread_before, &thread_after));
}

TEST(SharedCore, JobsGetTheAllowedCoresInTurn) {
  const cpu_set_t allowed = cpus_of(0);
  const std::size_t n = static_cast<std::size_t>(CPU_COUNT(&allowed));
  const std::vector<int> cores = job_cores(2 * n);
  ASSERT_EQ(2 * n, cores.size());
  for (std::size_t i = 0; i < n; ++i) {
    EXPECT_TRUE(CPU_ISSET(cores[i], &allowed)) << cores[i];
    EXPECT_EQ(cores[i], cores[i + n]);
    for (std::size_t j = 0; j < i; ++j) EXPECT_NE(cores[j], cores[i]);
  }
}

// Only a run whose pipelines the lookahead overlaps, with more than 200 clients, keeps two cores.
TEST(SharedCore, OnlyAWideLookaheadRunIsWideEnoughForTwoCores) {
  RunOptions o;
  o.clients = 200;
  EXPECT_FALSE(wide_enough_for_two_cores(o));
  o.clients = 201;
  EXPECT_TRUE(wide_enough_for_two_cores(o));
  o.pipeline = false;  // --no-pipeline: semsim and Redis take turns again
  EXPECT_FALSE(wide_enough_for_two_cores(o));
}

}  // namespace
}  // namespace semsim
