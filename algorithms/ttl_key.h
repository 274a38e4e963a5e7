// The clock-independent semaphore of seed 002 (002_b4c721bab56f4b3a.txt), "做到与系统时间无关":
// a counter-scored owner ZSET plus one key per holder whose TTL Redis enforces.
#pragma once

#include "algorithms/registry.h"

#include "algorithms/api/semaphore.h"

namespace semsim {

class TtlKeySemaphore : public Semaphore {
 public:
  explicit TtlKeySemaphore(SemaphoreConfig config);

  Task<std::optional<Grant>> acquire(Client& client) override;
  Task<bool> release(Client& client, std::string identifier) override;
  Task<bool> refresh(Client& client, std::string identifier) override;
  std::string admission_set() const override { return owner_; }

  std::string holder_key(const std::string& identifier) const;

 private:
  SemaphoreConfig config_;
  std::string owner_, counter_;
};

// Registry entry (algorithms/registry.h): `ttl-key`.
VariantInfo ttl_key_variant();

}  // namespace semsim
