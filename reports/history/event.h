// One row of history.csv: what happened, when (true time and the client's own clock), to whom.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace semsim {

// sample: what Redis held, compared with what clients believed (detail: admitted= believers= stale=).
// done: the client wants no more permits (its script has no further acquire); it stops waiting.
// server_jump: Redis's clock jumped (client 0, detail by_us=): a fault, not a client's event.
// Server faults, on client 0 (reports/DEFINITIONS.md): redis_restart, failover, disconnect and
// redis_pause; a fault that lost writes says since when in its detail (lost_since_us=).
// lease: what Redis held of a grant's permit (lease honesty, phase info, on the holder's client;
// detail at=grant|refresh|release and ttl_ms= or admitted=).
// partition / heal: a client's links to some masters are cut / whole again (detail masters=).
enum class Op {
  run, acquire, release, refresh, crash, pause, resume, jump, sample, done, server_jump,
  redis_restart, failover, disconnect, redis_pause, lease, partition, heal
};
// Whether the op is a fault of Redis itself (the server_faults column counts them).
bool is_server_fault(Op op);
enum class Phase { invoke, ok, fail, info };

struct Event {
  std::uint64_t seq = 0;
  std::int64_t true_us = 0;
  int client = 0;
  Op op = Op::acquire;
  Phase phase = Phase::invoke;
  std::int64_t client_us = 0;
  std::string identifier;
  std::string detail;
};

std::string_view to_string(Op op);
std::string_view to_string(Phase phase);
std::optional<Op> op_from_string(std::string_view s);
std::optional<Phase> phase_from_string(std::string_view s);

}  // namespace semsim
