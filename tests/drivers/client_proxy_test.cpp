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

#include <atomic>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>

#include "sim/drivers/client_proxy.h"
#include "sim/drivers/real_clock.h"

namespace semsim {
namespace {

// A stand-in for Redis: answers each line "X\n" with "got X\n"; "close" makes it answer, then close.
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
          closing |= line == "close";
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

LinkModel delays(const char* out, const char* in) {
  return {Distribution::parse(out), Distribution::parse(in), 0, Distribution::parse("fixed:0ms")};
}

TEST(ClientProxy, DelaysEachDirectionAsTheLinkModelSays) {
  EchoServer redis;
  ClientProxy proxy(delays("fixed:150ms", "fixed:100ms"), 1, std::make_shared<Upstream>(redis.endpoint()));
  const int fd = connect_to(proxy.address());
  const std::int64_t start = monotonic_ns();
  ::write(fd, "ping\n", 5);
  EXPECT_EQ(read_for(fd, 5000, "\n"), "got ping\n");
  const std::int64_t round_trip_ms = (monotonic_ns() - start) / kNsPerMs;
  EXPECT_GE(round_trip_ms, 250);   // 150 out + 100 in, never less
  EXPECT_LT(round_trip_ms, 2500);  // and not lost
  ::close(fd);
}

TEST(ClientProxy, ASpikeAddsToEachDirectionsDelayAsInTheModel) {
  EchoServer redis;
  // Every message spikes (--spike-probability 1): 200 ms each way on top of no delay at all.
  ClientProxy proxy({Distribution::parse("fixed:0ms"), Distribution::parse("fixed:0ms"), 1.0, Distribution::parse("fixed:200ms")}, 1,
                    std::make_shared<Upstream>(redis.endpoint()));
  const int fd = connect_to(proxy.address());
  const std::int64_t start = monotonic_ns();
  ::write(fd, "ping\n", 5);
  EXPECT_EQ(read_for(fd, 5000, "\n"), "got ping\n");
  const std::int64_t round_trip_ms = (monotonic_ns() - start) / kNsPerMs;
  EXPECT_GE(round_trip_ms, 400);
  EXPECT_LT(round_trip_ms, 2500);
  ::close(fd);
}

TEST(ClientProxy, ARedisThatClosesStillDeliversTheRepliesAlreadyQueued) {
  EchoServer redis;
  ClientProxy proxy(delays("fixed:0ms", "fixed:300ms"), 1, std::make_shared<Upstream>(redis.endpoint()));
  const int fd = connect_to(proxy.address());
  ::write(fd, "close\n", 6);  // Redis answers, then closes at once: the answer is still 300 ms away
  EXPECT_EQ(read_for(fd, 5000), "got close\n<EOF>");
  ::close(fd);
}

TEST(ClientProxy, ACutDropsEveryConnectionAndLosesWhatWasInFlight) {
  EchoServer redis;
  ClientProxy proxy(delays("fixed:0ms", "fixed:500ms"), 1, std::make_shared<Upstream>(redis.endpoint()));
  const int fd = connect_to(proxy.address());
  ::write(fd, "lost\n", 5);
  sleep_ns(100 * kNsPerMs);
  const std::int64_t before = monotonic_ns();
  const std::int64_t landed = proxy.cut();
  EXPECT_GE(landed, before);
  EXPECT_EQ(read_for(fd, 2000), "<EOF>");
  EXPECT_EQ(proxy.stats().cuts, 1u);
  ::close(fd);
  const int again = connect_to(proxy.address());  // a new connection goes through
  ::write(again, "back\n", 5);
  EXPECT_EQ(read_for(again, 5000, "\n"), "got back\n");
  ::close(again);
}

TEST(ClientProxy, APartitionHoldsBothWaysUntilItEndsAndLosesNothing) {
  EchoServer redis;
  ClientProxy proxy(delays("fixed:0ms", "fixed:0ms"), 1, std::make_shared<Upstream>(redis.endpoint()));
  const int fd = connect_to(proxy.address());
  const std::int64_t until = monotonic_ns() + 400 * kNsPerMs;
  proxy.partition(until);
  ::write(fd, "held\n", 5);
  EXPECT_EQ(read_for(fd, 200), "");  // nothing while it lasts
  EXPECT_EQ(read_for(fd, 5000, "\n"), "got held\n");
  EXPECT_GE(monotonic_ns(), until);
  ::close(fd);
}

TEST(ClientProxy, HoldingTheOutboundSideDelaysRequestsNotReplies) {
  EchoServer redis;
  ClientProxy proxy(delays("fixed:0ms", "fixed:0ms"), 1, std::make_shared<Upstream>(redis.endpoint()));
  const int fd = connect_to(proxy.address());
  const std::int64_t until = monotonic_ns() + 300 * kNsPerMs;
  proxy.hold_outbound(until);
  ::write(fd, "wait\n", 5);
  EXPECT_EQ(read_for(fd, 5000, "\n"), "got wait\n");
  EXPECT_GE(monotonic_ns(), until);
  ::close(fd);
}

TEST(ClientProxy, SaysHelloForTheClientAndCountsOnlyTheClientsCommands) {
  EchoServer redis;
  Endpoint e = redis.endpoint();
  e.hello = {{"AUTH", "secret"}};
  ClientProxy proxy(delays("fixed:0ms", "fixed:0ms"), 1, std::make_shared<Upstream>(e));
  const int fd = connect_to(proxy.address());
  ::write(fd, "one\ntwo\n", 8);
  const std::string got = read_for(fd, 5000, "two\n");
  EXPECT_EQ(got, "got one\ngot two\n");  // the +OK to AUTH never reaches the client
  EXPECT_EQ(redis.received().substr(0, 22), "*2|$4|AUTH|$6|secret|o");
  EXPECT_EQ(proxy.stats().commands, 2u);
  EXPECT_EQ(proxy.stats().connections, 1u);
  ::close(fd);
}

TEST(ClientProxy, ARedisThatCannotBeReachedClosesTheClientsConnection) {
  ClientProxy proxy(delays("fixed:0ms", "fixed:0ms"), 1, std::make_shared<Upstream>(Endpoint{"/nonexistent/redis.sock", "", 0, {}}));
  const int fd = connect_to(proxy.address());
  EXPECT_EQ(read_for(fd, 2000), "<EOF>");
  EXPECT_EQ(proxy.stats().refused, 1u);
  ::close(fd);
}

}  // namespace
}  // namespace semsim
