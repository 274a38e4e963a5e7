// A private redis-server that semsim starts itself: unix socket in a fresh temporary directory,
// loopback only (no TCP port), no persistence. Stopped, and its directory removed, when this
// object dies; the child also dies with semsim (PR_SET_PDEATHSIG), so none is ever orphaned, and
// a small watchdog process removes the directory even when semsim is killed outright.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <sys/types.h>

#include "sim/redis_clock.h"
#include "sim/redis_target.h"

namespace semsim {

// redis-server is not on PATH, or did not start: the message says how to fix it (exit 2).
struct EmbeddedRedisError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class EmbeddedRedis {
 public:
  // Starts redis-server from PATH and waits until it answers PING. Throws EmbeddedRedisError.
  EmbeddedRedis();
  ~EmbeddedRedis();
  EmbeddedRedis(const EmbeddedRedis&) = delete;
  EmbeddedRedis& operator=(const EmbeddedRedis&) = delete;

  RedisTarget target() const;
  pid_t pid() const { return pid_; }
  const std::string& directory() const { return dir_; }
  // Redis's clock, when the clock library was found beside semsim; null otherwise.
  RedisClock* clock() const { return clock_.get(); }

 private:
  // Stops the server (SIGTERM, then SIGKILL after a bound) and removes the directory.
  void stop() noexcept;

  std::string dir_;
  pid_t pid_ = -1;
  pid_t watchdog_ = -1;
  std::unique_ptr<RedisClock> clock_;  // removes dir_ if semsim dies without unwinding (SIGKILL)
};

}  // namespace semsim
