// The per-client proxy (sim/drivers/client_proxy.h) between a client and a stand-in for Redis on a
// unix socket: delays per direction, a cut, a partition, a held outbound side, the replies already
// queued when Redis closes still delivered, and its own AUTH swallowed. Real time, real sockets:
// bounds have hundreds of ms of slack.
#include <gtest/gtest.h>

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <signal.h>
#include <sys/wait.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>

#include "algorithms/api/resp_command.h"
#include "sim/drivers/client_proxy.h"
#include "sim/drivers/real_clock.h"

namespace semsim {
namespace {

// A stand-in for Redis: answers each line "X\n" with "got X\n"; "ECHO close" makes it answer, then close.
// It swallows nothing: a test that sets a hello sees AUTH arrive and answers it "+OK\r\n".
class EchoServer {
 public:
  EchoServer() {
    path_ = (std::filesystem::temp_directory_path() / ("semsim-proxy-test-" + std::to_string(::getpid()))).string();
    ::unlink(path_.c_str());
    listen_ = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path_.c_str());
    EXPECT_EQ(::bind(listen_, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    ::listen(listen_, 8);
    thread_ = std::thread([this] { serve(); });
  }
  ~EchoServer() {
    stop_ = true;
    ::shutdown(listen_, SHUT_RDWR);
    thread_.join();
    ::close(listen_);
    ::unlink(path_.c_str());
  }
  Endpoint endpoint() const { return Endpoint{path_, "", 0, {}}; }
  std::string received() const {
    const std::lock_guard<std::mutex> hold(lock_);
    return received_;
  }

 private:
  void serve() {
    while (!stop_) {
      const int fd = ::accept(listen_, nullptr, nullptr);
      if (fd < 0) return;
      std::string buffer;
      char chunk[4096];
      for (;;) {
        const ssize_t n = ::read(fd, chunk, sizeof chunk);
        if (n <= 0) break;
        buffer.append(chunk, static_cast<std::size_t>(n));
        bool closing = false;
        for (std::size_t nl; (nl = buffer.find('\n')) != std::string::npos; buffer.erase(0, nl + 1)) {
          std::string line = buffer.substr(0, nl);
          if (!line.empty() && line.back() == '\r') line.pop_back();
          {
            const std::lock_guard<std::mutex> hold(lock_);
            received_ += line + "|";
          }
          const std::string reply = line.starts_with("*") || line.starts_with("$") || line == "AUTH" || line == "secret"
                                        ? ""
                                        : "got " + line + "\n";
          if (line == "secret") ::write(fd, "+OK\r\n", 5);
          if (!reply.empty()) ::write(fd, reply.data(), reply.size());
          closing |= line == "ECHO close";
        }
        if (closing) break;
      }
      ::close(fd);
    }
  }
  std::string path_;
  int listen_ = -1;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  mutable std::mutex lock_;
  std::string received_;
};

int connect_to(const std::string& address) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(std::stoi(address.substr(address.rfind(':') + 1))));
  EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  return fd;
}

// What arrives within `ms`, until end of file ("<EOF>" appended then), or until `enough` came.
std::string read_for(int fd, int ms, const std::string& enough = "") {
  std::string out;
  const std::int64_t until = monotonic_ns() + ms * kNsPerMs;
  for (;;) {
    const std::int64_t left = (until - monotonic_ns()) / kNsPerMs;
    if (left <= 0 || (!enough.empty() && out.find(enough) != std::string::npos)) return out;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left)) <= 0) continue;
    char buffer[4096];
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n <= 0) return out + "<EOF>";
    out.append(buffer, static_cast<std::size_t>(n));
  }
}

