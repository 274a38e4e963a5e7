// Determinism is a property of the source: nothing in sim/ or algorithms/ may read the wall clock
// or a global random source behind the simulator's back. The few files that must (pacing the
// wall clock, bounding real I/O and process start-up) are listed with their reason.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;

const std::map<std::string, std::string> kAllowed = {
    {"sim/wall_clock.h", "paced mode follows the wall clock; progress and wall_s report it"},
    {"sim/wall_clock.cpp", "paced mode follows the wall clock; progress and wall_s report it"},
    {"sim/redis_link.cpp", "timeouts bound real I/O with Redis, not simulated time"},
    {"sim/embedded_redis.cpp", "waits for a real redis-server process to start and stop"},
};

TEST(Tidy, NoWallClockOrGlobalRandomnessInTheSimulatorOrAlgorithms) {
  const char* banned[] = {"system_clock::now", "steady_clock::now", "high_resolution_clock", "std::rand",
                          "random_device",     "sleep_for",         "sleep_until",           "gettimeofday",
                          "clock_gettime",     "time(nullptr)",     "time(NULL)",            "srand("};
  int files = 0;
  for (const char* dir : {"sim", "algorithms"}) {
    for (const auto& entry : fs::directory_iterator(fs::path(SEMSIM_SOURCE_DIR) / dir)) {
      const std::string rel = std::string(dir) + "/" + entry.path().filename().string();
      if (kAllowed.count(rel)) continue;
      ++files;
      std::ifstream in(entry.path());
      std::string line;
      for (int n = 1; std::getline(in, line); ++n)
        for (const char* word : banned)
          EXPECT_EQ(line.find(word), std::string::npos) << rel << ":" << n << " uses " << word << ": " << line;
    }
  }
  EXPECT_GT(files, 20);  // the walk really saw the sources
}

}  // namespace
