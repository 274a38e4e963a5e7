// Limits of the machine, said as what they are (docs/contract.md): a run whose outputs cannot be
// written says so and exits 2, and the history it wrote up to then stays valid (a file-size limit,
// ulimit -f, stands in for a full disk: gnuplot, like on a full disk, exits 0 with its chart cut
// short); a run whose clients do not fit in memory says how many did.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/text_file.h"

namespace semsim {
namespace {

namespace fs = std::filesystem;

int bash(const std::string& script) {
  const int status = std::system(("bash -c '" + script + "'").c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(OutputLimits, AChartCutShortIsAnErrorAndTheHistoryStaysValid) {
  const fs::path dir = fs::path(::testing::TempDir()) / "output_limits";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string semsim = SEMSIM_BINARY;
  // 28 KiB: the history (under 2 KiB) fits, the timeline page (some 37 KiB since it draws master
  // lanes and every client) and the holders chart (some 31 KiB of SVG) do not: the first written fails.
  // The limit is the subshell's; its messages reach the file through a pipe (a file would be limited too).
  EXPECT_EQ(bash("set -o pipefail; (ulimit -f 28; exec " + semsim + " run --variant lua --clients 2 --duration 200ms --out " +
                 (dir / "out").string() + " 2>&1 >/dev/null) | cat >" + (dir / "err").string()),
            2);
  const std::string err = slurp(dir / "err");
  EXPECT_NE(err.find("semsim run: cannot write " + (dir / "out").string() + "/timeline.html: File too large"),
            std::string::npos)
      << err;
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

#if defined(__SANITIZE_ADDRESS__)
#define SEMSIM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SEMSIM_ASAN 1
#endif
#endif

TEST(OutputLimits, ClientsThatDoNotFitInMemoryAreToldWithHowManyDid) {
#ifdef SEMSIM_ASAN
  GTEST_SKIP() << "AddressSanitizer reserves more address space than the limit allows";
#endif
  const fs::path dir = fs::path(::testing::TempDir()) / "output_limits_memory";
  fs::remove_all(dir);
  // 300 MB: a million clients took about 1.4 GB before (three mt19937_64 engines each), and fit
  // in 1.5 GB since; now about half of them fit in this limit.
  EXPECT_EQ(bash("(ulimit -v 300000; exec " + std::string(SEMSIM_BINARY) + " run --variant lua --clients 1000000 "
                 "--duration 1s --no-charts --out " + (dir / "out").string() + " >/dev/null 2>" +
                 (dir.string() + ".err") + ")"),
            2);
  const std::string err = slurp(dir.string() + ".err");
  EXPECT_NE(err.find("semsim run: ran out of memory building the clients: "), std::string::npos) << err;
  EXPECT_NE(err.find(" of 1000000 fit in the memory"), std::string::npos) << err;
  EXPECT_EQ(err.find("std::bad_alloc"), std::string::npos) << err;
}

}  // namespace
}  // namespace semsim
