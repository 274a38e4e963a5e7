// Runs the search's cases on N servers at once, each server taking the next case as soon as it is
// free (cases differ in length: a batch would wait for its longest). The caller waits for the
// cases in the order it submitted them, so that what it judges does not depend on N.
//
// Server 0 belongs to the calling thread, which runs queued cases on it while it waits; servers
// 1..N-1 have a worker thread each. With one server no thread is started at all.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "sim/redis/redis_session.h"

namespace semsim {

class CasePool {
 public:
  // A case, run on the server of index `worker`. It must not throw.
  using Task = std::function<void(RedisSession& redis, std::size_t worker)>;

  // The worker threads live as long as the pool: a server that a fault restarts is forked by the
  // thread that runs the case, and dies with it (PR_SET_PDEATHSIG).
  explicit CasePool(const std::vector<RedisSession*>& redis);
  ~CasePool();  // drops the queued tasks, waits for the running ones
  CasePool(const CasePool&) = delete;
  CasePool& operator=(const CasePool&) = delete;

  std::size_t size() const { return redis_.size(); }
  // Queues a task; returns its ticket, in submission order.
  std::uint64_t submit(Task task);
  // Returns once the task with this ticket has run, running queued tasks on server 0 meanwhile.
  void wait_for(std::uint64_t ticket);
  // Forgets the queued tasks and waits for the running ones: afterwards no task runs.
  void drop_queued();

 private:
  // Runs the task at the head of the queue on server `worker`; `lock` is held on entry and exit.
  void run_next(std::unique_lock<std::mutex>& lock, std::size_t worker);
  void serve(std::size_t worker);

  std::vector<RedisSession*> redis_;
  std::mutex mutex_;
  std::condition_variable work_, finished_;
  std::deque<std::pair<std::uint64_t, Task>> queue_;
  std::set<std::uint64_t> unfinished_;  // queued or running
  std::uint64_t next_ticket_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;  // last: started once the rest is ready
};

}  // namespace semsim
