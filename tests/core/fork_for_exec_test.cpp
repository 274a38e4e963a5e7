// fork_for_exec: a SIGTERM that reaches a child before it execs ends it, whatever handlers semsim
// has installed (reliability.sh's early Ctrl-C: the embedded server's stop() came in that window,
// the child's copy of semsim's handler took it, and the server ran on until killed 3 s later).
#include "sim/core/fork_for_exec.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <time.h>

#include <chrono>

#include "sim/core/interrupt.h"

namespace semsim {
namespace {

TEST(ForkForExec, ASigtermBeforeTheExecEndsTheChildThoughSemsimsHandlersAreInstalled) {
  install_interrupt_handlers();  // as semsim's main() does first
  const auto start = std::chrono::steady_clock::now();
  const pid_t child = fork_for_exec([] {
    const timespec pause{0, 300'000'000};  // the window a loaded machine leaves before the exec
    ::nanosleep(&pause, nullptr);
  });
  if (child == 0) {
    char sleep_binary[] = "/bin/sleep", seconds[] = "5";
    char* argv[] = {sleep_binary, seconds, nullptr};
    ::execv(argv[0], argv);
    ::_exit(127);
  }
  ASSERT_GT(child, 0);
  ASSERT_EQ(::kill(child, SIGTERM), 0);  // while the child is still in its setup
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << "status " << status;
  EXPECT_LT(took, std::chrono::seconds(3)) << "the exec'd program ran on";
  EXPECT_EQ(interrupt_signal(), 0) << "the signal reached the parent's handler";
}

}  // namespace
}  // namespace semsim
