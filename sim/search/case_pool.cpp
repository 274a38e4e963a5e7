#include "sim/search/case_pool.h"

namespace semsim {

CasePool::CasePool(const std::vector<RedisSession*>& redis) : redis_(redis) {
  for (std::size_t i = 1; i < redis_.size(); ++i) threads_.emplace_back([this, i] { serve(i); });
}

CasePool::~CasePool() {
  drop_queued();
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  work_.notify_all();
  for (std::thread& t : threads_) t.join();
}

std::uint64_t CasePool::submit(Task task) {
  std::uint64_t ticket = 0;
  {
    std::lock_guard lock(mutex_);
    ticket = next_ticket_++;
    unfinished_.insert(ticket);
    queue_.emplace_back(ticket, std::move(task));
  }
  work_.notify_one();
  return ticket;
}

void CasePool::run_next(std::unique_lock<std::mutex>& lock, std::size_t worker) {
  std::pair<std::uint64_t, Task> next = std::move(queue_.front());
  queue_.pop_front();
  lock.unlock();
  next.second(*redis_[worker], worker);
  lock.lock();
  unfinished_.erase(next.first);
  finished_.notify_all();
}

void CasePool::wait_for(std::uint64_t ticket) {
  std::unique_lock lock(mutex_);
  while (unfinished_.contains(ticket)) {
    if (!queue_.empty()) run_next(lock, 0);
    else finished_.wait(lock);
  }
}

void CasePool::drop_queued() {
  std::unique_lock lock(mutex_);
  for (const auto& queued : queue_) unfinished_.erase(queued.first);
  queue_.clear();
  finished_.wait(lock, [&] { return unfinished_.empty(); });
}

void CasePool::serve(std::size_t worker) {
  std::unique_lock lock(mutex_);
  for (;;) {
    work_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (stopping_) return;
    run_next(lock, worker);
  }
}

}  // namespace semsim
