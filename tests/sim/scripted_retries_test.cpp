// --retries holds for a script's acquires as for the workload's (docs/contract.md, actions.csv):
// a refused scripted acquire is tried again after --retry-delay, not dropped without a word.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace semsim {
namespace {

namespace fs = std::filesystem;

// The acquire outcomes (ok/fail) of `client` in a history, in order, as "fail ok".
std::string acquire_outcomes(const fs::path& history, const std::string& client) {
  std::ifstream in(history);
  std::string out;
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> f;
    std::stringstream cells(line);
    for (std::string c; std::getline(cells, c, ',');) f.push_back(c);
    // seq,true_us,client,op,phase,...
    if (f.size() > 4 && f[2] == client && f[3] == "acquire" && (f[4] == "ok" || f[4] == "fail"))
      out += (out.empty() ? "" : " ") + f[4];
  }
  return out;
}

TEST(ScriptedRetries, ARefusedScriptedAcquireIsRetriedAsRetriesSays) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("scripted_retries_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  // Client 1 holds the one permit from 0 to 100 ms; client 2 asks at 10 ms, refused until then.
  std::ofstream(dir / "actions.csv") << "at,client,action,arg\n0ms,1,acquire,100ms\n10ms,2,acquire,50ms\n";
  const std::string run = std::string(SEMSIM_BINARY) + " run --variant lua --clients 2 --limit 1 --duration 400ms "
                          "--no-charts --actions-file " + (dir / "actions.csv").string();
  ASSERT_EQ(std::system((run + " --retries 5 --retry-delay 30ms --out " + (dir / "retried").string() + " >/dev/null 2>&1").c_str()), 0);
  // Refused at 10, 40 and 70 ms; granted at 100 ms, client 1's permit released.
  EXPECT_EQ(acquire_outcomes(dir / "retried" / "history.csv", "2"), "fail fail fail ok");
  ASSERT_EQ(std::system((run + " --out " + (dir / "once").string() + " >/dev/null 2>&1").c_str()), 0);
  EXPECT_EQ(acquire_outcomes(dir / "once" / "history.csv", "2"), "fail");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace semsim
