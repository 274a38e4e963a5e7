#include "sim/scheduler.h"

#include <algorithm>
#include <stdexcept>

namespace semsim {

void Scheduler::push(Item item) {
  heap_.push_back(std::move(item));
  std::push_heap(heap_.begin(), heap_.end(), Later{});
}

void Scheduler::at(Micros t, std::function<void()> step) {
  push(Item{std::max(t, now_), seq_++, Kind::step, std::move(step), {}});  // nothing happens in the past
}

void Scheduler::fence_at(Micros t, std::function<void()> step) {
  push(Item{std::max(t, now_), seq_++, Kind::fence, std::move(step), {}});
}

void Scheduler::deliver_at(Micros t, Delivery delivery) {
  if (t < now_) t = now_;
  // Deliveries taken ahead already ran on Redis: one due before them would be out of order.
  if (t < ahead_until_)
    throw std::logic_error("a delivery at " + std::to_string(t.count()) + " us is due before deliveries sent ahead (" +
                           std::to_string(ahead_until_.count()) + " us): a lookahead bound is wrong");
  push(Item{t, seq_++, Kind::delivery, {}, std::move(delivery)});
}

void Scheduler::reply_at(Micros time, std::uint64_t seq, std::function<void()> reply) {
  push(Item{time, seq, Kind::reply, std::move(reply), {}});
}

Scheduler::Item Scheduler::pop_unprocessed() {
  std::pop_heap(heap_.begin(), heap_.end(), Later{});
  Item item = std::move(heap_.back());
  heap_.pop_back();
  return item;
}

Scheduler::Item Scheduler::pop() {
  Item item = pop_unprocessed();
  now_ = item.time;
  ++processed_;
  return item;
}

std::vector<Scheduler::Ahead> Scheduler::take_ahead(const Bounds& b) {
  if (!next_is_delivery()) throw std::logic_error("Scheduler::take_ahead: the next event is not a delivery");
  std::vector<Ahead> out;
  std::vector<Item> steps;  // looked past: back in the queue afterwards, at their places
  Micros horizon = b.last;
  while (!heap_.empty()) {
    const Item& front = heap_.front();
    if (front.kind == Kind::fence || front.time >= b.until || front.time > horizon) break;
    Item item = pop_unprocessed();
    const Micros causes_from = item.time + (item.kind == Kind::step ? b.min_send : b.min_round_trip);
    horizon = std::min(horizon, causes_from);
    if (item.kind == Kind::delivery) out.push_back(Ahead{item.time, item.seq, std::move(item.delivery)});
    else steps.push_back(std::move(item));
  }
  for (Item& step : steps) push(std::move(step));
  ahead_until_ = std::max(ahead_until_, out.back().time);
  return out;
}

std::vector<Delivery> Scheduler::next() {
  if (heap_.empty()) throw std::logic_error("Scheduler::next on an empty queue");
  Item item = pop();
  if (item.kind != Kind::delivery) {
    item.step();
    return {};
  }
  std::vector<Delivery> batch;
  batch.push_back(std::move(item.delivery));
  // Deliveries due at this same instant cannot be preceded by anything new (a step scheduled
  // from now on sorts after them), so they may go to Redis together, in order.
  while (!heap_.empty() && heap_.front().kind == Kind::delivery && heap_.front().time == now_)
    batch.push_back(pop().delivery);
  return batch;
}

}  // namespace semsim
