// The fair counting semaphore: a timeout ZSET (client clock) + an owner ZSET scored by a counter.
// Seeds 000 (000_513b158efe7e1266.txt) "1.1 获取信号量" acquireFairSemaphore and 004
// (004_e88c3953a9612bee.txt) "2. 公平信号量" acquire_fair_semaphore; seed 001's second listing
// (global counter, plain pipelines) is the same code with other keys and `atomic = false`.
#pragma once

#include "algorithms/registry.h"

#include "algorithms/api/semaphore.h"

namespace semsim {

struct FairKeys {
  std::string timeout;  // ZSET identifier -> acquirer's clock (µs)
  std::string owner;    // ZSET identifier -> counter value; its ranks decide admission
  std::string counter;  // STRING, INCR'd once per acquire
};

// Seeds 000/004: <name>, <name>:owner, <name>:counter.
FairKeys fair_keys(const std::string& name);
// Seed 001: <name>:time, <name>:count, and the counter shared by every semaphore,
// 'semaphore:count', put under the run prefix: <prefix>semaphore:count (see protocol.h).
FairKeys fair_keys_global_counter(const std::string& name);

class FairSemaphore : public Semaphore {
 public:
  struct Options {
    FairKeys keys;
    bool atomic = true;                  // MULTI/EXEC (000/004) or plain pipelines (001)
    std::string timeout_weight = "0";    // ZINTERSTORE ... WEIGHTS 1 <this>; "1" only when planted
  };
  FairSemaphore(SemaphoreConfig config, Options options);

  Task<std::optional<Grant>> acquire(Client& client) override;
  Task<bool> release(Client& client, std::string identifier) override;
  Task<bool> refresh(Client& client, std::string identifier) override;
  std::string admission_set() const override { return options_.keys.owner; }

 private:
  SemaphoreConfig config_;
  Options options_;
};

// Registry entries (algorithms/registry.h): `fair`, `fair-global-counter`; and the promise
// the fair family shares.
Preconditions fair_promise();
VariantInfo fair_variant();
VariantInfo fair_global_counter_variant();

}  // namespace semsim
