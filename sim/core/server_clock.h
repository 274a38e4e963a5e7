// Redis's own clock, where it can follow virtual time (sim/redis/redis_clock.h: the embedded
// server with the preloaded clock library). The simulation sets it before each delivery, so
// that TTLs, lock expiry and TIME follow the simulated server clock.
#pragma once

#include "algorithms/api/redis.h"
#include "sim/core/duration.h"

namespace semsim {

class ServerClock {
 public:
  virtual ~ServerClock() = default;
  // Redis reads `server_us` (virtual true time plus the server's own offset) from now on: what
  // the server's own clock reads (a ClientClock's reading, Micros like a client's), not TrueTime.
  virtual void set(Micros server_us) = 0;
  // Redis reads its real clock again (paced runs).
  virtual void release() = 0;
  // `command` as sent so that Redis sets its clock to `server_us` just before it runs it, from
  // inside a pipeline: requests due at different instants then travel together.
  virtual Command at(Micros server_us, Command command) const = 0;
  // The readings set() and at() can take (the clock library counts nanoseconds since the
  // Unix epoch in 64 bits): a run that would push Redis's clock outside is refused before it
  // starts (Simulation::check_inputs), not left to fall back on the host's real time.
  struct Range {
    Micros earliest, latest;
  };
  virtual Range settable() const { return {Micros::min(), Micros::max()}; }
};

}  // namespace semsim
