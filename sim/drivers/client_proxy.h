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
#include "sim/drivers/proxy.h"

namespace semsim {

class ClientProxy final : public Proxy {
 public:
  // Listens on 127.0.0.1 (a free port) and starts its thread. `seed`: the client's network stream.
  ClientProxy(LinkModel model, std::uint64_t seed, std::shared_ptr<const Upstream> upstream, ProxyRules rules);
  ~ClientProxy();
  ClientProxy(const ClientProxy&) = delete;
  ClientProxy& operator=(const ClientProxy&) = delete;

  // host:port for the driver (SEMSIM_REDIS).
  std::string address() const override;
  // Faults. Each returns once the proxy's thread has applied it, with the CLOCK_MONOTONIC instant
  // (ns) it did: the instant the fault landed.
  std::int64_t cut() override;                          // every connection drops now; data in flight is lost
  std::int64_t partition(std::int64_t until_ns) override;  // nothing passes either way before then
  std::int64_t hold_outbound(std::int64_t until_ns) override;  // nothing reaches Redis before then
  ProxyStats stats() const override;
  // The first command refused, and why ("the driver sent CONFIG GET, ..."); "" while none was.
  std::string refusal() const override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace semsim
