#include "sim/drivers/client_proxy.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <functional>
#include <list>
#include <optional>
#include <stdexcept>
#include <thread>

#include "algorithms/api/command_policy.h"
#include "algorithms/api/resp_command.h"
#include "sim/drivers/peer_process.h"
#include "sim/drivers/real_clock.h"
#include "sim/drivers/resp_stream.h"

namespace semsim {

namespace {

constexpr std::size_t kQueueLimit = 4 << 20;  // stop reading a side whose data waits beyond this

void set_nonblocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

void no_delay(int fd) {
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);  // fails harmlessly on a unix socket
}

struct Chunk {
  std::int64_t due_ns;
  std::string bytes;
  std::size_t sent = 0;
};

// One direction of one connection: data read from `from`, written to `to` when due.
struct Direction {
  bool outbound = false;  // client -> Redis
  std::deque<Chunk> queue;
  std::size_t queued = 0;
  bool source_done = false;  // `from` said end of file (or failed)
  bool finished = false;     // `to` half-closed after the queue drained (or failed)
  bool blocked = false;      // `to` took no more: wait until it is writable
};

struct Conn {
  int down = -1, up = -1;  // the driver's side, Redis's side
  Direction out, in;
  int hello_left = 0;      // replies to the proxy's own commands still to swallow
  std::string hello_bytes;
  CommandReader reader;     // the driver's commands, each checked before it is passed on
  Conn() { out.outbound = true; }
  int from(const Direction& d) const { return d.outbound ? down : up; }
  int to(const Direction& d) const { return d.outbound ? up : down; }
};

}  // namespace

struct ClientProxy::Impl {
  Impl(LinkModel model, std::uint64_t seed, std::shared_ptr<const Upstream> up, ProxyRules r)
      : network(std::move(model), seed), upstream(std::move(up)), rules(std::move(r)) {}

  enum class Fault { cut, partition, hold };
  struct Request {
    Fault fault;
    std::int64_t until_ns = 0;
    std::int64_t landed_ns = -1;  // set by the proxy's thread
  };

  ClientNetwork network;  // the proxy thread's only
  std::shared_ptr<const Upstream> upstream;
  const ProxyRules rules;
  int listen_fd = -1, wake_fd = -1, port = 0;
  std::thread thread;

  mutable std::mutex lock;  // guards what follows
  std::condition_variable applied;
  std::list<Request*> requests;
  bool stopping = false;
  ProxyStats stats;
  std::string refusal;  // the first command refused, said

  // The proxy thread's own state.
  std::list<Conn> conns;
  std::int64_t partition_until = 0, hold_until = 0;
  ScriptScreen scripts;  // rules.read_scripts: what the driver's scripts may do

  std::int64_t gate(const Direction& d) const {
    return d.outbound ? std::max(partition_until, hold_until) : partition_until;
  }

  std::int64_t request(Fault fault, std::int64_t until_ns) {
    Request r{fault, until_ns};
    std::unique_lock<std::mutex> hold(lock);
    requests.push_back(&r);
    const std::uint64_t one = 1;
    [[maybe_unused]] const ssize_t w = ::write(wake_fd, &one, sizeof one);
    applied.wait(hold, [&] { return r.landed_ns >= 0; });
    return r.landed_ns;
  }

  void close_conn(Conn& c) {
    if (c.down >= 0) ::close(c.down);
    if (c.up >= 0) ::close(c.up);
    c.down = c.up = -1;
  }

  void apply_requests() {
    const std::lock_guard<std::mutex> hold(lock);
    for (Request* r : requests) {
      switch (r->fault) {
        case Fault::cut:
          for (Conn& c : conns) {
            close_conn(c);
            ++stats.cuts;
          }
          break;
        case Fault::partition: partition_until = std::max(partition_until, r->until_ns); break;
        case Fault::hold: hold_until = std::max(hold_until, r->until_ns); break;
      }
      r->landed_ns = monotonic_ns();
    }
    if (!requests.empty()) applied.notify_all();
    requests.clear();
  }

