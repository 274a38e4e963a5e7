#include "sim/scheduler.h"

#include <algorithm>
#include <stdexcept>

namespace semsim {

void Scheduler::at(Micros t, std::function<void()> step) {
  if (t < now_) t = now_;  // nothing happens in the past
  heap_.push_back(Item{t, seq_++, std::move(step), {}});
  std::push_heap(heap_.begin(), heap_.end(), Later{});
}

void Scheduler::deliver_at(Micros t, Delivery delivery) {
  if (t < now_) t = now_;
  heap_.push_back(Item{t, seq_++, {}, std::move(delivery)});
  std::push_heap(heap_.begin(), heap_.end(), Later{});
}

Scheduler::Item Scheduler::pop() {
  std::pop_heap(heap_.begin(), heap_.end(), Later{});
  Item item = std::move(heap_.back());
  heap_.pop_back();
  now_ = item.time;
  ++processed_;
  return item;
}

std::vector<Delivery> Scheduler::next() {
  if (heap_.empty()) throw std::logic_error("Scheduler::next on an empty queue");
  Item item = pop();
  if (item.step) {
    item.step();
    return {};
  }
  std::vector<Delivery> batch;
  batch.push_back(std::move(item.delivery));
  // Deliveries due at this same instant cannot be preceded by anything new (a step scheduled
  // from now on sorts after them), so they may go to Redis together, in order.
  while (!heap_.empty() && !heap_.front().step && heap_.front().time == now_)
    batch.push_back(pop().delivery);
  return batch;
}

}  // namespace semsim
