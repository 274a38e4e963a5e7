// Who is at the other end of a local TCP connection (sim/drivers/peer_process.h): this process or
// its descendants, not another; and a walk of /proc while processes come and go never throws (it
// runs on a proxy's thread, where an exception ends semsim).
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include "sim/drivers/peer_process.h"

extern char** environ;

namespace semsim {
namespace {

// A TCP connection on 127.0.0.1 made by this process: the accepted end (ours) and the peer's.
// Close-on-exec: a child started meanwhile would hold the peer's socket too.
struct Connection {
  int listener = -1, accepted = -1, peer = -1;
  Connection() {
    listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    EXPECT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    EXPECT_EQ(::listen(listener, 4), 0);
    EXPECT_EQ(::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len), 0);
    peer = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    EXPECT_EQ(::connect(peer, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    accepted = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
  }
  ~Connection() {
    for (int fd : {listener, accepted, peer})
      if (fd >= 0) ::close(fd);
  }
};

pid_t spawn(const char* path, const char* arg) {
  pid_t pid = -1;
  char* argv[] = {const_cast<char*>(path), const_cast<char*>(arg), nullptr};
  EXPECT_EQ(::posix_spawn(&pid, path, nullptr, nullptr, argv, environ), 0);
  return pid;
}

TEST(PeerProcess, TheProcessHoldingThePeersSocketIsFoundAmongTheOwnersDescendantsOnly) {
  Connection c;
  const auto inode = peer_socket_inode(c.accepted);
  ASSERT_TRUE(inode);
  EXPECT_TRUE(held_by_descendant(*inode, ::getpid()));
  // A child's descendants do not include its parent: this process is an outsider to it.
  const pid_t child = spawn("/bin/sleep", "30");
  EXPECT_FALSE(held_by_descendant(*inode, child));
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  // A socket no process holds (the peer closed it) is nobody's.
  ::close(c.peer);
  c.peer = -1;
  EXPECT_FALSE(held_by_descendant(*inode, ::getpid()));
}

TEST(PeerProcess, AWalkWhileProcessesComeAndGoNeverThrows) {
  Connection c;
  const auto inode = peer_socket_inode(c.accepted);
  ASSERT_TRUE(inode);
  std::atomic<bool> stop{false};
  const auto churn = [&] {  // children that end at once, reaped at once: /proc entries vanish mid-walk
    while (!stop) {
      const pid_t pid = spawn("/bin/true", nullptr);
      if (pid > 0) ::waitpid(pid, nullptr, 0);
    }
  };
  std::thread one(churn), two(churn);
  for (int i = 0; i < 500; ++i) {
    EXPECT_NO_THROW(EXPECT_TRUE(held_by_descendant(*inode, ::getpid())));
    EXPECT_NO_THROW(peer_socket_inode(c.accepted));
  }
  stop = true;
  one.join();
  two.join();
}

}  // namespace
}  // namespace semsim
