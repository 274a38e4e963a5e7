// What a variant may touch: the Redis link, the client's own clock, sleeping, fresh identifiers.
// Everything comes through here so that the simulator can skew, delay and replay it.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "algorithms/api/redis.h"
#include "algorithms/api/task.h"

namespace semsim {

using Micros = std::chrono::microseconds;

class Client {
 public:
  virtual ~Client() = default;
  virtual Redis& redis() = 0;
  // The client's own clock (skewed, drifting, jumping), in microseconds since the run's epoch.
  virtual Micros now() const = 0;
  // Suspends this client for d of true time.
  virtual Task<void> sleep(Micros d) = 0;
  // A fresh unique identifier (the seeds' uuid4), drawn from the client's own random stream.
  virtual std::string new_identifier() = 0;
  // The server's clock where the run provides one deterministically (virtual mode: the
  // simulator's true time); nullopt means "ask Redis (TIME)".
  virtual std::optional<Micros> server_now() const = 0;
};

}  // namespace semsim
