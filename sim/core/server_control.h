// What server faults do to the Redis under test. The simulation applies them at their instants
// (actions on client 0); the embedded server implements them on real redis-server processes.
#pragma once

#include "sim/core/connection.h"

namespace semsim {

class ServerControl {
 public:
  virtual ~ServerControl() = default;
  // The connection to the current primary; every fault below replaces it.
  virtual Connection& link() = 0;
  // The primary crashes and starts again on its data directory (what comes back: --persistence).
  virtual void restart() = 0;
  // The same in two steps, with downtime between (redis_restart's argument): the primary crashes
  // and stays down, refusing connections, until come_back() starts it on its data directory.
  // link() must not be used in between.
  virtual void go_down() = 0;
  virtual void come_back() = 0;
  // A replica catches up with the primary, then stops receiving its writes: the replica that a
  // later fail_over promotes, holding what the primary had now.
  virtual void cut_off_replica() = 0;
  // The primary is gone; the replica cut off last is the primary now.
  virtual void fail_over() = 0;
  // Every connection drops; a new one is opened.
  virtual void reconnect() = 0;
  // Ends a command blocked on link() (WAIT) as if its timeout had passed: on a Redis whose clock
  // stands still in virtual time, a timeout never passes by itself.
  virtual void unblock() = 0;
};

}  // namespace semsim
