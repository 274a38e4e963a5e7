// Lookahead pipelining (virtual mode) changes how requests travel to Redis, never what happens:
// every run here is made twice, with and without --no-pipeline, and the histories must be the
// same bytes. Variants, seeds, delays and fault mixes vary; server faults are on client 0.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sim/redis/embedded_redis.h"
#include "tests/text_file.h"

namespace semsim {
namespace {

namespace fs = std::filesystem;

fs::path test_dir(const std::string& name) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("pipeline_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// Round trips of a run, from its throughput.csv.
long round_trips(const fs::path& out) {
  std::ifstream in(out / "throughput.csv");
  std::string header, row;
  std::getline(in, header);
  std::getline(in, row);
  std::istringstream h(header), r(row);
  for (std::string name, value; std::getline(h, name, ',') && std::getline(r, value, ',');)
    if (name == "round_trips") return std::stol(value);
  return -1;
}

// Runs `args` twice (pipelined, then with --no-pipeline) and expects the same history; with
// `fewer_round_trips`, also that the pipeline did carry several requests at a time.
void expect_same_history(const fs::path& dir, const std::string& args, const std::string& what,
                         bool fewer_round_trips = false) {
  std::string histories[2];
  long trips[2] = {};
  for (int i = 0; i < 2; ++i) {
    const fs::path out = dir / (i == 0 ? "pipelined" : "serial");
    const std::string command = std::string(SEMSIM_BINARY) + " run " + args + (i == 0 ? "" : " --no-pipeline") +
                                " --no-charts --out " + out.string() + " >/dev/null 2>" + (dir / "stderr").string();
    const int status = std::system(command.c_str());
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) <= 1) << what << ": " << slurp(dir / "stderr");
    histories[i] = slurp(out / "history.csv");
    trips[i] = round_trips(out);
  }
  if (fewer_round_trips) {
    EXPECT_LT(trips[0] * 2, trips[1]) << what;
  }
  EXPECT_GT(histories[0].size(), 2'000u) << what;
  EXPECT_EQ(histories[0], histories[1]) << what;
}

const char* const kDelays[] = {"uniform:0.5ms..2ms", "fixed:1ms", "normal:1ms,300us", "exp:800us"};

// Without Redis's virtual clock (a server semsim did not start, read by URL) a pipeline spans
// many instants: the variants that do not read Redis's clock in virtual mode replay exactly there.
TEST(Pipeline, HistoriesAreTheSameBytesOnAUsersServer) {
  EmbeddedRedis redis;  // stands for the user's server: semsim gets it by URL
  const fs::path dir = test_dir("users_server");
  std::ofstream(dir / "actions.csv") << "at,client,action,arg\n150ms,0,disconnect,\n300ms,0,redis_pause,40ms\n"
                                        "310ms,3,pause,20ms\n500ms,0,disconnect,\n";
  const std::string url = "unix://" + redis.target().unix_path;
  int run = 0;
  for (const std::string variant : {"lua", "basic", "fair"})
    for (const std::string& faults : std::vector<std::string>{"", " --crash-rate 0.5 --pause-rate 2 --pause-length exp:20ms",
                                     " --actions-file " + (dir / "actions.csv").string(),
                                     " --disconnect-rate 40 --redis-pause-rate 5"}) {
      const int turn = run + run / 4;  // four fault mixes: each meets other delays and samplings by variant
      const std::string delay = kDelays[turn % 4];
      // The sampler sends with no delay (the harness): without it the lookahead reaches further.
      const std::string sampling = turn % 2 ? "" : " --sample-every 0";
      const std::string args = "--redis " + url + " --mode virtual --variant " + variant + " --clients 40 --limit 5 " +
                               "--hold exp:10ms --think exp:2ms --timeout 100ms --duration 1s --seed " +
                               std::to_string(100 + run) + " --delay " + delay + sampling + faults;
      expect_same_history(dir, args, variant + " " + delay + faults);
      ++run;
    }
}

// On the embedded server Redis's clock follows virtual time: a pipeline sets it to each request's
// instant from inside (SEMSIM.CLOCK), and the TTL variants (fair-locked's lock, ttl-key's holder
// keys) read it. Redis's clock skewed, drifting and jumping too.
TEST(Pipeline, HistoriesAreTheSameBytesOnTheEmbeddedServer) {
  const fs::path dir = test_dir("embedded");
  std::ofstream(dir / "actions.csv") << "at,client,action,arg\n200ms,0,redis_pause,30ms\n400ms,0,disconnect,\n"
                                        "600ms,0,redis_restart,\n";
  std::ofstream(dir / "jumps.csv") << "at,client,action,arg\n250ms,0,server_jump,+40ms\n700ms,0,server_jump,-15ms\n";
  int run = 0;
  for (const std::string variant : {"lua", "basic", "fair", "fair-locked", "ttl-key"})
    for (const std::string& faults : std::vector<std::string>{" --crash-rate 0.5 --pause-rate 2 --pause-length exp:20ms",
                                     " --actions-file " + (dir / "actions.csv").string(),
                                     " --server-skew 30ms --server-drift 800 --actions-file " + (dir / "jumps.csv").string(),
                                     " --restart-rate 3 --persistence aof-always --disconnect-rate 40 --redis-pause-rate 5"}) {
      const int turn = run + run / 4;  // four fault mixes: each meets other delays and samplings by variant
      const std::string delay = kDelays[turn % 4];
      // The sampler sends with no delay (the harness): without it the lookahead reaches further.
      const bool sampling = turn % 2;
      const std::string args = "--variant " + variant + " --mode virtual --clients 30 --limit 4 --hold exp:10ms " +
                               "--think exp:2ms --timeout 100ms --lock-timeout 20ms --duration 1s --seed " +
                               std::to_string(200 + run) + " --delay " + delay + (sampling ? "" : " --sample-every 0") + faults;
      // A delay that can be 0 (normal, exp) lets a request follow a reply at once: nothing goes ahead.
      const bool delay_has_a_floor = delay.starts_with("uniform") || delay.starts_with("fixed");
      expect_same_history(dir, args, variant + " " + delay + faults, !sampling && delay_has_a_floor);
      ++run;
    }
}

// The sharpest witness of Redis's clock: the `lua` scripts made to read TIME themselves, to the
// microsecond, at every acquire and refresh. A request run at another instant than its own would
// score its lease differently, and the histories would part.
TEST(Pipeline, ScriptsReadingRedisTimeSeeTheirOwnInstantInsideAPipeline) {
  const fs::path dir = test_dir("redis_time");
  const fs::path example = fs::path(SEMSIM_SOURCE_DIR) / "examples" / "lua-script";
  for (const auto& [file, line] : {std::pair{"acquire.lua", "  if ARGV[4] ~= '' then return tonumber(ARGV[4]) end\n"},
                                   std::pair{"refresh.lua", "  if ARGV[3] ~= '' then return tonumber(ARGV[3]) end\n"}}) {
    std::string script = slurp(example / file);
    ASSERT_NE(std::string::npos, script.find(line)) << file;
    std::ofstream(dir / file) << script.erase(script.find(line), std::string(line).size());
  }
  fs::copy_file(example / "release.lua", dir / "release.lua");
  fs::copy_file(example / "semaphore.ini", dir / "semaphore.ini");
  std::ofstream(dir / "jumps.csv") << "at,client,action,arg\n300ms,0,server_jump,+7ms\n";
  for (int seed = 300; seed < 303; ++seed)
    expect_same_history(dir,
                        "--variant script:" + (dir / "semaphore.ini").string() +
                            " --mode virtual --clients 30 --limit 4 --hold uniform:5ms..15ms --think exp:2ms "
                            "--timeout 12ms --refresh-every 4ms --duration 1s --sample-every 0 --server-drift 500 "
                            "--delay uniform:0.5ms..2ms --actions-file " + (dir / "jumps.csv").string() +
                            " --seed " + std::to_string(seed),
                        "seed " + std::to_string(seed), true);
}

}  // namespace
}  // namespace semsim
