// PLANTED BUGS. Every variant here is a correct-as-the-seeds variant with one deliberate change,
// named in its comment. Do not "fix" them: the negative scenarios and tests rely on each one
// misbehaving in exactly the planted way.
#include "algorithms/planted.h"

#include "algorithms/basic.h"
#include "algorithms/fair.h"
#include "algorithms/fair_locked.h"

namespace semsim {

// `fair-weights-1-1` — PLANTED: ZINTERSTORE ... WEIGHTS 1 1 instead of 1 0. Every surviving
// owner's score becomes counter + its timestamp (µs), so it grows on every acquire and each
// newcomer (counter only) ranks ahead of all holders: over-admission at once. Planted, but also
// published: seed 003's fair_semaphore calls intersectAndStore(listName, czset, czset) with no
// weights (Redis's default is 1 1), so seed 003 as printed is this variant (docs/seed-notes.md).
std::unique_ptr<Semaphore> make_fair_weights_1_1(SemaphoreConfig config) {
  FairSemaphore::Options options{fair_keys(config.name)};
  options.timeout_weight = "1";
  return std::make_unique<FairSemaphore>(std::move(config), std::move(options));
}

// `basic-no-cleanup` — PLANTED: no ZREMRANGEBYSCORE. Timed-out holders are never removed, so a
// crashed or forgotten holder keeps its slot forever (liveness), and refresh never reports loss.
std::unique_ptr<Semaphore> make_basic_no_cleanup(SemaphoreConfig config) {
  return std::make_unique<BasicSemaphore>(std::move(config),
                                          BasicSemaphore::Options{.atomic = true,
                                                                  .remove_expired = false});
}

// `fair-pipeline` — PLANTED: the fair semaphore's MULTI/EXEC replaced by plain pipelines (keys
// and counter as `fair`). Other clients' commands may now run inside a block, e.g. a cleanup
// between our ZADD and our ZRANK, which then reads nil and admits us though we hold nothing.
std::unique_ptr<Semaphore> make_fair_pipeline(SemaphoreConfig config) {
  FairSemaphore::Options options{fair_keys(config.name)};
  options.atomic = false;
  return std::make_unique<FairSemaphore>(std::move(config), std::move(options));
}

// `fair-locked-short-lock` — PLANTED: the lock's TTL is 1 ms (PEXPIRE), shorter than the critical
// section (two round trips), so the lock expires under its holder and a second acquirer runs the
// INCR/ZADD race the lock was meant to prevent.
std::unique_ptr<Semaphore> make_fair_locked_short_lock(SemaphoreConfig config) {
  return std::make_unique<FairLockedSemaphore>(
      std::move(config), FairLockedSemaphore::Options{Micros{1000}, LockTtlUnit::milliseconds});
}

namespace {
// Planted bugs promise nothing: the search must find them.
Preconditions planted() { return {.text = "none (a planted bug)"}; }
}  // namespace

std::vector<VariantInfo> planted_variants() {
  return {
      {.name = "fair-weights-1-1", .source = "planted: ZINTERSTORE WEIGHTS 1 1 (seed 003 as printed)",
       .clock = ClockBasis::client, .preconditions = planted(), .make = make_fair_weights_1_1},
      {.name = "basic-no-cleanup", .source = "planted: no ZREMRANGEBYSCORE", .clock = ClockBasis::client,
       .preconditions = planted(), .make = make_basic_no_cleanup},
      {.name = "fair-pipeline", .source = "planted: plain pipelines in place of MULTI", .clock = ClockBasis::client,
       .preconditions = planted(), .make = make_fair_pipeline},
      {.name = "fair-locked-short-lock", .source = "planted: a 1 ms lock TTL", .clock = ClockBasis::redis_ttl,
       .preconditions = planted(), .make = make_fair_locked_short_lock},
  };
}

}  // namespace semsim
