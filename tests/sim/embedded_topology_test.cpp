// The embedded Redis's topology under server faults: a restart keeps what its persistence kept,
// and a failover promotes a replica holding exactly what the primary had when it was cut off.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <stdexcept>
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

// A loopback TCP port this test listens on for as long as it lives: taken, as another job's
// server or an outgoing connection may take a port between its pick and redis-server's bind.
class TakenPort {
 public:
  TakenPort() : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 || ::listen(fd_, 1) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0)
      throw std::runtime_error("cannot listen on a loopback port");
    port_ = ntohs(address.sin_port);
  }
  ~TakenPort() { ::close(fd_); }
  TakenPort(const TakenPort&) = delete;
  TakenPort& operator=(const TakenPort&) = delete;
  int port() const { return port_; }

 private:
  int fd_;
  int port_ = 0;
};

// The primary's TCP port, as Redis itself reports it (-1, and a failure, if it does not).
int redis_port(EmbeddedRedis& redis) {
  const Reply port = RedisLink::connect(redis.target())->execute({{"CONFIG", "GET", "port"}}).at(0);
  EXPECT_EQ(port.elements.size(), 2u);
  return port.elements.size() == 2 ? std::stoi(port.elements[1].text) : -1;
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
  const int port = redis_port(redis);
  EXPECT_LT(port, ephemeral_low);
  EXPECT_GE(port, 10000);
}

// The primary's port is taken by the time redis-server binds it (the first pick): its first start
// picks another and the topology comes up, the replica following the primary on its new port.
TEST(EmbeddedTopology, AReplicationPortTakenBeforeRedisBindsItIsSwappedForAnother) {
  TakenPort taken;
  int picks = 0;
  ServerSetup setup;
  setup.replicas = 1;
  EmbeddedRedis redis(setup, [&] {
    if (++picks == 1) return taken.port();
    TakenPort free_now;  // free again when this returns
    return free_now.port();
  });
  EXPECT_EQ(picks, 3);  // the primary's, the replica's, the primary's second
  EXPECT_NE(redis_port(redis), taken.port());
  EXPECT_EQ(redis.replicas_following(), 1);
  set(redis, "k");
  EXPECT_EQ(get(redis, "k").text, "1");
}

// A port taken at every pick: a few tries, then a start-up error that says why.
TEST(EmbeddedTopology, APortTakenAtEveryPickIsAStartErrorThatSaysSo) {
  TakenPort taken;
  int picks = 0;
  ServerSetup setup;
  setup.replicas = 1;
  try {
    EmbeddedRedis redis(setup, [&] {
      ++picks;
      return taken.port();
    });
    FAIL() << "started on a taken port";
  } catch (const EmbeddedRedisError& e) {
    EXPECT_NE(std::string(e.what()).find("Address already in use"), std::string::npos) << e.what();
  }
  EXPECT_EQ(picks, 6);  // the primary's and the replica's, then the primary's four more tries
}

}  // namespace
}  // namespace semsim
