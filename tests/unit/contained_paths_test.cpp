// What semsim merge may read in a shard and write in --out (sim/run/contained_paths.h): a
// manifest's path stays inside its folder, and no symbolic link is followed either way.
#include "sim/run/contained_paths.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <string>

namespace semsim {
namespace {

namespace fs = std::filesystem;

struct Folder {
  fs::path path = fs::path(::testing::TempDir()) / ("contained_" + std::to_string(::getpid()) + "_" +
                                                    ::testing::UnitTest::GetInstance()->current_test_info()->name());
  Folder() {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~Folder() { fs::remove_all(path); }
};

std::string refusal(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(ContainedPaths, AManifestPathOutsideItsFolderIsRefusedNamingTheField) {
  for (const char* bad : {"", "/etc/passwd", "..", "../x", "a/../../x", "a/..", "./a", "a/./b", "a//b", "a/"}) {
    const std::string why = refusal([&] { relative_path(bad, "s/shard.ini: run 1: its folder"); });
    EXPECT_NE(why.find("s/shard.ini: run 1: its folder = " + std::string(bad) + ":"), std::string::npos)
        << "'" << bad << "': " << why;
  }
  EXPECT_EQ(relative_path("basic-skew-0/seed-11", "f"), fs::path("basic-skew-0/seed-11"));
}

TEST(ContainedPaths, ALinkBelowTheFolderIsNeitherReadNorWrittenThrough) {
  const Folder f;
  fs::create_directories(f.path / "shard" / "run");
  fs::create_directories(f.path / "elsewhere");
  std::ofstream(f.path / "secret.txt") << "secret\n";
  fs::create_symlink(f.path / "secret.txt", f.path / "shard" / "run" / "run.ini");
  fs::create_directory_symlink(f.path / "elsewhere", f.path / "shard" / "linked");
  std::ofstream(f.path / "shard" / "run" / "history.csv") << "rows\n";

  EXPECT_NE(refusal([&] { regular_file_inside(f.path / "shard", "run/run.ini"); }).find("is a symbolic link"),
            std::string::npos);
  EXPECT_NE(refusal([&] { files_of_folder(f.path / "shard", "run"); }).find("run.ini' is a symbolic link"),
            std::string::npos);
  EXPECT_NE(refusal([&] { files_of_folder(f.path / "shard", "linked"); }).find("is a symbolic link"), std::string::npos);
  // Written: the link in the destination is refused, and what it points at is untouched.
  fs::create_directories(f.path / "out");
  fs::create_directory_symlink(f.path / "elsewhere", f.path / "out" / "run");
  fs::remove(f.path / "shard" / "run" / "run.ini");
  EXPECT_NE(refusal([&] { copy_inside(f.path / "shard", f.path / "out", "run/history.csv"); }).find("is a symbolic link"),
            std::string::npos);
  EXPECT_FALSE(fs::exists(f.path / "elsewhere" / "history.csv"));
  // Without links it copies.
  fs::remove(f.path / "out" / "run");
  EXPECT_EQ(files_of_folder(f.path / "shard", "run"), std::vector<fs::path>{"run/history.csv"});
  copy_inside(f.path / "shard", f.path / "out", "run/history.csv");
  std::ifstream copied(f.path / "out" / "run" / "history.csv");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(copied), {}), "rows\n");
}

}  // namespace
}  // namespace semsim
