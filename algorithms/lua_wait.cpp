// Variant `lua-wait`: `lua`'s acquire, then WAIT 1 T. Replication is asynchronous: a grant that
// only the primary holds dies with it in a failover, and the promoted replica hands the permit
// out again. WAIT blocks until one replica acknowledges every write this connection made (the
// grant included) or T passes. Unconfirmed, the grant is released and the acquire refused: the
// client never holds what a failover could take away. The price is one round trip per acquire
// (plus T whenever no replica answers), and no grants at all without a replica.
//
// T is real time on the server: 1 s, long enough for a replica on the same machine to answer
// under any load this harness puts on it, so that the outcome does not depend on scheduling.
#include "algorithms/lua_wait.h"

#include "algorithms/api/protocol.h"

namespace semsim {

namespace {
constexpr const char* kWaitTimeoutMs = "1000";
}  // namespace

Task<std::optional<Grant>> LuaWaitSemaphore::acquire(Client& client) {
  std::optional<Grant> grant = co_await LuaSemaphore::acquire(client);
  if (!grant) co_return std::nullopt;
  const Reply replicas = co_await client.redis().call(cmd("WAIT", "1", kWaitTimeoutMs));
  if (integer_of(replicas) >= 1) co_return grant;
  co_await release(client, grant->identifier);  // not on any replica: a failover would lose it
  co_return std::nullopt;
}

VariantInfo lua_wait_variant() {
  VariantInfo v = lua_variant();
  v.name = "lua-wait";
  v.source = "ours: lua, with each grant confirmed on a replica (WAIT 1) before it counts";
  v.compared = false;
  v.needs_replica = true;
  v.make = [](SemaphoreConfig c) -> std::unique_ptr<Semaphore> { return std::make_unique<LuaWaitSemaphore>(std::move(c)); };
  return v;
}

}  // namespace semsim
