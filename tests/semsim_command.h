// `semsim ARGS` as a test runs it: the exit code, and what it printed on stderr (stdout dropped).
// One definition for every test file (the test binaries compile as unity sources).
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <utility>

#include "tests/text_file.h"

namespace semsim {

inline std::pair<int, std::string> run_semsim(const std::string& args) {
  // A file per test: ctest runs the tests as parallel processes.
  const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::filesystem::path err = std::filesystem::path(::testing::TempDir()) /
                                    (std::string("stderr_") + test->test_suite_name() + "." + test->name());
  const int status = std::system((std::string(SEMSIM_BINARY) + " " + args + " >/dev/null 2>" + err.string()).c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(err)};
}

}  // namespace semsim
