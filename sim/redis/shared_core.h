// In virtual time semsim and its embedded Redis take turns: one works while the other waits for
// it. On the same core they hand over to each other in a few microseconds; across cores each
// hand-over wakes the other core, tens of microseconds on a virtual machine. So for a run in
// virtual time on the embedded server, the run's thread and every process of the server share one
// core, and the link sleeps instead of spinning as it waits (on a shared core, spinning only keeps
// Redis from answering). Measured in bench/performance.sh (README, Performance).
//
// The core: the session's home core (one per job with check/compare --jobs), else the one the
// thread runs on when the run starts (where the scheduler put it). A user's server runs where its
// owner put it: nothing is pinned then.
#pragma once

#include <sched.h>

#include <cstddef>
#include <vector>

#include "sim/redis/redis_session.h"

namespace semsim {

class SharedCore {
 public:
  explicit SharedCore(RedisSession& redis);
  ~SharedCore();  // the thread and the server back where they were
  SharedCore(const SharedCore&) = delete;
  SharedCore& operator=(const SharedCore&) = delete;

  bool pinned() const { return pinned_; }

 private:
  RedisSession& redis_;
  bool pinned_ = false;
  cpu_set_t thread_cpus_;  // the calling thread's before
};

// One core per job for `jobs` jobs: the CPUs this thread may use in turn, starting from the one it
// runs on now.
std::vector<int> job_cores(std::size_t jobs);

}  // namespace semsim
