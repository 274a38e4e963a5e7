// One client's network, for real processes: a TCP proxy on 127.0.0.1 inside semsim, between the
// driver and Redis, on a thread of its own. It delays every piece of data per direction as the
// client's link model says (delay, spikes; FIFO per direction, as on one TCP connection), and
// carries the faults a network makes: a cut (every connection drops), a partition (nothing passes
// either way for a while; what was sent waits, as TCP would retransmit it), and Redis pausing
// (requests reaching it wait). When one side closes, what is already queued toward the other is
// still delivered before the proxy half-closes that side: a reply in the delay queue is not lost.
// No privileges needed (tc netem is neither present nor allowed in CI containers).
//
// It serves the run alone (docs/drivers.md, what a driver may send): a connection from a process
// that is neither semsim nor one of its descendants is closed at once, before Redis is reached,
// and counted; and each command is passed on only once it is whole and allowed: one the run
// itself would not send (algorithms/api/command_policy.h), or that names a key not containing the
// run's key (SEMSIM_KEY, which libraries may wrap in prefixes of their own), closes that
// connection, and refusal() says what it was, for the run to end on.
#pragma once

#include <sys/types.h>
#include <unistd.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "sim/core/network.h"

namespace semsim {

// Where Redis is, as a proxy connects to it: a unix socket or a TCP address, and the commands the
// proxy sends first on every new connection (AUTH, SELECT), whose replies it swallows.
struct Endpoint {
  std::string unix_path;
  std::string host;
  int port = 0;
  std::vector<std::vector<std::string>> hello;
  std::string describe() const;
};

// The endpoint proxies connect to, which a failover changes (set on the run's thread, read on
// the proxies').
class Upstream {
 public:
  explicit Upstream(Endpoint endpoint) : endpoint_(std::move(endpoint)) {}
  void set(Endpoint endpoint);
  Endpoint get() const;

 private:
  mutable std::mutex lock_;
  Endpoint endpoint_;
};

// Who may use a proxy and what it may send there.
struct ProxyRules {
  std::string run_key;       // every key a command names must contain it (SEMSIM_KEY)
  pid_t owner = ::getpid();  // connections only from this process and its descendants
};

struct ProxyStats {
  std::uint64_t commands = 0;     // Redis commands the client sent (RESP) and the proxy passed on, its own excluded
  std::uint64_t connections = 0;  // connections the client opened
  std::uint64_t outsiders = 0;    // connections from another process than the run's, closed at once (not in `connections`)
  std::uint64_t refused_commands = 0;  // commands not passed on (each closed its connection)
  std::uint64_t refused = 0;      // of which Redis could not be reached (the client saw it closed)
  std::uint64_t cuts = 0;         // connections dropped by a cut
  std::int64_t late_max_ns = 0;   // the most a piece of data left after its due instant (load)
};

class ClientProxy {
 public:
  // Listens on 127.0.0.1 (a free port) and starts its thread. `seed`: the client's network stream.
  ClientProxy(LinkModel model, std::uint64_t seed, std::shared_ptr<const Upstream> upstream, ProxyRules rules);
  ~ClientProxy();
  ClientProxy(const ClientProxy&) = delete;
  ClientProxy& operator=(const ClientProxy&) = delete;

  // host:port for the driver (SEMSIM_REDIS).
  std::string address() const;
  // Faults. Each returns once the proxy's thread has applied it, with the CLOCK_MONOTONIC instant
  // (ns) it did: the instant the fault landed.
  std::int64_t cut();                          // every connection drops now; data in flight is lost
  std::int64_t partition(std::int64_t until_ns);  // nothing passes either way before then
  std::int64_t hold_outbound(std::int64_t until_ns);  // nothing reaches Redis before then
  ProxyStats stats() const;
  // The first command refused, and why ("the driver sent CONFIG GET, ..."); "" while none was.
  std::string refusal() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace semsim
