// The session with a user's Redis: a fault that leaves no link is an error, not a crash; the
// keys of a run get the safety net's expiry in the pipeline that writes them, and the net pushes
// back only its own expiry; the remedy for keys left behind names the server.
#include <gtest/gtest.h>

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>

#include "sim/redis/key_safety_net.h"
#include "sim/redis/redis_link.h"
#include "sim/redis/redis_session.h"
#include "sim/redis/redis_target.h"

extern char** environ;

namespace semsim {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// A redis-server semsim did not start, on a unix socket in a folder of its own.
class UserRedis {
 public:
  explicit UserRedis(const std::string& name) : dir_(fs::path(::testing::TempDir()) / ("user_redis_" + name)) {
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    start();
  }
  ~UserRedis() {
    stop();
    fs::remove_all(dir_);
  }
  void start() {
    std::vector<std::string> args{"redis-server", "--port", "0", "--unixsocket", socket(), "--save", "", "--appendonly",
                                  "no", "--dir", dir_.string()};
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ASSERT_EQ(posix_spawnp(&pid_, "redis-server", nullptr, nullptr, argv.data(), environ), 0);
    for (int i = 0; i < 200; ++i) {
      try {
        RedisLink::connect(target(), 200ms)->execute({{"PING"}});
        return;
      } catch (const LinkError&) {
        std::this_thread::sleep_for(25ms);
      }
    }
    FAIL() << "redis-server did not start";
  }
  void stop() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
    fs::remove(socket());
  }
  std::string socket() const { return (dir_ / "redis.sock").string(); }
  RedisTarget target() const { return parse_redis_url("unix://" + socket(), std::nullopt); }
  std::unique_ptr<RedisLink> link() const { return RedisLink::connect(target()); }

 private:
  fs::path dir_;
  pid_t pid_ = -1;
};

long long integer(RedisLink& link, Command command) { return link.execute({std::move(command)}).at(0).integer; }

// The crash of a restart under the sentinel topology and of check --server-faults: a fault that
// could not bring the link back left none, and the cleanup dereferenced it.
TEST(RedisSession, AFaultThatLeftNoLinkIsAnErrorNotACrash) {
  UserRedis redis("nolink");
  RedisSession session("unix://" + redis.socket());
  redis.stop();
  EXPECT_THROW(session.reconnect(), LinkError);  // no link now
  EXPECT_THROW(session.clean("semsim:0123456789abcdef:"), LinkError);
  redis.start();
  session.use_setup({});  // the next run connects again
  EXPECT_EQ(session.new_prefix().rfind("semsim:", 0), 0u);
  EXPECT_EQ(integer(session.link(), {"DBSIZE"}), 0);
}

// check --server-faults under load: a start of the embedded server that failed left the session
// without one, and the next case took it for a user's Redis ("not with --redis", exit 2).
TEST(RedisSession, AnEmbeddedServerThatFailedToStartIsStartedAgainNotTakenForAUsersServer) {
  RedisSession session("", ServerSetup{});
  ServerSetup refused;
  refused.maxmemory = 1 << 30;
  refused.maxmemory_policy = "no-such-policy";  // redis-server exits at once
  EXPECT_ANY_THROW(session.use_setup(refused));
  EXPECT_TRUE(session.embedded());
  session.use_setup(ServerSetup{});
  EXPECT_EQ(integer(session.link(), {"DBSIZE"}), 0);
}

// A virtual run's key follows from its seed on the embedded server (a driver's library may quote
// it in the history); a seed's prefix another run left keys under is not shared; a user's server
// always gets a drawn one.
TEST(RedisSession, OnTheEmbeddedServerASeedGivesItsPrefixUnlessItIsTaken) {
  RedisSession session("", ServerSetup{});
  const std::string seven = session.new_prefix(7);
  EXPECT_EQ(seven, session.new_prefix(7));
  EXPECT_NE(seven, session.new_prefix(8));
  EXPECT_NE(session.new_prefix(), session.new_prefix());
  integer(session.link(), {"SET", seven + "sem", "x"});
  const std::string other = session.new_prefix(7);
  EXPECT_NE(other, seven);
  EXPECT_EQ(other.rfind("semsim:", 0), 0u);
  UserRedis redis("seeded");
  RedisSession user("unix://" + redis.socket());
  EXPECT_NE(user.new_prefix(7), user.new_prefix(7));
}

