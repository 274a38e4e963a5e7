// What a variant may touch: the Redis link, the client's own clock, sleeping, fresh identifiers.
// Everything comes through here so that the simulator can skew, delay and replay it.
#pragma once

#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>

#include "algorithms/api/redis.h"
#include "algorithms/api/task.h"

namespace semsim {

using Micros = std::chrono::microseconds;

class Client {
 public:
  virtual ~Client() = default;
  // The Redis of a one-master run; with N masters (Redlock), master 0.
  virtual Redis& redis() = 0;
  // How many independent Redis masters the run has (numbered 1..N in files and rows, 0..N-1 here).
  virtual int masters() const { return 1; }
  // Master `master` (0-based). With more than one master, a request that gets no answer within
  // the run's master timeout throws NoAnswer (algorithms/api/redis.h).
  virtual Redis& redis(int master) {
    if (master != 0) throw std::out_of_range("master " + std::to_string(master + 1) + " of 1");
    return redis();
  }
  // The client's own clock (skewed, drifting, jumping), in microseconds since the run's epoch.
  virtual Micros now() const = 0;
  // Suspends this client for d of true time.
  virtual Task<void> sleep(Micros d) = 0;
  // A fresh unique identifier (the seeds' uuid4), drawn from the client's own random stream.
  virtual std::string new_identifier() = 0;
  // The server's clock where the run provides one deterministically (virtual mode: the
  // simulator's true time); nullopt means "ask Redis (TIME)".
  virtual std::optional<Micros> server_now() const = 0;
  // The same for master `master`: each master has its own clock.
  virtual std::optional<Micros> server_now(int master) const {
    (void)master;
    return server_now();
  }
  // Adds `detail` (space-separated key=value pairs) to the history row of the outcome of the
  // operation the variant is running (votes=3/5 granted=1,2,3 ...). Dropped where nothing records.
  virtual void note(std::string detail) { (void)detail; }
};

}  // namespace semsim
