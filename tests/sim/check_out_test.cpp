// semsim check deletes only what it made in this run (docs/contract.md, "What semsim deletes"):
// its case files go in a folder of its own under --out, and --out . beside the user's folders
// leaves them alone.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace semsim {
namespace {

namespace fs = std::filesystem;

TEST(CheckOut, CheckOutDotDeletesNoFolderItDidNotMake) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("check_out_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  for (const char* mine : {"case", "case-1", "case-2", "cases"}) {
    fs::create_directories(dir / mine);
    std::ofstream(dir / mine / "keep.txt") << "mine\n";
  }
  const int status = std::system(("cd " + dir.string() + " && " + SEMSIM_BINARY +
                                  " check --variant basic --cases 20 --seed 1 --jobs 2 --out . >/dev/null 2>&1")
                                     .c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_TRUE(WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 1) << WEXITSTATUS(status);
  for (const char* mine : {"case", "case-1", "case-2", "cases"})
    EXPECT_TRUE(fs::exists(dir / mine / "keep.txt")) << mine;
  // And its own case folder is gone.
  for (const auto& entry : fs::directory_iterator(dir))
    EXPECT_FALSE(entry.path().filename().string().starts_with("cases.")) << entry.path();
  fs::remove_all(dir);
}

}  // namespace
}  // namespace semsim
