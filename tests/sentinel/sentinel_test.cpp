// Redis Sentinel, real processes and real time (ctest -L sentinel): the embedded sentinel topology
// survives a failover that the sentinels themselves elect, and a user's sentinels (--sentinel)
// lead semsim to their primary again after a dropped connection.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "reports/outputs/analysis.h"
#include "sim/redis/embedded_redis.h"
#include "sim/redis/redis_link.h"

namespace semsim {
namespace {

namespace fs = std::filesystem;

int run_semsim(const std::string& args) {
  const int status = std::system((std::string(SEMSIM_BINARY) + " " + args + " >/dev/null 2>&1").c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string slurp(const fs::path& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Grants after `from_us` of true time, from the history.
int grants_after(const fs::path& history, std::int64_t from_us) {
  std::ifstream in(history);
  int n = 0;
  for (std::string line; std::getline(in, line);)
    if (line.find(",acquire,ok,") != std::string::npos && std::stoll(line.substr(line.find(',') + 1)) > from_us) ++n;
  return n;
}

TEST(Sentinel, TheSentinelsElectANewPrimaryAndClientsCarryOnWithIt) {
  const fs::path dir = fs::path(::testing::TempDir()) / "sentinel_failover";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "actions.csv") << "at,client,action,arg\n1s,0,failover,0ms\n";
  ASSERT_EQ(run_semsim("run --topology sentinel --variant lua --clients 5 --limit 2 --duration 4s --no-charts --out " +
                       (dir / "out").string() + " --actions-file " + (dir / "actions.csv").string()),
            0);
  const std::string history = slurp(dir / "out" / "history.csv");
  EXPECT_NE(history.find(",failover,ok,"), std::string::npos);
  EXPECT_NE(history.find("elected_by=sentinel"), std::string::npos);
  EXPECT_GT(grants_after(dir / "out" / "history.csv", 1'000'000), 0);  // the new primary grants
  const Summary s = analyze_history((dir / "out" / "history.csv").string());
  EXPECT_EQ(s.status, "complete");
  EXPECT_EQ(s.server_faults, 1);
}

TEST(Sentinel, AUsersSentinelsNameThePrimaryAgainAfterADroppedConnection) {
  ServerSetup setup;
  setup.sentinel = true;
  EmbeddedRedis redis(setup);  // stands in for a user's deployment: semsim reaches it only through --sentinel
  std::string list;
  for (const RedisTarget& t : redis.sentinels()) list += (list.empty() ? "" : ",") + t.host + ":" + std::to_string(t.port);
  const fs::path dir = fs::path(::testing::TempDir()) / "sentinel_user";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "actions.csv") << "at,client,action,arg\n500ms,0,disconnect,\n";
  ASSERT_EQ(run_semsim("run --sentinel " + list + " --master semsim --variant lua --clients 3 --limit 1 --duration 1500ms "
                       "--mode paced --no-charts --out " + (dir / "out").string() + " --actions-file " +
                       (dir / "actions.csv").string()),
            0);
  EXPECT_GT(grants_after(dir / "out" / "history.csv", 500'000), 0);
  // Only the run's keys were touched, and they are gone.
  auto link = RedisLink::connect(redis.target());
  EXPECT_EQ(link->execute({{"DBSIZE"}}).at(0).integer, 0);
  // A failover there is the user's to make, not semsim's: bad input.
  std::ofstream(dir / "failover.csv") << "at,client,action,arg\n500ms,0,failover,0ms\n";
  EXPECT_EQ(run_semsim("run --sentinel " + list + " --master semsim --mode paced --duration 1s --no-charts --out " +
                       (dir / "out2").string() + " --actions-file " + (dir / "failover.csv").string()),
            2);
  EXPECT_EQ(run_semsim("run --sentinel " + list + " --mode paced --duration 1s --no-charts"), 2);  // no --master
}

// A restart under the sentinel topology: the run goes on with the restarted primary, or, if the
// topology could not take it, says why (exit 2 with a message), never a crash (exit 139 before:
// the cleanup dereferenced the link the failed reconnection left null).
TEST(Sentinel, ARestartUnderTheSentinelTopologyIsNoCrash) {
  const fs::path dir = fs::path(::testing::TempDir()) / "sentinel_restart";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "actions.csv") << "at,client,action,arg\n200ms,0,redis_restart,\n";
  for (int i = 0; i < 3; ++i) {
    const std::string out = (dir / ("out" + std::to_string(i))).string();
    const int status = std::system((std::string(SEMSIM_BINARY) + " run --topology sentinel --variant lua --clients 3 "
                                    "--duration 1s --no-charts --out " + out + " --actions-file " +
                                    (dir / "actions.csv").string() + " >" + out + ".log 2>&1").c_str());
    ASSERT_TRUE(WIFEXITED(status)) << "killed by a signal, try " << i;
    const int code = WEXITSTATUS(status);
    EXPECT_TRUE(code == 0 || code == 1 || (code == 2 && slurp(out + ".log").find("semsim run: ") != std::string::npos))
        << "try " << i << ": exit " << code << "\n" << slurp(out + ".log");
    if (code == 0) {
      EXPECT_NE(slurp(fs::path(out) / "history.csv").find(",redis_restart,ok,"), std::string::npos);
    }
  }
}

// Sentinels with requirepass: their password from SEMSIM_SENTINEL_PASSWORD (never the command line).
TEST(Sentinel, SentinelsWithAPasswordAreAskedWithIt) {
  ServerSetup setup;
  setup.sentinel = true;
  EmbeddedRedis redis(setup);
  const RedisTarget sentinel = redis.sentinels().front();
  RedisLink::connect(sentinel)->execute({{"ACL", "SETUSER", "default", ">sentinel-secret"}});
  const std::string address = sentinel.host + ":" + std::to_string(sentinel.port);
  const fs::path dir = fs::path(::testing::TempDir()) / "sentinel_password";
  fs::remove_all(dir);
  const std::string run = "run --sentinel " + address + " --master semsim --variant lua --clients 2 --duration 300ms "
                          "--mode paced --no-charts --out " + dir.string();
  EXPECT_EQ(run_semsim(run), 2);  // NOAUTH: no password given
  ::setenv("SEMSIM_SENTINEL_PASSWORD", "sentinel-secret", 1);
  EXPECT_EQ(run_semsim(run), 0);
  ::unsetenv("SEMSIM_SENTINEL_PASSWORD");
}

}  // namespace
}  // namespace semsim
