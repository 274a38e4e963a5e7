// Beyond the seeds: one atomic Lua script per operation, timed by the server's clock, with a
// fencing token. Never over-admits whatever the clients' clocks or delays.
#pragma once

#include <span>

#include "algorithms/registry.h"

#include "algorithms/api/semaphore.h"

namespace semsim {

class LuaSemaphore : public Semaphore {
 public:
  explicit LuaSemaphore(SemaphoreConfig config);

  Task<void> prepare(Client& client) override;
  Task<std::optional<Grant>> acquire(Client& client) override;
  Task<bool> release(Client& client, std::string identifier) override;
  Task<bool> refresh(Client& client, std::string identifier) override;
  std::string admission_set() const override { return config_.name; }

  struct Script {
    const char* source;
    std::string sha;  // from SCRIPT LOAD; reloaded on NOSCRIPT
  };

 private:
  // The script's EVALSHA with its KEYS: co_await it at once (`args` is read until it returns).
  Task<Reply> run(Client& client, Script& script, std::span<const std::string> args);
  std::string server_time_arg(const Client& client) const;

  SemaphoreConfig config_;
  std::string fence_;
  std::vector<std::string> holders_key_, acquire_keys_;  // KEYS of refresh and release; of acquire
  std::string limit_arg_, timeout_arg_;                  // ARGV that every call passes alike
  Script acquire_, refresh_, release_;
};

// Registry entry (algorithms/registry.h): `lua`.
VariantInfo lua_variant();

}  // namespace semsim
