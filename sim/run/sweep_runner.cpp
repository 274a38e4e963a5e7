#include "sim/run/sweep_runner.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>

#include "sim/core/interrupt.h"
#include "sim/core/wall_clock.h"
#include "sim/redis/redis_session.h"
#include "sim/redis/shared_core.h"

namespace semsim {

int default_jobs() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

SweepOutputs run_all(const std::vector<RunOptions>& runs, int jobs, const std::string& redis_url, const RunDone& on_done) {
  SweepOutputs result;
  std::vector<std::optional<RunOutput>>& outputs = result.runs;
  outputs.resize(runs.size());
  std::vector<std::exception_ptr> failures(runs.size());
  const std::size_t workers = std::min(runs.size(), static_cast<std::size_t>(std::max(1, jobs)));
  // Every server is started here, on the calling thread: an embedded server dies with the thread
  // that started it (PR_SET_PDEATHSIG), and the workers end before this one.
  std::vector<std::unique_ptr<RedisSession>> sessions;
  for (std::size_t w = 0; w < workers; ++w) sessions.push_back(std::make_unique<RedisSession>(redis_url));
  if (workers > 1)  // a core each for runs in virtual time (shared_core.h)
    for (std::size_t w = 0; const int cpu : job_cores(workers)) sessions[w++]->set_home_core(cpu);
  if (!sessions.empty()) result.redis = sessions.front()->describe();
  if (!sessions.empty()) result.redis_version = sessions.front()->server_version();

  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  std::mutex report;  // on_done, one call at a time
  std::size_t done = 0;
  const Stopwatch wall;
  const auto work = [&](RedisSession& redis) {
    while (!stop) {
      const std::size_t i = next++;
      if (i >= runs.size()) break;
      try {
        std::ostringstream log;  // the run's own notes; a sweep reports per run through on_done
        RunOutput output = execute_run(runs[i], redis, log);
        if (!output.result.completed) stop = true;
        const std::lock_guard lock(report);
        ++done;
        const double left = wall.seconds() / static_cast<double>(done) * static_cast<double>(runs.size() - done);
        on_done(i, output, done, left);
        outputs[i] = std::move(output);
      } catch (...) {
        // A signal that stopped a run before it started (the embedded server's start, the
        // variant's preparation) is a stop, not a failure: the sweep keeps what finished.
        if (!interrupt_signal()) failures[i] = std::current_exception();
        stop = true;
      }
    }
  };
  std::vector<std::thread> threads;
  for (std::size_t w = 1; w < workers; ++w) threads.emplace_back(work, std::ref(*sessions[w]));
  if (workers > 0) work(*sessions[0]);
  for (std::thread& t : threads) t.join();
  for (const std::exception_ptr& failure : failures)
    if (failure) std::rethrow_exception(failure);
  return result;
}

}  // namespace semsim
