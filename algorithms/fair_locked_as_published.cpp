// Variant `fair-locked-as-published`: seeds 003/004 exactly as printed, mistake included.
// Seed 004 (004_e88c3953a9612bee.txt) "4. 消除竞争条件":
//     identifier = acquire_lock(conn, semname, acquire_timeout=.01)
//     if identifier:
//         try: return acquire_fair_semaphore(conn, semname, limit, timeout)
//         finally: release_fair_semaphore(conn, semname, identifier)
// acquire_lock is 004's "1.简易锁" (SETNX, no expiry). release_fair_semaphore with the *lock's*
// identifier ZREMs a member that is not there and never deletes 'lock:'+semname, so the first
// acquirer's lock stays forever and every later acquire is refused after 10 ms of retries.
// Seed 003 (003_1574696df119e600.txt) semaphore_with_lock makes a milder mistake of the same
// kind: it "releases" with release_semaphore(listName, id), which never frees the lock either,
// but its lock, acquire_lock_withTimeOut(10, "semphoreLock"), has a timeout and one fixed name:
// acquires stall for a lock TTL at a time rather than for ever. Not ported as its own variant
// (the seed does not define acquire_lock_withTimeOut, so its TTL is unknown); see
// docs/seed-notes.md.
//
// Keys: fair's + <prefix>lock:<own segment> (never expires, never freed).
#include <exception>

#include "algorithms/fair_locked.h"

namespace semsim {

FairLockedAsPublished::FairLockedAsPublished(SemaphoreConfig config)
    : config_(config), fair_(std::move(config), FairSemaphore::Options{fair_keys(config_.name)}) {}

Task<std::optional<Grant>> FairLockedAsPublished::acquire(Client& client) {
  auto identifier = co_await acquire_lock(client, config_.name, config_.lock_acquire_timeout);
  if (!identifier) co_return std::nullopt;  // Python falls off the end: None

  std::optional<Grant> grant;
  std::exception_ptr error;
  try {
    grant = co_await fair_.acquire(client);
  } catch (...) {
    error = std::current_exception();  // no co_await inside catch: finish below
  }
  // The published `finally`: releases a semaphore permit named like the lock. The lock stays.
  co_await fair_.release(client, *identifier);
  if (error) std::rethrow_exception(error);
  co_return grant;
}

Task<bool> FairLockedAsPublished::release(Client& client, std::string identifier) {
  return fair_.release(client, std::move(identifier));
}

Task<bool> FairLockedAsPublished::refresh(Client& client, std::string identifier) {
  return fair_.refresh(client, std::move(identifier));
}

VariantInfo fair_locked_as_published_variant() {
  // Liveness is asserted: the seeds promise it, and the published lock that is never freed
  // breaks it (the search finds it, exit 3).
  return {.name = "fair-locked-as-published", .source = "seeds 003, 004 as printed: the lock is never freed",
          .clock = ClockBasis::redis_ttl, .preconditions = fair_locked_promise(), .liveness = true,
          .make = [](SemaphoreConfig c) -> std::unique_ptr<Semaphore> {
            return std::make_unique<FairLockedAsPublished>(std::move(c));
          }};
}

}  // namespace semsim