// A line to the proxy, as an inline command ("ECHO x"): the echo server answers "got ECHO x".
void say(int fd, const std::string& line) {
  const std::string bytes = line + "\n";
  ASSERT_EQ(::write(fd, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
}

// The run's key is "run:key": every key a command names must contain it.
ProxyRules rules() { return ProxyRules{"run:key"}; }

LinkModel delays(const char* out, const char* in) {
  return {Distribution::parse(out), Distribution::parse(in), 0, Distribution::parse("fixed:0ms")};
}

TEST(ClientProxy, DelaysEachDirectionAsTheLinkModelSays) {
  EchoServer redis;
  ClientProxy proxy(delays("fixed:150ms", "fixed:100ms"), 1, std::make_shared<Upstream>(redis.endpoint()), rules());
  const int fd = connect_to(proxy.address());
  const std::int64_t start = monotonic_ns();
  say(fd, "ECHO ping");
  EXPECT_EQ(read_for(fd, 5000, "\n"), "got ECHO ping\n");
  const std::int64_t round_trip_ms = (monotonic_ns() - start) / kNsPerMs;
  EXPECT_GE(round_trip_ms, 250);   // 150 out + 100 in, never less
  EXPECT_LT(round_trip_ms, 2500);  // and not lost
  ::close(fd);
}

TEST(ClientProxy, ASpikeAddsToEachDirectionsDelayAsInTheModel) {
  EchoServer redis;
  // Every message spikes (--spike-probability 1): 200 ms each way on top of no delay at all.
  ClientProxy proxy({Distribution::parse("fixed:0ms"), Distribution::parse("fixed:0ms"), 1.0, Distribution::parse("fixed:200ms")}, 1,
                    std::make_shared<Upstream>(redis.endpoint()), rules());
  const int fd = connect_to(proxy.address());
  const std::int64_t start = monotonic_ns();
  say(fd, "ECHO ping");
  EXPECT_EQ(read_for(fd, 5000, "\n"), "got ECHO ping\n");
  const std::int64_t round_trip_ms = (monotonic_ns() - start) / kNsPerMs;
  EXPECT_GE(round_trip_ms, 400);
  EXPECT_LT(round_trip_ms, 2500);
  ::close(fd);
}

TEST(ClientProxy, ARedisThatClosesStillDeliversTheRepliesAlreadyQueued) {
  EchoServer redis;
  ClientProxy proxy(delays("fixed:0ms", "fixed:300ms"), 1, std::make_shared<Upstream>(redis.endpoint()), rules());
  const int fd = connect_to(proxy.address());
  say(fd, "ECHO close");  // Redis answers, then closes at once: the answer is still 300 ms away
  EXPECT_EQ(read_for(fd, 5000), "got ECHO close\n<EOF>");
  ::close(fd);
}

TEST(ClientProxy, ACutDropsEveryConnectionAndLosesWhatWasInFlight) {
  EchoServer redis;
  ClientProxy proxy(delays("fixed:0ms", "fixed:500ms"), 1, std::make_shared<Upstream>(redis.endpoint()), rules());
  const int fd = connect_to(proxy.address());
  say(fd, "ECHO lost");
  sleep_ns(100 * kNsPerMs);
  const std::int64_t before = monotonic_ns();
  const std::int64_t landed = proxy.cut();
  EXPECT_GE(landed, before);
  EXPECT_EQ(read_for(fd, 2000), "<EOF>");
  EXPECT_EQ(proxy.stats().cuts, 1u);
  ::close(fd);
  const int again = connect_to(proxy.address());  // a new connection goes through
  say(again, "ECHO back");
  EXPECT_EQ(read_for(again, 5000, "\n"), "got ECHO back\n");
  ::close(again);
}

TEST(ClientProxy, APartitionHoldsBothWaysUntilItEndsAndLosesNothing) {
  EchoServer redis;
  ClientProxy proxy(delays("fixed:0ms", "fixed:0ms"), 1, std::make_shared<Upstream>(redis.endpoint()), rules());
  const int fd = connect_to(proxy.address());
  const std::int64_t until = monotonic_ns() + 400 * kNsPerMs;
  proxy.partition(until);
  say(fd, "ECHO held");
  EXPECT_EQ(read_for(fd, 200), "");  // nothing while it lasts
  EXPECT_EQ(read_for(fd, 5000, "\n"), "got ECHO held\n");
  EXPECT_GE(monotonic_ns(), until);
  ::close(fd);
}

TEST(ClientProxy, HoldingTheOutboundSideDelaysRequestsNotReplies) {
  EchoServer redis;
  ClientProxy proxy(delays("fixed:0ms", "fixed:0ms"), 1, std::make_shared<Upstream>(redis.endpoint()), rules());
  const int fd = connect_to(proxy.address());
  const std::int64_t until = monotonic_ns() + 300 * kNsPerMs;
  proxy.hold_outbound(until);
  say(fd, "ECHO wait");
  EXPECT_EQ(read_for(fd, 5000, "\n"), "got ECHO wait\n");
  EXPECT_GE(monotonic_ns(), until);
  ::close(fd);
}

TEST(ClientProxy, SaysHelloForTheClientAndCountsOnlyTheClientsCommands) {
  EchoServer redis;
  Endpoint e = redis.endpoint();
  e.hello = {{"AUTH", "secret"}};
  ClientProxy proxy(delays("fixed:0ms", "fixed:0ms"), 1, std::make_shared<Upstream>(e), rules());
  const int fd = connect_to(proxy.address());
  say(fd, "ECHO one\nECHO two");
  const std::string got = read_for(fd, 5000, "ECHO two\n");
  EXPECT_EQ(got, "got ECHO one\ngot ECHO two\n");  // the +OK to AUTH never reaches the client
  EXPECT_EQ(redis.received().substr(0, 22), "*2|$4|AUTH|$6|secret|E");
  EXPECT_EQ(proxy.stats().commands, 2u);
  EXPECT_EQ(proxy.stats().connections, 1u);
  ::close(fd);
}

TEST(ClientProxy, ARedisThatCannotBeReachedClosesTheClientsConnection) {
  ClientProxy proxy(delays("fixed:0ms", "fixed:0ms"), 1, std::make_shared<Upstream>(Endpoint{"/nonexistent/redis.sock", "", 0, {}}), rules());
  const int fd = connect_to(proxy.address());
  EXPECT_EQ(read_for(fd, 2000), "<EOF>");
  EXPECT_EQ(proxy.stats().refused, 1u);
  ::close(fd);
}

// ---- the run's own, and only what the run itself would send -----------------------------------

TEST(ClientProxy, RefusesACommandTheRunWouldNotSendAndPassesNothingOfIt) {
  EchoServer redis;
  ClientProxy proxy(delays("fixed:0ms", "fixed:0ms"), 1, std::make_shared<Upstream>(redis.endpoint()), rules());
  const int fd = connect_to(proxy.address());
  say(fd, "ECHO before");
  EXPECT_EQ(read_for(fd, 5000, "\n"), "got ECHO before\n");
  EXPECT_EQ(proxy.refusal(), "");
  const std::string config = resp_command({"CONFIG", "GET", "requirepass"});
  ASSERT_EQ(::write(fd, config.data(), config.size()), static_cast<ssize_t>(config.size()));
  EXPECT_EQ(read_for(fd, 5000), "<EOF>");  // its connection closed
  EXPECT_EQ(redis.received().find("CONFIG"), std::string::npos) << redis.received();
  EXPECT_NE(proxy.refusal().find("CONFIG GET is an admin command (@admin)"), std::string::npos) << proxy.refusal();
  EXPECT_EQ(proxy.stats().refused_commands, 1u);
  EXPECT_EQ(proxy.stats().commands, 1u);  // ECHO
  ::close(fd);
}

TEST(ClientProxy, RefusesAKeyThatDoesNotContainTheRunsKeyAndPassesOneThatDoes) {
  EchoServer redis;
  ClientProxy proxy(delays("fixed:0ms", "fixed:0ms"), 1, std::make_shared<Upstream>(redis.endpoint()), rules());
  const int fd = connect_to(proxy.address());
  say(fd, "SET lib:run:key:1 v");  // a library's own prefix around the run's key
  EXPECT_EQ(read_for(fd, 5000, "\n"), "got SET lib:run:key:1 v\n");
  say(fd, "MSET run:key:a 1 app:y 2");
  EXPECT_EQ(read_for(fd, 5000), "<EOF>");
  EXPECT_EQ(redis.received().find("app:y"), std::string::npos) << redis.received();
  EXPECT_NE(proxy.refusal().find("MSET names the key 'app:y', which is not this run's (each key must contain run:key"),
            std::string::npos)
      << proxy.refusal();
  ::close(fd);
}

TEST(ClientProxy, AStreamThatIsNotRespIsRefused) {
  EchoServer redis;
  ClientProxy proxy(delays("fixed:0ms", "fixed:0ms"), 1, std::make_shared<Upstream>(redis.endpoint()), rules());
  const int fd = connect_to(proxy.address());
  say(fd, "*1\r\n:5");
  EXPECT_EQ(read_for(fd, 5000), "<EOF>");
  EXPECT_NE(proxy.refusal().find("not Redis's protocol"), std::string::npos) << proxy.refusal();
  ::close(fd);
}

// What `command` prints (its stdout), run with sh: a child of this process, and so of the proxy's owner.
std::string output_of(const std::string& command) {
  FILE* pipe = ::popen(command.c_str(), "r");
  std::string out;
  char buffer[256];
  while (pipe && std::fgets(buffer, sizeof buffer, pipe)) out += buffer;
  if (pipe) ::pclose(pipe);
  return out;
}

TEST(ClientProxy, ServesTheOwnersDescendants) {
  EchoServer redis;
  ClientProxy proxy(delays("fixed:0ms", "fixed:0ms"), 1, std::make_shared<Upstream>(redis.endpoint()), rules());
  const std::string port = proxy.address().substr(proxy.address().rfind(':') + 1);
  // sh, then python3: a grandchild.
  EXPECT_EQ(output_of("python3 -c \"import socket; s = socket.create_connection(('127.0.0.1', " + port +
                      ")); s.sendall(b'ECHO child\\n'); print(s.recv(100).decode(), end='')\""),
            "got ECHO child\n");
  EXPECT_EQ(proxy.stats().outsiders, 0u);
  EXPECT_EQ(proxy.stats().connections, 1u);
}

TEST(ClientProxy, ClosesAConnectionFromAnotherProcessAtOnceAndCountsIt) {
  EchoServer redis;
  // The proxy's owner is a child of this process: this process is then none of its descendants,
  // as another user's process is none of semsim's.
  const pid_t owner = ::fork();
  if (owner == 0) {
    ::pause();
    ::_exit(0);
  }
  ASSERT_GT(owner, 0);
  {
    ClientProxy proxy(delays("fixed:0ms", "fixed:0ms"), 1, std::make_shared<Upstream>(redis.endpoint()),
                      ProxyRules{"run:key", owner});
    const int fd = connect_to(proxy.address());
    say(fd, "ECHO outsider");
    EXPECT_EQ(read_for(fd, 5000), "<EOF>");
    EXPECT_EQ(redis.received(), "");  // Redis never saw it: not even the proxy's connection
    EXPECT_EQ(proxy.stats().outsiders, 1u);
    EXPECT_EQ(proxy.stats().connections, 0u);
    EXPECT_EQ(proxy.refusal(), "");  // not the run's failure: it goes on
    ::close(fd);
  }
  ::kill(owner, SIGKILL);
  ::waitpid(owner, nullptr, 0);
}

}  // namespace
}  // namespace semsim
