// Beyond the seeds: `lua` made to survive a failover. A grant counts only once one replica has
// it (WAIT 1); otherwise the permit is given back and the acquire is refused.
#pragma once

#include "algorithms/lua.h"

namespace semsim {

class LuaWaitSemaphore : public LuaSemaphore {
 public:
  using LuaSemaphore::LuaSemaphore;
  Task<std::optional<Grant>> acquire(Client& client) override;
};

// Registry entry (algorithms/registry.h): `lua-wait`.
VariantInfo lua_wait_variant();

}  // namespace semsim