  void accept_all() {
    for (;;) {
      const int down = ::accept4(listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (down < 0) return;
      if (!ours(down)) continue;
      no_delay(down);
      const Endpoint where = upstream->get();
      const int up = connect_to(where);
      const std::lock_guard<std::mutex> hold(lock);
      ++stats.connections;
      if (up < 0) {
        ++stats.refused;
        ::close(down);  // as Redis down would look: the client sees the connection closed
        continue;
      }
      Conn& c = conns.emplace_back();
      c.down = down;
      c.up = up;
      std::string hello;
      for (const auto& words : where.hello) hello += resp_command(words);
      if (!hello.empty() && ::send(up, hello.data(), hello.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(hello.size()))
        c.hello_left = static_cast<int>(where.hello.size());
      else if (!hello.empty())
        close_conn(c);
      set_nonblocking(up);
    }
  }

  // Whether the connection `down` comes from the run (semsim or a process it started); else it is
  // closed before Redis is reached, and counted. One the peer already closed is closed too, uncounted.
  bool ours(int down) {
    std::optional<bool> run;
    try {
      run = from_the_run(down, rules.owner);
    } catch (const std::exception&) {  // out of memory, say: nothing on this thread may throw
      ::close(down);                   // unknown, so not served, nor counted as an outsider
      return false;
    }
    if (run == true) return true;
    if (run) {  // counted before it is closed: whoever sees it closed sees it counted
      const std::lock_guard<std::mutex> hold(lock);
      ++stats.outsiders;
    }
    ::close(down);
    return false;
  }

  std::string refused(const std::vector<std::string>& words) const { return refused_command(words, rules.run_key); }

  void refuse(Conn& c, const std::string& why) {
    {  // said before it is closed: whoever sees it closed sees why
      const std::lock_guard<std::mutex> hold(lock);
      ++stats.refused_commands;
      if (refusal.empty()) refusal = refusal_message(why);
    }
    close_conn(c);
  }

  // Reads what `from` has; queues it toward the other side with its delay.
  void read_side(Conn& c, Direction& d) {
    char buffer[65536];
    for (;;) {
      const int fd = c.from(d);
      if (fd < 0) return;
      const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && errno == EAGAIN) return;
      if (n <= 0) {
        d.source_done = true;
        return;
      }
      std::string_view data(buffer, static_cast<std::size_t>(n));
      if (!d.outbound && c.hello_left > 0) {
        c.hello_bytes.append(data);
        std::string error;
        const std::size_t used = swallow_replies(c.hello_bytes, c.hello_left, error);
        if (!error.empty()) {
          close_conn(c);  // AUTH or SELECT refused: the driver sees the connection closed
          return;
        }
        c.hello_bytes.erase(0, used);
        if (c.hello_left > 0) continue;
        data = c.hello_bytes;
      }
      if (data.empty()) continue;
      std::string passed;  // outbound: the whole commands allowed, and nothing else
      if (d.outbound) {
        std::vector<WireCommand> commands;
        const bool readable = c.reader.feed(data, commands);
        for (WireCommand& command : commands) {
          if (const std::string why = refused(command.words); !why.empty()) return refuse(c, why);
          if (rules.read_scripts)
            if (const std::string why = scripts.screen(command.words, command.bytes); !why.empty()) return refuse(c, why);
          passed += command.bytes;
        }
        if (!readable) return refuse(c, "a stream that is not Redis's protocol (" + c.reader.error() + ")");
        {
          const std::lock_guard<std::mutex> hold(lock);
          stats.commands += commands.size();
        }
        if (passed.empty()) continue;  // the rest of a command is still to come
        data = passed;
      }
      const std::int64_t now = monotonic_ns();
      const TrueTime sent{Micros(now / kNsPerUs)};
      const TrueTime due = d.outbound ? network.outbound(sent) : network.inbound(sent);
      d.queue.push_back({due.time_since_epoch().count() * kNsPerUs, std::string(data)});
      d.queued += data.size();
      c.hello_bytes.clear();
      if (d.queued > kQueueLimit) return;
    }
  }

  // Writes what is due toward `to`; half-closes it once the source is done and the queue empty.
  void write_side(Conn& c, Direction& d, std::int64_t now) {
    d.blocked = false;
    const int fd = c.to(d);
    if (fd < 0 || d.finished) return;
    while (!d.queue.empty()) {
      Chunk& chunk = d.queue.front();
      const std::int64_t due = std::max(chunk.due_ns, gate(d));
      if (due > now) return;
      if (chunk.sent == 0) {
        const std::lock_guard<std::mutex> hold(lock);
        stats.late_max_ns = std::max(stats.late_max_ns, now - due);
      }
      const ssize_t n = ::send(fd, chunk.bytes.data() + chunk.sent, chunk.bytes.size() - chunk.sent, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && errno == EAGAIN) {
        d.blocked = true;
        return;
      }
      if (n < 0) {  // the other side is gone: nothing more goes there
        d.queue.clear();
        d.queued = 0;
        d.finished = true;
        return;
      }
      chunk.sent += static_cast<std::size_t>(n);
      if (chunk.sent == chunk.bytes.size()) {
        d.queued -= chunk.bytes.size();
        d.queue.pop_front();
      }
    }
    if (d.source_done) {
      ::shutdown(fd, SHUT_WR);
      d.finished = true;
    }
  }

  std::int64_t next_due() const {
    std::int64_t next = INT64_MAX;
    for (const Conn& c : conns)
      for (const Direction* d : {&c.out, &c.in})
        if (!d->queue.empty() && !d->blocked && !d->finished)
          next = std::min(next, std::max(d->queue.front().due_ns, gate(*d)));
    return next;
  }

  void loop() {
    std::vector<pollfd> fds;
    std::vector<std::pair<Conn*, Direction*>> readers;  // who reads which fd
    for (;;) {
      {
        const std::lock_guard<std::mutex> hold(lock);
        if (stopping) return;
      }
      apply_requests();
      const std::int64_t now = monotonic_ns();
      for (Conn& c : conns) {
        write_side(c, c.out, now);
        write_side(c, c.in, now);
      }
      for (auto it = conns.begin(); it != conns.end();) {
        const bool done = it->down < 0 || (it->out.finished && it->in.finished);
        if (done) {
          close_conn(*it);
          it = conns.erase(it);
        } else {
          ++it;
        }
      }
      fds.assign({{wake_fd, POLLIN, 0}, {listen_fd, POLLIN, 0}});
      readers.clear();
      for (Conn& c : conns) {
        for (Direction* d : {&c.out, &c.in}) {
          short events = 0;
          if (!d->source_done && d->queued <= kQueueLimit) events |= POLLIN;
          if (events) {
            fds.push_back({c.from(*d), events, 0});
            readers.emplace_back(&c, d);
          }
          if (d->blocked) fds.push_back({c.to(*d), POLLOUT, 0});
        }
      }
      const std::int64_t due = next_due();
      timespec wait{0, 100'000'000};  // at most 100 ms between looks at the requests
      if (due != INT64_MAX) {
        const std::int64_t left = std::clamp<std::int64_t>(due - monotonic_ns(), 0, 100'000'000);
        wait = {0, static_cast<long>(left)};
      }
      const int ready = ::ppoll(fds.data(), fds.size(), &wait, nullptr);
      if (ready <= 0) continue;
      if (fds[0].revents) {
        std::uint64_t count = 0;
        [[maybe_unused]] const ssize_t r = ::read(wake_fd, &count, sizeof count);
      }
      if (fds[1].revents & POLLIN) accept_all();
      for (const pollfd& p : fds) {
        if (p.fd == wake_fd || p.fd == listen_fd || !(p.revents & (POLLIN | POLLHUP | POLLERR))) continue;
        for (auto& [c, d] : readers)
          if (c->down >= 0 && c->from(*d) == p.fd) read_side(*c, *d);
      }
    }
  }
};

ClientProxy::ClientProxy(LinkModel model, std::uint64_t seed, std::shared_ptr<const Upstream> upstream, ProxyRules rules)
    : impl_(std::make_unique<Impl>(std::move(model), seed, std::move(upstream), std::move(rules))) {
  Impl& p = *impl_;
  p.listen_fd = listen_on_loopback(p.port);
  p.wake_fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  p.thread = std::thread([&p] { p.loop(); });
}

ClientProxy::~ClientProxy() {
  Impl& p = *impl_;
  {
    const std::lock_guard<std::mutex> hold(p.lock);
    p.stopping = true;
  }
  const std::uint64_t one = 1;
  [[maybe_unused]] const ssize_t w = ::write(p.wake_fd, &one, sizeof one);
  p.thread.join();
  for (Conn& c : p.conns) p.close_conn(c);
  ::close(p.listen_fd);
  ::close(p.wake_fd);
}

std::string ClientProxy::address() const { return "127.0.0.1:" + std::to_string(impl_->port); }

std::int64_t ClientProxy::cut() { return impl_->request(Impl::Fault::cut, 0); }
std::int64_t ClientProxy::partition(std::int64_t until_ns) { return impl_->request(Impl::Fault::partition, until_ns); }
std::int64_t ClientProxy::hold_outbound(std::int64_t until_ns) { return impl_->request(Impl::Fault::hold, until_ns); }

ProxyStats ClientProxy::stats() const {
  const std::lock_guard<std::mutex> hold(impl_->lock);
  return impl_->stats;
}

std::string ClientProxy::refusal() const {
  const std::lock_guard<std::mutex> hold(impl_->lock);
  return impl_->refusal;
}

}  // namespace semsim
