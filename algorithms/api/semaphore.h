// A counting semaphore variant: acquire, release, refresh, as the seeds define them.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "algorithms/api/client.h"
#include "algorithms/api/task.h"

namespace semsim {

// A variant that cannot run as configured (bad script, bad file): exit 2, not a finding.
struct SetupError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct SemaphoreConfig {
  std::string name;      // the semaphore's key; every key a variant writes starts with it
  int limit = 1;
  double drift_factor = 0.01;  // Redlock's clock drift allowance: drift = factor * ttl + 2 ms
  Micros timeout{10'000'000};       // how long a permit lives without refresh
  Micros lock_timeout{10'000'000};  // the lock's TTL (variants under a lock)
  Micros lock_acquire_timeout{10'000};  // how long to retry the lock (seed 004: 10 ms)
};

struct Grant {
  std::string identifier;
  long long fencing_token = 0;  // 0 where the variant gives none
};

// One try of an acquire that --retries may repeat (the simulator's workload).
struct AcquireTry {
  std::uint64_t chain = 0;  // the same for every try of one acquire, another for every acquire
  int retry = 0;            // tries of this acquire before this one
  bool last = true;         // no further try follows if this one is refused
};

class Semaphore {
 public:
  virtual ~Semaphore() = default;
  // Runs once before any client starts (e.g. SCRIPT LOAD). Throws SetupError on a problem that
  // makes the run meaningless (a script that does not compile), with a message naming the file.
  virtual Task<void> prepare(Client& client) {
    (void)client;
    co_return;
  }
  // A grant, or nullopt when refused.
  virtual Task<std::optional<Grant>> acquire(Client& client) = 0;
  // One try of an acquire (AcquireTry). A variant whose library keeps state from one of its own
  // retries to the next (npm redlock 5: one value, the votes kept until the last try) overrides
  // this; the others try afresh.
  virtual Task<std::optional<Grant>> acquire_try(Client& client, AcquireTry attempt) {
    (void)attempt;
    return acquire(client);
  }
  // With several masters: how long the variant waits for one master's answer, given the run's
  // --master-timeout; nullopt: for ever (a library with no timeout of its own, whose request a
  // partition holds until it heals, as TCP does).
  virtual std::optional<Micros> master_timeout(Micros run_timeout) const { return run_timeout; }
  // True if the permit was still there to release.
  virtual Task<bool> release(Client& client, std::string identifier) = 0;
  // True if the permit is still held (and now extended); false if it was lost (and cleaned up).
  virtual Task<bool> refresh(Client& client, std::string identifier) = 0;
  // After Redis lost its data (a restart without persistence, a failover): puts back what
  // prepare() wrote that the variant cannot do without (a script variant's setup step).
  virtual Task<void> after_data_loss(Client& client) {
    (void)client;
    co_return;
  }
  // The ZSET whose ranks (or members) decide admission, so that a run can sample what Redis
  // holds next to what clients believe; "" where a variant has none.
  virtual std::string admission_set() const { return {}; }
  // Lease honesty seen on Redis (a script variant's `lease_honesty`): whether a grant still has
  // its permit, asked by the harness when the grant (or a kept refresh) reaches its client and
  // when its holder invokes release. `rank`: ZRANK of the identifier in the admission set (held
  // while below the limit); `ttl`: PTTL of the permit's key, in ms. lease_probe_command() builds
  // the command for one grant (keys under the run's own prefix, else SetupError).
  enum class LeaseProbe { none, rank, ttl };
  virtual LeaseProbe lease_probe() const { return LeaseProbe::none; }
  virtual Command lease_probe_command(const std::string& identifier) const {
    (void)identifier;
    return {};
  }
  // Where a variant has no admission set: string keys whose values are the holders' identifiers
  // (a lock's key), sampled the same way.
  virtual std::vector<std::string> holder_keys() const { return {}; }
  bool sampled() const { return !admission_set().empty() || !holder_keys().empty(); }
  // With several masters: on how many a grant must stand to count (Redlock's quorum, N/2 + 1).
  // A sample counts an identifier as admitted where this many masters admit it.
  virtual int quorum(int masters) const { return masters / 2 + 1; }
};

// The --variant names of the built-in variants.
std::vector<std::string> builtin_variants();
// Throws std::invalid_argument naming the known variants if `variant` is not one.
std::unique_ptr<Semaphore> make_semaphore(const std::string& variant, SemaphoreConfig config);

}  // namespace semsim
