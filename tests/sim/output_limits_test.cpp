// A run whose outputs cannot be written says so and exits 2 (docs/contract.md, "Outputs"), and the
// history it wrote up to then stays valid. A file-size limit (ulimit -f) stands in for a full disk:
// gnuplot, like on a full disk, exits 0 with its chart cut short.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace semsim {
namespace {

namespace fs = std::filesystem;

int bash(const std::string& script) {
  const int status = std::system(("bash -c '" + script + "'").c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(OutputLimits, AChartCutShortIsAnErrorAndTheHistoryStaysValid) {
  const fs::path dir = fs::path(::testing::TempDir()) / "output_limits";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string semsim = SEMSIM_BINARY;
  // 12 KiB: the history (under 1 KiB) fits, the holders chart (some 27 KiB of SVG) does not.
  // The limit is the subshell's; its messages reach the file through a pipe (a file would be limited too).
  EXPECT_EQ(bash("set -o pipefail; (ulimit -f 12; exec " + semsim + " run --variant lua --clients 2 --duration 200ms --out " +
                 (dir / "out").string() + " 2>&1 >/dev/null) | cat >" + (dir / "err").string()),
            2);
  const std::string err = slurp(dir / "err");
  EXPECT_NE(err.find("semsim run: cannot write " + (dir / "out").string() + "/holders.svg"), std::string::npos) << err;
  EXPECT_EQ(bash(semsim + " analyze " + (dir / "out" / "history.csv").string() + " --no-charts --out " +
                 (dir / "analyzed").string() + " >/dev/null 2>&1"),
            0);
  EXPECT_NE(slurp(dir / "analyzed" / "summary.csv").find(",complete,"), std::string::npos);
  // No byte at all: the first file (run.ini) fails, with the system's reason.
  EXPECT_EQ(bash("set -o pipefail; (ulimit -f 0; exec " + semsim + " run --variant lua --clients 2 --duration 200ms "
                 "--no-charts --out " + (dir / "zero").string() + " 2>&1 >/dev/null) | cat >" + (dir / "err0").string()),
            2);
  EXPECT_NE(slurp(dir / "err0").find("File too large"), std::string::npos) << slurp(dir / "err0");
}

}  // namespace
}  // namespace semsim
