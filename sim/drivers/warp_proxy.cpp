#include "sim/drivers/warp_proxy.h"

#include <poll.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "algorithms/api/resp_command.h"
#include "sim/drivers/real_clock.h"

namespace semsim {

namespace {

// How long Redis may take to answer a request, in real time: it runs each at once.
constexpr int kRedisAnswerMs = 10'000;

// Writes all of `bytes` to `fd` (waiting for room at most `limit_ms` in all); false if it failed.
bool send_all(int fd, std::string_view bytes, int limit_ms) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      bytes.remove_prefix(static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN) return false;
    pollfd p{fd, POLLOUT, 0};
    if (::poll(&p, 1, limit_ms) <= 0) return false;
  }
  return true;
}

}  // namespace

WarpProxy::WarpProxy(LinkModel model, std::uint64_t seed, std::shared_ptr<const Upstream> upstream, ProxyRules rules,
                     std::function<std::int64_t()> now, std::int64_t t0, std::function<void()> before_redis)
    : network_(std::move(model), seed),
      upstream_(std::move(upstream)),
      rules_(std::move(rules)),
      now_(std::move(now)),
      t0_(t0),
      before_redis_(std::move(before_redis)) {
  listen_fd_ = listen_on_loopback(port_);
}

WarpProxy::~WarpProxy() {
  for (Conn& c : conns_) close_conn(c);
  ::close(listen_fd_);
}

std::string WarpProxy::address() const { return "127.0.0.1:" + std::to_string(port_); }

std::int64_t WarpProxy::cut() {
  for (Conn& c : conns_) {
    close_conn(c);
    ++stats_.cuts;
  }
  conns_.clear();
  return now_();
}

std::int64_t WarpProxy::partition(std::int64_t until_ns) {
  partition_until_ = std::max(partition_until_, until_ns);
  return now_();
}

std::int64_t WarpProxy::hold_outbound(std::int64_t until_ns) {
  hold_out_until_ = std::max(hold_out_until_, until_ns);
  return now_();
}

std::int64_t WarpProxy::gate(bool outbound) const {
  return outbound ? std::max(partition_until_, hold_out_until_) : partition_until_;
}

std::int64_t WarpProxy::due(const Conn& c, bool outbound) const {
  const std::deque<Piece>& q = outbound ? c.out : c.in;
  return q.empty() ? INT64_MAX : std::max(q.front().due_ns, gate(outbound));
}

std::optional<std::int64_t> WarpProxy::next_due() const {
  std::int64_t next = INT64_MAX;
  for (const Conn& c : conns_) next = std::min({next, due(c, true), due(c, false)});
  if (next == INT64_MAX) return std::nullopt;
  return next;
}

void WarpProxy::watch(std::vector<int>& fds) const {
  fds.push_back(listen_fd_);
  for (const Conn& c : conns_)
    if (c.down >= 0 && !c.driver_done) fds.push_back(c.down);
}

// Whether what semsim wrote to the driver on `fd` has reached the driver's socket (its wait then
// woken), by its TCP counters; on a loaded machine the segment may sit a while with a softirq thread.
bool WarpProxy::landed(int fd) {
  const std::int64_t limit = monotonic_ns() + std::int64_t{kRedisAnswerMs} * kNsPerMs;
  for (;;) {
    const auto ours = TcpPeer::own(fd);
    const auto theirs = tcp_.peer(fd);
    if (!ours || !theirs || theirs->received >= ours->written) return true;  // unknown: the driver closed
    if (monotonic_ns() > limit) return false;
    ::sched_yield();
  }
}

bool WarpProxy::quiet() {
  for (const Conn& c : conns_) {
    if (c.down < 0 || c.driver_done) continue;
    const auto ours = TcpPeer::own(c.down);
    const auto theirs = tcp_.peer(c.down);
    if (ours && theirs && theirs->written > ours->received) return false;
  }
  return true;
}

bool WarpProxy::collect() {
  const std::size_t before = conns_.size();
  accept_all();
  bool came = conns_.size() != before;
  for (Conn& c : conns_) came |= read_driver(c);
  return came;
}

void WarpProxy::take() {
  for (Conn& c : conns_) {
    if (c.down < 0 || c.sent.empty()) continue;
    std::vector<WireCommand> commands;
    const bool readable = c.reader.feed(std::exchange(c.sent, {}), commands);
    for (WireCommand& command : commands) {
      if (const std::string why = refused_command(command.words, rules_.run_key); !why.empty()) {
        refuse(c, why);
        break;
      }
      ++stats_.commands;
      const TrueTime sent{Micros((now_() - t0_) / kNsPerUs)};
      const TrueTime arrives = network_.outbound(sent);
      c.out.push_back({t0_ + arrives.time_since_epoch().count() * kNsPerUs, std::move(command.bytes), 1});
    }
    if (c.down >= 0 && !readable) refuse(c, "a stream that is not Redis's protocol (" + c.reader.error() + ")");
  }
  for (Conn& c : conns_) look_at_redis(c);
  // A connection the driver closed ends once what it sent has reached Redis.
  std::erase_if(conns_, [this](Conn& c) {
    const bool over = c.down < 0 || (c.driver_done && c.out.empty());
    if (over) close_conn(c);
    return over;
  });
}

void WarpProxy::accept_all() {
  for (;;) {
    const int down = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (down < 0) return;
    const std::optional<bool> ours = from_the_run(down, rules_.owner);
    if (ours != true) {
      if (ours) ++stats_.outsiders;
      ::close(down);
      continue;
    }
    ++stats_.connections;
    conns_.emplace_back().down = down;
  }
}

