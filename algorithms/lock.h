// The seeds' Redis locks. Seed 004 (004_e88c3953a9612bee.txt), "分布式锁":
// "1.简易锁" acquire_lock (SETNX, no expiry) and "2. 带有超时限制特性的锁" acquire_lock_with_timeout
// (SETNX then EXPIRE). Release is a compare-and-delete script, not the seed's WATCH loop.
#pragma once

#include <optional>
#include <string>

#include "algorithms/api/client.h"
#include "algorithms/api/task.h"

namespace semsim {

// 'lock:' + lockname, put under the run prefix: <prefix>lock:<own segment> (see protocol.h).
std::string lock_key(const std::string& lockname);

// Seed 004 acquire_lock: SETNX, retried every 1 ms until acquire_timeout has passed on the
// client's own clock. The lock never expires.
Task<std::optional<std::string>> acquire_lock(Client& client, std::string lockname,
                                              Micros acquire_timeout);

// How the lock's TTL is set. The seed: EXPIRE with whole seconds, rounded up.
// `milliseconds` (PEXPIRE) exists only for the planted fair-locked-short-lock.
enum class LockTtlUnit { seconds_ceil, milliseconds };

// Seed 004 acquire_lock_with_timeout: SETNX, then EXPIRE as a separate command; if the lock is
// taken and has no TTL (its holder died between SETNX and EXPIRE), give it one.
Task<std::optional<std::string>> acquire_lock_with_timeout(
    Client& client, std::string lockname, Micros acquire_timeout, Micros lock_timeout,
    LockTtlUnit unit = LockTtlUnit::seconds_ceil);

// Deletes the lock only if it still holds `identifier`. True if it did.
Task<bool> release_lock(Client& client, std::string lockname, std::string identifier);

}  // namespace semsim
