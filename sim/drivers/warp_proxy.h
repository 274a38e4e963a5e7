// One client's network to one master in warp (a driver in virtual time): the proxy of
// client_proxy.h without a thread or a real delay. The run's loop drives it: between the driver's
// turns collect() reads what the driver sent (whole commands, checked as the real-time proxy
// checks them) and queues each piece to reach Redis after the link's delay; when the run's virtual
// clock reaches an instant something is due, deliver() passes it on. Redis is asked at its instant
// (its clock set first by `before_redis`) and answers at once, in real time; its replies, counted
// one per command, travel back with the inbound delay. FIFO per direction, as on one TCP connection.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/network.h"
#include "sim/drivers/proxy.h"
#include "sim/drivers/resp_stream.h"
#include "sim/drivers/tcp_peer.h"

namespace semsim {

class WarpProxy final : public Proxy {
 public:
  // `now`: the run's virtual clock (ns); `t0`: its true time 0 (delays are drawn in µs of true
  // time, as the simulation's). `before_redis`: sets Redis's clock to now, before each request.
  WarpProxy(LinkModel model, std::uint64_t seed, std::shared_ptr<const Upstream> upstream, ProxyRules rules,
            std::function<std::int64_t()> now, std::int64_t t0, std::function<void()> before_redis);
  ~WarpProxy();
  WarpProxy(const WarpProxy&) = delete;
  WarpProxy& operator=(const WarpProxy&) = delete;

  std::string address() const override;
  std::int64_t cut() override;
  std::int64_t partition(std::int64_t until_ns) override;
  std::int64_t hold_outbound(std::int64_t until_ns) override;
  ProxyStats stats() const override { return stats_; }
  std::string refusal() const override { return refusal_; }

  // Accepts new connections and reads what the driver sent, while it runs; whether anything came.
  bool collect();
  // Once the driver sleeps: what it sent, command by command, on its way to Redis (one delay drawn
  // for each: the draws do not depend on how the driver's writes were cut up or read).
  void take();
  // The earliest instant something is due, either way.
  std::optional<std::int64_t> next_due() const;
  // Passes on one piece that is due now; whether it wrote to the driver (the driver may run).
  // Throws std::runtime_error when Redis does not answer within the real-time limit.
  bool deliver();
  // Whether nothing the driver wrote is still on its way to the proxy (loopback TCP is not
  // synchronous: tcp_peer.h).
  bool quiet();
  // The descriptors to watch while the driver runs (its connections and the listening socket).
  void watch(std::vector<int>& fds) const;

 private:
  struct Piece {
    std::int64_t due_ns;
    std::string bytes;
    int replies = 0;     // outbound: the commands in it, each with one reply to wait for
    bool close = false;  // inbound: the connection ends here (Redis went away)
  };
  struct Conn {
    int down = -1, up = -1;  // the driver's side, Redis's side
    CommandReader reader;
    std::string sent;  // read from the driver, not yet taken
    std::deque<Piece> out, in;
    bool driver_done = false;  // the driver closed its side
  };

  std::int64_t gate(bool outbound) const;
  std::int64_t due(const Conn& c, bool outbound) const;
  void accept_all();
  bool read_driver(Conn& c);
  bool connect_up(Conn& c);
  void to_redis(Conn& c);
  void look_at_redis(Conn& c);
  void queue_in(Conn& c, std::string bytes, bool close);
  void close_conn(Conn& c);
  bool landed(int fd);
  void refuse(Conn& c, const std::string& why);

  ClientNetwork network_;
  std::shared_ptr<const Upstream> upstream_;
  const ProxyRules rules_;
  std::function<std::int64_t()> now_;
  std::int64_t t0_;
  std::function<void()> before_redis_;
  int listen_fd_ = -1, port_ = 0;
  std::list<Conn> conns_;
  std::int64_t partition_until_ = 0, hold_out_until_ = 0;
  ProxyStats stats_;
  std::string refusal_;
  TcpPeer tcp_;
};

}  // namespace semsim
