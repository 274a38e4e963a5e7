// Every output file is checked, and a failure names the path and the system's reason: a full disk,
// a file-size limit, no file descriptor left are each told as what they are.
#include <gtest/gtest.h>

#include <sys/resource.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "reports/history/output_file.h"
#include "reports/history/text_format.h"

namespace semsim {
namespace {

namespace fs = std::filesystem;

std::string error_of(const std::string& path, const std::string& text) {
  try {
    write_output_file(path, text);
  } catch (const OutputError& e) {
    return e.what();
  }
  return "";
}

TEST(OutputFile, WritesTheWholeText) {
  const fs::path p = fs::path(::testing::TempDir()) / "output_file_whole.txt";
  write_output_file(p.string(), std::string(100000, 'x') + "end\n");
  EXPECT_EQ(fs::file_size(p), 100004u);
}

TEST(OutputFile, AFullDiskIsToldAsSuch) {
  EXPECT_EQ(error_of("/dev/full", "x"), "cannot write /dev/full: No space left on device");
}

TEST(OutputFile, AMissingFolderIsToldAsSuch) {
  EXPECT_EQ(error_of("/nonexistent-semsim/x.csv", "x"), "cannot write /nonexistent-semsim/x.csv: No such file or directory");
}

// In a child (EXPECT_EXIT): writes `size` bytes under a (soft) limit of the process, says the error.
// The limit is lifted again before the error is read: UBSan checks a virtual call by reading
// /proc/self/maps, which it cannot open with no file descriptor left.
void write_under_limit(int resource, rlim_t limit, const std::string& path, std::size_t size) {
  std::signal(SIGXFSZ, SIG_IGN);  // as semsim's main does
  rlimit before{};
  getrlimit(resource, &before);
  const rlimit lowered{limit, before.rlim_max};
  setrlimit(resource, &lowered);
  try {
    write_output_file(path, std::string(size, 'x'));
  } catch (const OutputError& e) {
    setrlimit(resource, &before);
    std::cerr << e.what();
  }
  std::exit(0);
}

// Not "disk full": out of file descriptors is a limit of the process, and said so.
TEST(OutputFile, NoFileDescriptorLeftIsNotADiskFull) {
  const std::string p = (fs::path(::testing::TempDir()) / "output_file_fds.txt").string();
  EXPECT_EXIT(write_under_limit(RLIMIT_NOFILE, 0, p, 1), ::testing::ExitedWithCode(0),
              "cannot write .*output_file_fds.txt: Too many open files");
}

// Past a file-size limit (ulimit -f), with SIGXFSZ ignored.
TEST(OutputFile, AFileSizeLimitIsToldAsSuch) {
  const std::string p = (fs::path(::testing::TempDir()) / "output_file_fsize.txt").string();
  EXPECT_EXIT(write_under_limit(RLIMIT_FSIZE, 1000, p, 5000), ::testing::ExitedWithCode(0),
              "cannot write .*output_file_fsize.txt: File too large");
}

TEST(ShellQuote, PlainWordsStayAsTheyAreAndTheRestIsSingleQuoted) {
  EXPECT_EQ(shell_quote("semsim-out/run/run.ini"), "semsim-out/run/run.ini");
  EXPECT_EQ(shell_quote("my runs/run.ini"), "'my runs/run.ini'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_quote("a\nb$(x)"), "'a\nb$(x)'");
  EXPECT_EQ(shell_quote(""), "''");
}

}  // namespace
}  // namespace semsim
