// Coverage marks keep their promise only while every mark sits on its path in the program and
// some test watches it (marks/coverage_marks.h). A mark nobody watches, or that no code reaches,
// is found here, by reading the sources.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "marks/coverage_marks.h"

namespace semsim {
namespace {

namespace fs = std::filesystem;

// Every .cpp/.h under `folders`, concatenated.
std::string sources(std::initializer_list<const char*> folders) {
  std::string all;
  for (const char* folder : folders)
    for (const auto& entry : fs::recursive_directory_iterator(fs::path(SEMSIM_SOURCE_DIR) / folder)) {
      const std::string ext = entry.path().extension().string();
      if (!entry.is_regular_file() || (ext != ".cpp" && ext != ".h")) continue;
      std::ifstream in(entry.path());
      all.append(std::istreambuf_iterator<char>(in), {});
    }
  return all;
}

TEST(CoverageMarks, EveryMarkIsReachedInTheProgramAndWatchedByATest) {
  const std::string program = sources({"algorithms", "sim", "reports"});
  const std::string tests = sources({"tests"});
  for (int i = 0; i < kMarkCount; ++i) {
    const Mark m = static_cast<Mark>(i);
    const std::string name = "Mark::" + std::string(to_string(m));
    EXPECT_NE(program.find("mark(" + name + ")"), std::string::npos) << name << " is never reached: no mark() on a path";
    EXPECT_NE(tests.find("(" + name + ")"), std::string::npos) << name << " is watched by no test (MarkWatch)";
  }
}

TEST(CoverageMarks, AWatchSeesOnlyTheHitsAfterIt) {
  mark(Mark::steal);
  const MarkWatch watch(Mark::steal);
  EXPECT_FALSE(watch.hit());
  mark(Mark::steal);
  EXPECT_TRUE(watch.hit());
}

}  // namespace
}  // namespace semsim