// Every word under the prefix gets PEXPIREAT D NX right after the request that names it: a key
// the request creates or rewrites has the net's expiry at once, a TTL of the variant's is kept, a
// key outside the prefix is untouched, and the harness's commands are not counted.
TEST(RedisSession, TheRunsKeysGetTheNetsExpiryInThePipelineThatWritesThem) {
  UserRedis redis("expiry");
  auto link = redis.link();
  const auto deadline = std::make_shared<std::atomic<std::int64_t>>(4'000'000'000'000);  // year 2096
  link->give_keys_expiry("semsim:x:", deadline);
  const std::uint64_t before = link->commands_sent();
  link->execute({{"MULTI"}, {"ZADD", "semsim:x:a", "1", "m"}, {"ZADD", "semsim:x:b", "1", "m"},
                 {"ZINTERSTORE", "semsim:x:c", "2", "semsim:x:a", "semsim:x:b"}, {"EXEC"}});
  link->execute({{"SET", "semsim:x:ttl", "v", "PX", "100000"}});
  link->execute({{"SET", "app:z", "semsim:x:not-a-key"}});
  EXPECT_EQ(link->commands_sent() - before, 7u);
  auto other = redis.link();
  for (const char* key : {"semsim:x:a", "semsim:x:b", "semsim:x:c"})
    EXPECT_EQ(integer(*other, {"PEXPIRETIME", key}), 4'000'000'000'000) << key;
  EXPECT_LE(integer(*other, {"PTTL", "semsim:x:ttl"}), 100000);
  EXPECT_EQ(integer(*other, {"TTL", "app:z"}), -1);
  EXPECT_EQ(integer(*other, {"EXISTS", "semsim:x:not-a-key"}), 0);
  // Rewritten (ZINTERSTORE drops the expiry): given again at once.
  link->execute({{"ZINTERSTORE", "semsim:x:c", "2", "semsim:x:a", "semsim:x:b"}});
  EXPECT_EQ(integer(*other, {"PEXPIRETIME", "semsim:x:c"}), 4'000'000'000'000);
}

// Past the run's expected end the net moves its own expiry on, and only its own.
TEST(KeySafetyNet, PushesBackItsOwnExpiryAndLeavesTheVariants) {
  UserRedis redis("net");
  auto link = redis.link();
  link->execute({{"SET", "semsim:n:plain", "1"}});
  link->execute({{"SET", "semsim:n:variants", "1", "EX", "1000"}});
  link->execute({{"SET", "app:z", "1"}});
  const long long variants = integer(*link, {"PEXPIRETIME", "semsim:n:variants"});
  // Expected to end 3 minutes ago: its expiry (now + 2 min) is under half the margin at once.
  KeySafetyNet net(redis.target(), "semsim:n:", -std::chrono::minutes(3), 20ms);
  const std::int64_t first = net.deadline()->load();
  ASSERT_GT(first, 0);
  for (int i = 0; i < 200 && net.deadline()->load() == first; ++i) std::this_thread::sleep_for(10ms);
  const std::int64_t moved = net.deadline()->load();
  EXPECT_GT(moved, first);
  for (int i = 0; i < 200 && integer(*link, {"PEXPIRETIME", "semsim:n:plain"}) != moved; ++i)
    std::this_thread::sleep_for(10ms);
  EXPECT_EQ(integer(*link, {"PEXPIRETIME", "semsim:n:plain"}), moved);
  EXPECT_EQ(integer(*link, {"PEXPIRETIME", "semsim:n:variants"}), variants);
  EXPECT_EQ(integer(*link, {"TTL", "app:z"}), -1);
  EXPECT_EQ(net.stop(), "");
}

TEST(KeySafetyNet, SaysWhyItCouldNotWork) {
  KeySafetyNet net(parse_redis_url("unix:///nonexistent/semsim.sock", std::nullopt), "semsim:n:", 1s);
  EXPECT_EQ(net.deadline()->load(), 0);
  EXPECT_NE(net.stop(), "");
}

// The remedy for keys left behind runs on the server they are on, not on localhost:6379.
TEST(RedisTarget, ARedisCliLineNamesTheServer) {
  EXPECT_EQ(parse_redis_url("unix:///run/my redis.sock", std::nullopt).redis_cli(), "redis-cli -s '/run/my redis.sock'");
  EXPECT_EQ(parse_redis_url("redis://ci@cache.internal:6380/3", std::string("pw")).redis_cli(),
            "REDISCLI_AUTH=\"$SEMSIM_REDIS_PASSWORD\" redis-cli -h cache.internal -p 6380 -n 3 --user ci");
}

}  // namespace
}  // namespace semsim
