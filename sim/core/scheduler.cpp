#include "sim/core/scheduler.h"

#include <algorithm>
#include <stdexcept>

namespace semsim {

void Scheduler::push_entry(const Entry& entry) {
  if (next_kind_ && Later{}(heap(*next_kind_).front(), entry)) next_kind_ = entry.kind;
  Heap& h = heap(entry.kind);
  h.push_back(entry);
  std::push_heap(h.begin(), h.end(), Later{});
}

const Scheduler::Entry& Scheduler::front() const {
  if (!next_kind_) {
    const Entry* next = nullptr;
    for (const Heap& h : heaps_)
      if (!h.empty() && (next == nullptr || Later{}(*next, h.front()))) {
        next = &h.front();
        next_kind_ = next->kind;
      }
  }
  return heap(*next_kind_).front();
}

template <typename T>
std::uint32_t Scheduler::Slots<T>::put(T item) {
  if (free.empty()) {
    items.push_back(std::move(item));
    return static_cast<std::uint32_t>(items.size() - 1);
  }
  const std::uint32_t slot = free.back();
  free.pop_back();
  items[slot] = std::move(item);
  return slot;
}

template <typename T>
T Scheduler::Slots<T>::take(std::uint32_t slot) {
  T item = std::move(items[slot]);
  items[slot] = T{};
  free.push_back(slot);
  return item;
}

void Scheduler::push(TrueTime time, std::uint64_t seq, Kind kind, std::function<void()> step, Delivery delivery) {
  const std::uint32_t slot = kind == Kind::delivery ? deliveries_.put(std::move(delivery)) : steps_.put(std::move(step));
  push_entry(Entry{time, seq, slot, kind});
}

void Scheduler::at(TrueTime t, std::function<void()> step) {
  push(std::max(t, now_), seq_++, Kind::step, std::move(step), {});  // nothing happens in the past
}

void Scheduler::fence_at(TrueTime t, std::function<void()> step) {
  push(std::max(t, now_), seq_++, Kind::fence, std::move(step), {});
}

void Scheduler::deliver_at(TrueTime t, Delivery delivery) {
  if (t < now_) t = now_;
  // Deliveries taken ahead already ran on Redis: one due before them would be out of order.
  if (t < ahead_until_)
    throw std::logic_error("a delivery at " + std::to_string(t.time_since_epoch().count()) +
                           " us is due before deliveries sent ahead (" +
                           std::to_string(ahead_until_.time_since_epoch().count()) + " us): a lookahead bound is wrong");
  push(t, seq_++, Kind::delivery, {}, std::move(delivery));
}

void Scheduler::reply_at(TrueTime time, std::uint64_t seq, std::function<void()> reply) {
  push(time, seq, Kind::reply, std::move(reply), {});
}

Scheduler::Entry Scheduler::pop_entry(Kind kind) {
  Heap& h = heap(kind);
  std::pop_heap(h.begin(), h.end(), Later{});
  const Entry entry = h.back();
  h.pop_back();
  next_kind_.reset();
  return entry;
}

Scheduler::Item Scheduler::take(const Entry& entry) {
  if (entry.kind == Kind::delivery) return Item{entry.time, entry.seq, entry.kind, {}, deliveries_.take(entry.slot)};
  return Item{entry.time, entry.seq, entry.kind, steps_.take(entry.slot), {}};
}

Scheduler::Item Scheduler::pop() {
  Item item = take(pop_entry(front().kind));
  now_ = item.time;
  ++processed_;
  return item;
}

void Scheduler::take_ahead(const Bounds& b, std::vector<Ahead>& out) {
  if (!next_is_delivery()) throw std::logic_error("Scheduler::take_ahead: the next event is not a delivery");
  out.clear();
  // The earliest step causes the earliest sends, so it bounds the horizon as all of them would.
  // A reply causes sends a round trip later at the earliest, as a delivery does, and none is
  // earlier than the first delivery (the next event), whose own round trip bounds the loop below.
  TrueTime horizon = TrueTime::max();
  if (const Heap& steps = heap(Kind::step); !steps.empty()) horizon = steps.front().time + b.min_send;
  const Heap& fences = heap(Kind::fence);
  Heap& deliveries = heap(Kind::delivery);
  while (!deliveries.empty()) {
    const Entry& next = deliveries.front();
    if ((!fences.empty() && Later{}(next, fences.front())) || next.time >= b.until || next.time > horizon) break;
    const Entry entry = pop_entry(Kind::delivery);
    horizon = std::min(horizon, entry.time + b.min_round_trip);
    out.push_back(Ahead{entry.time, entry.seq, take(entry).delivery});
  }
  ahead_until_ = std::max(ahead_until_, out.back().time);
}

std::vector<Delivery> Scheduler::next() {
  if (empty()) throw std::logic_error("Scheduler::next on an empty queue");
  Item item = pop();
  if (item.kind != Kind::delivery) {
    item.step();
    return {};
  }
  std::vector<Delivery> batch;
  batch.push_back(std::move(item.delivery));
  // Deliveries due at this same instant cannot be preceded by anything new (a step scheduled
  // from now on sorts after them), so they may go to Redis together, in order.
  while (next_is_delivery() && front().time == now_)
    batch.push_back(pop().delivery);
  return batch;
}

}  // namespace semsim
