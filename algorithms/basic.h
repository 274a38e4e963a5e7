// The basic counting semaphore: one ZSET scored by the acquirer's own clock.
// Seed 004 (004_e88c3953a9612bee.txt), "计数信号量 / 1. 构建基本计数信号量", acquire_semaphore:
// the three commands in one MULTI (redis-py pipeline(True)). Seed 001 (001_a4275f2cabdf39e5.txt),
// first listing, client.js acquireSemaphore: the same commands in a plain ioredis pipeline.
#pragma once

#include "algorithms/registry.h"

#include "algorithms/api/semaphore.h"

namespace semsim {

class BasicSemaphore : public Semaphore {
 public:
  struct Options {
    bool atomic = true;          // true: MULTI/EXEC (004); false: plain pipeline (001)
    bool remove_expired = true;  // false only in the planted basic-no-cleanup
  };
  BasicSemaphore(SemaphoreConfig config, Options options);

  Task<std::optional<Grant>> acquire(Client& client) override;
  Task<bool> release(Client& client, std::string identifier) override;
  Task<bool> refresh(Client& client, std::string identifier) override;
  std::string admission_set() const override { return config_.name; }

 private:
  SemaphoreConfig config_;
  Options options_;
};

// Registry entries (algorithms/registry.h): `basic`, `basic-pipeline`.
VariantInfo basic_variant();
VariantInfo basic_pipeline_variant();

}  // namespace semsim
