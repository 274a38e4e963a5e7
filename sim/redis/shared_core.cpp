#include "sim/redis/shared_core.h"

#include <algorithm>

namespace semsim {

SharedCore::SharedCore(RedisSession& redis) : redis_(redis) {
  if (!redis.embedded() || ::sched_getaffinity(0, sizeof thread_cpus_, &thread_cpus_) != 0) return;
  const int here = ::sched_getcpu();
  const int cpu = redis.home_core().value_or(here);
  if (cpu < 0) return;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  if (::sched_setaffinity(0, sizeof one, &one) != 0) return;
  pinned_ = redis.pin_server(cpu);
  if (pinned_) return;
  // Half pinned is worse than not at all: the thread alone on one core, Redis anywhere.
  redis.pin_server(std::nullopt);
  ::sched_setaffinity(0, sizeof thread_cpus_, &thread_cpus_);
}

SharedCore::~SharedCore() {
  if (!pinned_) return;
  redis_.pin_server(std::nullopt);
  ::sched_setaffinity(0, sizeof thread_cpus_, &thread_cpus_);
}

std::vector<int> job_cores(std::size_t jobs) {
  std::vector<int> allowed;
  cpu_set_t set;
  if (::sched_getaffinity(0, sizeof set, &set) == 0)
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
      if (CPU_ISSET(cpu, &set)) allowed.push_back(cpu);
  if (allowed.empty()) allowed.push_back(std::max(0, ::sched_getcpu()));
  const auto here = std::find(allowed.begin(), allowed.end(), ::sched_getcpu());
  const std::size_t start = here == allowed.end() ? 0 : static_cast<std::size_t>(here - allowed.begin());
  std::vector<int> cores;
  for (std::size_t job = 0; job < jobs; ++job) cores.push_back(allowed[(start + job) % allowed.size()]);
  return cores;
}

bool wide_enough_for_two_cores(const RunOptions& options) { return options.pipeline && options.clients > 200; }

}  // namespace semsim
