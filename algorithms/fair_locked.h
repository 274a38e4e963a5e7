// The fair semaphore acquired under a lock, so that no other acquirer can run between our INCR
// and our ZADD. Seed 004 (004_e88c3953a9612bee.txt) "4. 消除竞争条件"
// acquire_semaphore_with_lock, with its lock release fixed; seed 000 acquireFairSemaphoreWithLock.
// The as-published version (the lock is never freed) is FairLockedAsPublished.
#pragma once

#include "algorithms/registry.h"

#include "algorithms/fair.h"
#include "algorithms/lock.h"

namespace semsim {

class FairLockedSemaphore : public Semaphore {
 public:
  struct Options {
    // The lock's TTL and how it is set. Defaults: config.lock_timeout, EXPIRE in whole seconds.
    // The planted fair-locked-short-lock sets 1 ms via PEXPIRE.
    std::optional<Micros> lock_ttl;
    LockTtlUnit ttl_unit = LockTtlUnit::seconds_ceil;
  };
  FairLockedSemaphore(SemaphoreConfig config, Options options);

  Task<std::optional<Grant>> acquire(Client& client) override;
  Task<bool> release(Client& client, std::string identifier) override;
  Task<bool> refresh(Client& client, std::string identifier) override;
  std::string admission_set() const override { return fair_.admission_set(); }

 private:
  SemaphoreConfig config_;
  Options options_;
  FairSemaphore fair_;
};

// Seeds 003/004 as printed: SETNX lock without expiry (004 acquire_lock, acquire_timeout=.01),
// then "released" with release_fair_semaphore(conn, semname, lock_identifier), which ZREMs the
// lock's identifier from the semaphore's ZSETs and leaves the lock key in place. After the first
// acquire, nobody gets the lock again, so every later acquire is refused.
class FairLockedAsPublished : public Semaphore {
 public:
  explicit FairLockedAsPublished(SemaphoreConfig config);

  Task<std::optional<Grant>> acquire(Client& client) override;
  Task<bool> release(Client& client, std::string identifier) override;
  Task<bool> refresh(Client& client, std::string identifier) override;
  std::string admission_set() const override { return fair_.admission_set(); }

 private:
  SemaphoreConfig config_;
  FairSemaphore fair_;
};

// Registry entries (algorithms/registry.h): `fair-locked`, `fair-locked-as-published`; and the
// promise of the locked family.
Preconditions fair_locked_promise();
VariantInfo fair_locked_variant();
VariantInfo fair_locked_as_published_variant();

}  // namespace semsim
