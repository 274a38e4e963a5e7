// The discrete-event core: events are values ordered by (time, sequence), ties first-in first-out.
// Two kinds: a step (resume a client, fire a fault) and a delivery (commands reaching Redis).
// Deliveries due at the same instant are handed out together so that the caller can send them to
// Redis as one pipelined batch: nothing can be scheduled before them any more.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

#include "algorithms/redis.h"
#include "sim/duration.h"

namespace semsim {

struct Delivery {
  std::vector<Command> commands;  // run back to back at Redis
  std::function<void(std::vector<Reply>)> done;  // called at the delivery's time with the replies
  // False once the connection it travelled on has dropped: it never reaches Redis. Empty: always.
  std::function<bool()> on_the_wire;
  bool dropped() const { return on_the_wire && !on_the_wire(); }
};

class Scheduler {
 public:
  Micros now() const { return now_; }
  void at(Micros t, std::function<void()> step);
  void deliver_at(Micros t, Delivery delivery);
  // Moves time forward to t when nothing is due before it (the end of a run).
  void advance_to(Micros t) { now_ = std::max(now_, t); }
  bool empty() const { return heap_.empty(); }
  Micros next_time() const { return heap_.front().time; }
  std::uint64_t events_processed() const { return processed_; }

  // Pops the next event and advances time to it. If it is a step, runs it and returns empty;
  // if it is a delivery, returns it with every other delivery due at the same instant.
  std::vector<Delivery> next();

 private:
  struct Item {
    Micros time;
    std::uint64_t seq;
    std::function<void()> step;  // empty for deliveries
    Delivery delivery;
  };
  struct Later {
    bool operator()(const Item& a, const Item& b) const {
      return a.time != b.time ? a.time > b.time : a.seq > b.seq;
    }
  };
  Item pop();

  std::vector<Item> heap_;
  Micros now_{0};
  std::uint64_t seq_ = 0;
  std::uint64_t processed_ = 0;
};

}  // namespace semsim