bool WarpProxy::read_driver(Conn& c) {
  char buffer[65536];
  bool came = false;
  while (c.down >= 0 && !c.driver_done) {
    const ssize_t n = ::recv(c.down, buffer, sizeof buffer, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return came;
    if (n <= 0) {
      c.driver_done = true;
      return true;
    }
    c.sent.append(buffer, static_cast<std::size_t>(n));
    came = true;
  }
  return came;
}

void WarpProxy::refuse(Conn& c, const std::string& why) {
  ++stats_.refused_commands;
  if (refusal_.empty()) refusal_ = refusal_message(why);
  close_conn(c);
}

void WarpProxy::close_conn(Conn& c) {
  if (c.down >= 0) ::close(c.down);
  if (c.up >= 0) ::close(c.up);
  c.down = c.up = -1;
  c.out.clear();
  c.in.clear();
}

void WarpProxy::queue_in(Conn& c, std::string bytes, bool close) {
  const TrueTime sent{Micros((now_() - t0_) / kNsPerUs)};
  const TrueTime arrives = network_.inbound(sent);
  c.in.push_back({t0_ + arrives.time_since_epoch().count() * kNsPerUs, std::move(bytes), 0, close});
}

// Redis's side of a connection, made when its first request is due (Redis down: the driver sees
// its connection closed, after the inbound delay).
bool WarpProxy::connect_up(Conn& c) {
  if (c.up >= 0) return true;
  const Endpoint where = upstream_->get();
  c.up = connect_to(where);
  if (c.up < 0) {
    ++stats_.refused;
    return false;
  }
  if (where.hello.empty()) return true;
  std::string hello;
  for (const auto& words : where.hello) hello += resp_command(words);
  int left = static_cast<int>(where.hello.size());
  std::string replies, error;
  if (send_all(c.up, hello, kRedisAnswerMs)) {
    char buffer[4096];
    while (left > 0 && error.empty()) {
      pollfd p{c.up, POLLIN, 0};
      if (::poll(&p, 1, kRedisAnswerMs) <= 0) break;
      const ssize_t n = ::recv(c.up, buffer, sizeof buffer, 0);
      if (n <= 0) break;
      replies.append(buffer, static_cast<std::size_t>(n));
      replies.erase(0, swallow_replies(replies, left, error));
    }
  }
  if (left == 0 && error.empty()) return true;
  ::close(c.up);
  c.up = -1;
  return false;
}

// A request reaches Redis: asked at its instant, answered at once; the replies go back.
void WarpProxy::to_redis(Conn& c) {
  Piece piece = std::move(c.out.front());
  c.out.pop_front();
  if (!connect_up(c)) {
    c.out.clear();
    queue_in(c, {}, true);
    return;
  }
  before_redis_();
  std::string replies;
  int left = piece.replies;
  std::size_t whole = 0;
  bool broken = !send_all(c.up, piece.bytes, kRedisAnswerMs);
  const std::int64_t limit = monotonic_ns() + std::int64_t{kRedisAnswerMs} * kNsPerMs;
  char buffer[65536];
  while (!broken && left > 0) {
    pollfd p{c.up, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(std::max<std::int64_t>(0, (limit - monotonic_ns()) / kNsPerMs)));
    if (ready == 0)
      throw std::runtime_error("Redis did not answer " + std::to_string(left) + " request(s) within " +
                               std::to_string(kRedisAnswerMs / 1000) + " s of real time");
    const ssize_t n = ready < 0 ? -1 : ::recv(c.up, buffer, sizeof buffer, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      broken = true;
      break;
    }
    replies.append(buffer, static_cast<std::size_t>(n));
    for (std::size_t size; left > 0 && (size = reply_size(std::string_view(replies).substr(whole))) > 0;) {
      whole += size;
      --left;
    }
  }
  if (!replies.empty()) queue_in(c, std::move(replies), false);
  if (broken) {  // Redis went away (a restart, a failover): the driver sees its connection end
    ::close(c.up);
    c.up = -1;
    c.out.clear();
    queue_in(c, {}, true);
  }
}

// Between requests Redis says nothing, unless it goes away (or pushes a message): passed back too.
void WarpProxy::look_at_redis(Conn& c) {
  if (c.up < 0) return;
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::recv(c.up, buffer, sizeof buffer, MSG_DONTWAIT);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return;
    if (n > 0) {
      queue_in(c, std::string(buffer, static_cast<std::size_t>(n)), false);
      continue;
    }
    ::close(c.up);
    c.up = -1;
    queue_in(c, {}, true);
    return;
  }
}

bool WarpProxy::deliver() {
  const std::int64_t now = now_();
  for (Conn& c : conns_) {
    if (due(c, true) <= now) {
      to_redis(c);
      return false;
    }
    if (due(c, false) <= now) {
      const Piece piece = std::move(c.in.front());
      c.in.pop_front();
      if (c.down < 0) return false;
      if (!piece.bytes.empty() && !send_all(c.down, piece.bytes, kRedisAnswerMs)) c.driver_done = true;
      if (c.driver_done || !landed(c.down)) return true;
      if (piece.close) {
        ::shutdown(c.down, SHUT_RDWR);
        c.driver_done = true;
      }
      return true;
    }
  }
  return false;
}

}  // namespace semsim
