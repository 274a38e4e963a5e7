// Beyond the seeds: Redlock, a lock over N independent Redis masters, as redis.io's "Distributed
// locks with Redis" describes it and antirez/redlock-rb implements it; and redlock-semaphore, a
// counting semaphore of `limit` Redlock locks, one per permit.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "algorithms/registry.h"

#include "algorithms/api/semaphore.h"

namespace semsim {

// One Redlock lock on `key`: acquire, extend and release over every master of the client.
class RedlockLock {
 public:
  RedlockLock(std::string key, Micros ttl, double drift_factor);

  // A round of votes: whether the lock is held, and what the history says of it
  // (votes=K/N granted=... elapsed_us= validity_us=, refused=quorum|validity).
  struct Outcome {
    bool held = false;
    std::string detail;
  };
  // Steps 1-5 of the algorithm with `value` (the grant's identifier). Held: with a validity of
  // `ttl - elapsed - drift`; refused: released on every master.
  Task<Outcome> acquire(Client& client, std::string value);
  // The extension: the same vote with a script that extends the key where it still holds
  // `value`. Not held: lost, and released on every master.
  Task<Outcome> extend(Client& client, std::string value);
  // Deletes the key on every master where it holds `value`. True where a quorum still held it.
  Task<bool> release(Client& client, std::string value);

  const std::string& key() const { return key_; }

 private:
  struct Vote;
  Task<Vote> vote(Client& client, const std::string& value, bool extending);

  std::string key_;
  Micros ttl_;
  Micros drift_;
};

// Variant `redlock`: one lock (limit 1).
class Redlock : public Semaphore {
 public:
  explicit Redlock(SemaphoreConfig config);
  Task<std::optional<Grant>> acquire(Client& client) override;
  Task<bool> release(Client& client, std::string identifier) override;
  Task<bool> refresh(Client& client, std::string identifier) override;
  std::vector<std::string> holder_keys() const override { return {lock_.key()}; }

 private:
  SemaphoreConfig config_;
  RedlockLock lock_;
};

// Variant `redlock-semaphore`: `limit` Redlock locks, <name>:permit:1 .. <name>:permit:L. An
// acquire tries them in order and holds the first it wins; each permit is a Redlock lock, so
// Redlock's own safety argument bounds each permit to one holder, and the semaphore to L.
class RedlockSemaphore : public Semaphore {
 public:
  explicit RedlockSemaphore(SemaphoreConfig config);
  Task<std::optional<Grant>> acquire(Client& client) override;
  Task<bool> release(Client& client, std::string identifier) override;
  Task<bool> refresh(Client& client, std::string identifier) override;
  std::vector<std::string> holder_keys() const override;

 private:
  RedlockLock& permit_of(const std::string& identifier);

  SemaphoreConfig config_;
  std::vector<RedlockLock> permits_;
  std::map<std::string, std::size_t> held_;  // identifier -> its permit (0-based)
};

// Registry entries (algorithms/registry.h): `redlock`, `redlock-semaphore`.
VariantInfo redlock_variant();
VariantInfo redlock_semaphore_variant();
// Redlock's assumptions (redis.io), the preconditions of `semsim check --masters N` for both.
Preconditions redlock_promise();

}  // namespace semsim
