// The embedded Redis's topology under server faults: a restart keeps what its persistence kept,
// and a failover promotes a replica holding exactly what the primary had when it was cut off.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "sim/redis/embedded_redis.h"
#include "sim/redis/redis_link.h"

namespace semsim {
namespace {

Reply get(EmbeddedRedis& redis, const std::string& key) {
  return RedisLink::connect(redis.target())->execute({{"GET", key}}).at(0);
}

void set(EmbeddedRedis& redis, const std::string& key) {
  ASSERT_FALSE(RedisLink::connect(redis.target())->execute({{"SET", key, "1"}}).at(0).is_error());
}

TEST(EmbeddedTopology, ARestartWithoutPersistenceForgetsEverything) {
  ServerSetup setup;
  setup.persistence = Persistence::none;
  EmbeddedRedis redis(setup);
  set(redis, "k");
  const pid_t before = redis.pid();
  redis.restart_primary();
  EXPECT_NE(redis.pid(), before);
  EXPECT_TRUE(get(redis, "k").is_nil());
}

TEST(EmbeddedTopology, ARestartWithAofAlwaysKeepsEveryAcknowledgedWrite) {
  ServerSetup setup;
  setup.persistence = Persistence::aof_always;
  EmbeddedRedis redis(setup);
  set(redis, "k");
  redis.restart_primary();
  EXPECT_EQ(get(redis, "k").text, "1");
}

TEST(EmbeddedTopology, AReplicaSyncSnapshotDoesNotSurviveARestartWithoutPersistence) {
  ServerSetup setup;
  setup.replicas = 1;
  EmbeddedRedis redis(setup);
  set(redis, "k");
  redis.restart_primary();
  EXPECT_TRUE(get(redis, "k").is_nil());
  EXPECT_EQ(redis.replicas_following(), 1);
}

TEST(EmbeddedTopology, AFailoverLosesTheWritesAfterTheCutAndKeepsThoseBefore) {
  ServerSetup setup;
  setup.replicas = 2;
  EmbeddedRedis redis(setup);
  set(redis, "before");
  redis.cut_off_replica();
  EXPECT_EQ(redis.replicas_following(), 1);
  set(redis, "after");
  const pid_t old_primary = redis.pid();
  redis.fail_over();
  EXPECT_NE(redis.pid(), old_primary);
  EXPECT_EQ(get(redis, "before").text, "1");
  EXPECT_TRUE(get(redis, "after").is_nil());
  // The other replica follows the new primary.
  EXPECT_EQ(redis.replicas_following(), 1);
  set(redis, "new");
  redis.cut_off_replica();
  redis.fail_over();
  EXPECT_EQ(get(redis, "new").text, "1");
}

TEST(EmbeddedTopology, FaultsThatNeedAReplicaSayWhyWithoutOne) {
  EmbeddedRedis redis;
  EXPECT_THROW(redis.cut_off_replica(), EmbeddedRedisError);
  EXPECT_THROW(redis.fail_over(), EmbeddedRedisError);
}

// A port bind(0) would give is also the source port an outgoing connection may take (a replica
// reconnecting) between the pick and redis-server's bind: "Address already in use".
TEST(EmbeddedTopology, ReplicationPortsAreBelowTheKernelsEphemeralRange) {
  int ephemeral_low = 32768;
  std::ifstream("/proc/sys/net/ipv4/ip_local_port_range") >> ephemeral_low;
  if (ephemeral_low <= 10001) GTEST_SKIP() << "the ephemeral range starts at " << ephemeral_low;
  ServerSetup setup;
  setup.replicas = 1;
  EmbeddedRedis redis(setup);
  const Reply port = RedisLink::connect(redis.target())->execute({{"CONFIG", "GET", "port"}}).at(0);
  ASSERT_EQ(port.elements.size(), 2u);
  EXPECT_LT(std::stoi(port.elements[1].text), ephemeral_low);
  EXPECT_GE(std::stoi(port.elements[1].text), 10000);
}

}  // namespace
}  // namespace semsim
