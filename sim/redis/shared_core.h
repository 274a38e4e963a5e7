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
//
// A wide run alone is the exception (wide_enough_for_two_cores): the lookahead does not wait for
// its pipelines, and with hundreds of clients they are wide enough for semsim and Redis to work at
// once on two cores, which pays for the hand-overs.
#pragma once

#include <sched.h>

#include <cstddef>
#include <vector>

#include "sim/core/run_options.h"
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

// Whether a virtual run with these options, alone on the machine (no home core), is better off
// on two cores. Measured with lua, delay 0.5-2 ms (speed_x, one core / two): 100 clients 38.8 /
// 24.7, 150-250 even, 300 12.2 / 14.9, 1,000 3.5-4.3 / 5.6-6.1.
bool wide_enough_for_two_cores(const RunOptions& options);

}  // namespace semsim
