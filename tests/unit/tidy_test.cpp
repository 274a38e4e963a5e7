// Determinism is a property of the source: nothing in the program's rooms may read the wall clock
// or a global random source behind the simulator's back, or draw numbers in a way that differs
// between standard libraries. Each ban names its replacement; the few files that must read the
// wall clock (pacing, bounding real I/O and process start-up) are listed with their reason.
// Includes that cross rooms the wrong way are refused by the build itself (docs/architecture.md).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

struct Ban {
  const char* text;
  const char* instead;
};

const std::vector<Ban> kBans = {
    {"system_clock::now", "the scheduler's now() (TrueTime), or a client's clock (sim/core/client_clock.h)"},
    {"steady_clock::now", "the scheduler's now(); paced runs: Pacer (sim/core/wall_clock.h)"},
    {"high_resolution_clock", "the scheduler's now()"},
    {"gettimeofday", "the scheduler's now()"},
    {"clock_gettime", "the scheduler's now()"},
    {"time(nullptr)", "the scheduler's now()"},
    {"time(NULL)", "the scheduler's now()"},
    {"sleep_for", "co_await client.sleep(d) in simulated time; paced runs: Pacer"},
    {"sleep_until", "co_await client.sleep(d) in simulated time; paced runs: Pacer"},
    {"std::rand", "a stream of Rng (sim/core/random.h), forked from the run's seed"},
    {"srand(", "a stream of Rng (sim/core/random.h), forked from the run's seed"},
    {"random_device", "a stream of Rng (sim/core/random.h), forked from the run's seed"},
    {"mt19937", "Rng (sim/core/random.h), the one engine, seeded from the run's seed"},
    // The standard leaves the algorithms of std::*_distribution to each library: the same seed
    // would give other histories with libc++ than with libstdc++.
    {"_distribution<", "Rng::uniform_int, uniform01, normal, exponential (sim/core/random.h) or Distribution::sample"},
    // Iteration order of hashed containers differs between libraries and runs into output.
    {"unordered_map", "std::map (ordered: the same output everywhere)"},
    {"unordered_set", "std::set (ordered: the same output everywhere)"},
};

// File -> the bans it may break, and why.
const std::map<std::string, std::pair<std::vector<std::string>, std::string>> kAllowed = {
    {"sim/core/wall_clock.h", {{"steady_clock::now"}, "paced mode follows the wall clock; wall_s reports it"}},
    {"sim/core/wall_clock.cpp", {{"sleep_for"}, "paced mode waits for the wall clock"}},
    {"sim/core/random.h", {{"mt19937"}, "names the engine it replaced, for its memory"}},
    {"sim/redis/redis_link.cpp", {{"steady_clock::now"}, "timeouts bound real I/O with Redis, not simulated time"}},
    {"sim/redis/embedded_redis.cpp",
     {{"steady_clock::now", "sleep_for"},
      "waits for real redis-server processes to start, stop and elect; spreads its picks of replication ports"}},
    {"sim/redis/clock_library/semsim_clock.c",
     {{"gettimeofday", "clock_gettime"}, "runs inside redis-server and answers these very calls"}},
    {"sim/drivers/real_clock.cpp",
     {{"clock_gettime", "sleep_for"}, "driver runs happen in real time: their true clock is CLOCK_MONOTONIC, shared "
                                      "with the driver processes, and they wait for real processes and sockets"}},
    {"sim/drivers/clock_library/semsim_client_clock.c",
     {{"gettimeofday", "clock_gettime"}, "runs inside driver processes and answers these very calls"}},
    {"sim/drivers/clock_library/semsim_client_library.h",
     {{"clock_gettime"}, "declares the library's own way to the real clock, under the calls it answers"}},
    {"sim/drivers/clock_library/semsim_warp_waits.c",
     {{"clock_gettime"}, "a sliced wait looks at the real clock for its next slice of real time"}},
    {"sim/drivers/clock_library/semsim_warp_random.c",
     {{"random_device"}, "names the devices (/dev/urandom, /dev/random) whose bytes it replaces with the seed's"}},
};

bool allowed(const std::string& file, const std::string& ban) {
  const auto it = kAllowed.find(file);
  if (it == kAllowed.end()) return false;
  for (const auto& b : it->second.first)
    if (b == ban) return true;
  return false;
}

TEST(Tidy, NoWallClockGlobalRandomnessOrLibraryDependentDrawsInTheProgram) {
  int files = 0;
  for (const char* room : {"algorithms", "sim", "cli", "reports", "marks"}) {
    for (const auto& entry : fs::recursive_directory_iterator(fs::path(SEMSIM_SOURCE_DIR) / room)) {
      const std::string ext = entry.path().extension().string();
      if (!entry.is_regular_file() || (ext != ".cpp" && ext != ".h" && ext != ".c")) continue;
      const std::string rel = fs::relative(entry.path(), SEMSIM_SOURCE_DIR).generic_string();
      ++files;
      std::ifstream in(entry.path());
      std::string line;
      for (int n = 1; std::getline(in, line); ++n)
        for (const Ban& ban : kBans)
          if (line.find(ban.text) != std::string::npos && !allowed(rel, ban.text))
            ADD_FAILURE() << rel << ":" << n << " uses " << ban.text << "; use " << ban.instead << " instead: " << line;
    }
  }
  EXPECT_GT(files, 100);  // the walk really saw the sources
}

TEST(Tidy, EveryAllowanceIsStillNeeded) {
  for (const auto& [file, entry] : kAllowed) {
    std::ifstream in(fs::path(SEMSIM_SOURCE_DIR) / file);
    ASSERT_TRUE(in) << file << " is gone: drop its allowance";
    const std::string text((std::istreambuf_iterator<char>(in)), {});
    for (const auto& ban : entry.first)
      EXPECT_NE(text.find(ban), std::string::npos) << file << " no longer uses " << ban << ": drop the allowance";
  }
}

}  // namespace
