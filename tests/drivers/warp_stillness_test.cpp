// Warp's quiescence (sim/drivers/warp_stillness.h) on real processes: asleep is still, whatever
// the sleep; running, or woken between the two looks, is not.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "sim/drivers/warp_stillness.h"

namespace {

// A child of this process that runs `body` and is killed with the test.
struct Child {
  pid_t pid = -1;
  template <typename Body>
  explicit Child(Body body) {
    pid = ::fork();
    if (pid == 0) {
      body();
      ::_exit(0);
    }
  }
  ~Child() {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
  }
};

void settle() { std::this_thread::sleep_for(std::chrono::milliseconds(100)); }

TEST(Stillness, ChildrenAsleepInAReadAreStill) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  Child reader([&] {
    char c;
    [[maybe_unused]] const ssize_t n = ::read(fds[0], &c, 1);
  });
  settle();
  semsim::Stillness stillness(::getpid());
  EXPECT_TRUE(stillness.still());
  ::close(fds[0]);
  ::close(fds[1]);
}

TEST(Stillness, AChildThatSpinsIsNotAndIsNamed) {
  Child sleeper([] { ::pause(); });
  Child spinner([] {
    for (;;) __asm__ volatile("");
  });
  settle();
  semsim::Stillness stillness(::getpid());
  semsim::ThreadLook busy;
  EXPECT_FALSE(stillness.still(&busy));
  EXPECT_EQ(busy.pid, spinner.pid);
}

}  // namespace
