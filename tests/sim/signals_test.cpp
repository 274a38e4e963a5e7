// Signals as scripts send them (docs/contract.md, "Signals"): no SIGINT is lost, whenever it
// comes, even to a semsim that inherited SIGINT ignored (a job started with `&` by a script), and
// an interrupted command says what it did so far and leaves no scratch behind.
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

fs::path signals_scratch(const std::string& name) {
  const fs::path p = fs::path(::testing::TempDir()) / ("signals_" + name);
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

// The exit code of a bash script (the binary is $S).
int bash_with_semsim(const std::string& script) {
  const fs::path file = fs::path(::testing::TempDir()) /
                        ("signals_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + ".sh");
  std::ofstream(file) << "S=" << SEMSIM_BINARY << "\n" << script;
  const int status = std::system(("bash " + file.string()).c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// A background job of a script inherits SIGINT ignored; `kill -INT` stops it all the same.
TEST(Signals, ASigintToABackgroundJobThatInheritedItIgnoredStopsTheRun) {
  const fs::path dir = signals_scratch("ignored");
  EXPECT_EQ(bash_with_semsim("(trap '' INT; exec $S run --variant lua --mode paced --clients 2 --duration 60s --no-charts --out " +
                 (dir / "out").string() + " >/dev/null 2>" + (dir / "err").string() + ") & pid=$!\n"
                 // Once the run has begun (its run row and a row after it).
                 "for i in $(seq 100); do [ \"$(wc -l <" + (dir / "out" / "history.csv").string() +
                 " 2>/dev/null)\" -ge 3 ] && break; sleep 0.1; done\n"
                 "kill -INT $pid; wait $pid\n"),
            130);
  EXPECT_NE(slurp(dir / "out" / "history.csv").find(",run,fail,"), std::string::npos);
  EXPECT_NE(slurp(dir / "out" / "history.csv").find("interrupted by SIGINT"), std::string::npos);
  EXPECT_NE(slurp(dir / "err").find("stopped early (interrupted by SIGINT)"), std::string::npos) << slurp(dir / "err");
}

// A SIGINT that comes before any run starts, while semsim still reads its files (here: blocked on
// opening a FIFO), is not lost either: the handlers are installed first thing.
TEST(Signals, ASigintWhileTheFilesAreReadIsNotLost) {
  const fs::path dir = signals_scratch("early");
  const std::string fifo = (dir / "scenario.ini").string();
  EXPECT_EQ(bash_with_semsim("mkfifo " + fifo + "\n"
                 "(trap '' INT; exec $S scenario " + fifo + " --out " + (dir / "out").string() + " >/dev/null 2>&1) & pid=$!\n"
                 "sleep 0.5; kill -INT $pid; sleep 0.2\n"
                 // Without the handler the signal was dropped: the file then arrives and the run goes on.
                 "timeout 2 sh -c 'printf \"variant = lua\\nclients = 2\\nduration = 200ms\\n\" > " + fifo + "'\n"
                 "wait $pid\n"),
            130);
}

// check interrupted: what it searched so far, and no case folder left behind.
TEST(Signals, AnInterruptedCheckSaysHowFarItGotAndRemovesItsCaseFolders) {
  const fs::path dir = signals_scratch("check");
  EXPECT_EQ(bash_with_semsim("$S check --variant lua --cases 100000 --jobs 2 --out " + (dir / "out").string() + " >" +
                 (dir / "stdout").string() + " 2>" +
                 (dir / "err").string() + " & pid=$!\n"
                 "for i in $(seq 300); do ls -d " + (dir / "out").string() + "/case* >/dev/null 2>&1 && break; sleep 0.1; done\n"
                 "sleep 1; kill -INT $pid; wait $pid\n"),
            130);
  const std::string err = slurp(dir / "err");
  EXPECT_NE(err.find("semsim check: interrupted after "), std::string::npos) << err;
  EXPECT_NE(err.find(" cases, no violation so far"), std::string::npos) << err;
  EXPECT_EQ(err.find("preparation"), std::string::npos) << err;
  // The result (after the plan) is said to be partial first, and no whole-search sentence is printed.
  const std::string printed = slurp(dir / "stdout");
  const std::size_t result = printed.find("\nPARTIAL: interrupted after ");
  EXPECT_NE(result, std::string::npos) << printed;
  EXPECT_NE(printed.find(" of 100000 cases, no violation so far", result), std::string::npos) << printed;
  EXPECT_EQ(printed.find("no violation in"), std::string::npos) << printed;
  for (const auto& entry : fs::directory_iterator(dir / "out"))
    EXPECT_FALSE(entry.path().filename().string().starts_with("case")) << entry.path();
}

}  // namespace
}  // namespace semsim
