// The discrete-event core: events are values ordered by (time, sequence), ties first-in first-out.
// Two kinds: a step (resume a client, fire a fault) and a delivery (commands reaching Redis).
// Deliveries due at the same instant are handed out together so that the caller can send them to
// Redis as one pipelined batch: nothing can be scheduled before them any more. take_ahead goes
// further (virtual mode): it hands out the deliveries that nothing still queued can precede.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "algorithms/api/redis.h"
#include "sim/core/replies.h"
#include "sim/core/true_time.h"

namespace semsim {

struct Delivery {
  std::vector<Command> commands;  // run back to back at Redis
  // Called at the delivery's time with its replies, which may still be on their way (replies.h).
  std::function<void(Replies)> done;
  // False once the connection it travelled on has dropped: it never reaches Redis. Empty: always.
  std::function<bool()> on_the_wire;
  int master = 0;  // which Redis it goes to (0-based; Redlock runs have several)
  bool dropped() const { return on_the_wire && !on_the_wire(); }
};

class Scheduler {
 public:
  TrueTime now() const { return now_; }
  void at(TrueTime t, std::function<void()> step);
  void deliver_at(TrueTime t, Delivery delivery);
  // A step that acts on Redis or on the connections (a server fault, Redis's clock jumping):
  // take_ahead never looks past it, so nothing is sent to Redis ahead of it.
  void fence_at(TrueTime t, std::function<void()> step);
  bool next_is_delivery() const { return !empty() && front().kind == Kind::delivery; }
  bool next_is_fence() const { return !empty() && front().kind == Kind::fence; }
  // Moves time forward to t when nothing is due before it (the end of a run).
  void advance_to(TrueTime t) { now_ = std::max(now_, t); }
  bool empty() const {
    return std::ranges::all_of(heaps_, [](const Heap& h) { return h.empty(); });
  }
  TrueTime next_time() const { return front().time; }
  std::uint64_t events_processed() const { return processed_; }

  // Pops the next event and advances time to it. If it is a step, runs it and returns empty;
  // if it is a delivery, returns it with every other delivery due at the same instant.
  std::vector<Delivery> next();

  // Lookahead pipelining. A queued step at s can only make a client send something that reaches
  // Redis at s + min_send or later; a delivery at d (or its reply, queued as a step) only at
  // d + min_round_trip or later; and whatever is caused later gets a later sequence number, so a
  // delivery due at or before that horizon runs on Redis before anything still to be caused.
  struct Bounds {
    TrueTime until;        // exclusive: the end of this drive
    Micros min_send;       // smallest outbound delay of any client that can still send
    Micros min_round_trip; // smallest inbound + outbound delay of any client
  };
  struct Ahead {
    TrueTime time;
    std::uint64_t seq;
    Delivery delivery;
  };
  // Takes out, in (time, seq) order from the next event (which must be a delivery), every
  // delivery that nothing queued can precede on Redis: it stops at a fence, at `until`, and at the
  // horizon above. Time does not move; steps stay queued in place. `out` is cleared first (the
  // caller reuses it: no allocation a batch).
  void take_ahead(const Bounds& bounds, std::vector<Ahead>& out);
  // Queues `reply` at exactly the place (time, seq) a delivery taken ahead had: it runs its
  // `done` when the delivery's turn comes.
  void reply_at(TrueTime time, std::uint64_t seq, std::function<void()> reply);

 private:
  // step: resume a client, a client fault; fence: see fence_at; reply: a delivery taken ahead.
  enum class Kind : std::uint8_t { step, fence, reply, delivery };
  struct Item {
    TrueTime time;
    std::uint64_t seq;
    Kind kind;
    std::function<void()> step;  // empty for deliveries
    Delivery delivery;
  };
  // The heap holds small entries (cheap to move while sifting); what they carry waits in a slot:
  // of steps_ for a step, a fence or a reply, of deliveries_ for a delivery (a step's slot is a
  // third of a delivery's: most events are steps, and taking one touches one cache line).
  struct Entry {
    TrueTime time;
    std::uint64_t seq;
    std::uint32_t slot;
    Kind kind;
  };
  template <typename T>
  struct Slots {
    std::vector<T> items;
    std::vector<std::uint32_t> free;
    std::uint32_t put(T item);
    T take(std::uint32_t slot);
  };
  struct Later {
    bool operator()(const Entry& a, const Entry& b) const {
      return a.time != b.time ? a.time > b.time : a.seq > b.seq;
    }
  };
  // One heap a kind: take_ahead takes deliveries out of theirs and reads the earliest step and
  // fence, without taking out and putting back every step on its way (1.8 steps an operation of a
  // 1,000-client lua run).
  using Heap = std::vector<Entry>;
  Heap& heap(Kind kind) { return heaps_[static_cast<std::size_t>(kind)]; }
  const Heap& heap(Kind kind) const { return heaps_[static_cast<std::size_t>(kind)]; }
  const Entry& front() const;  // the next event of all: queue not empty
  Item pop();
  void push(TrueTime time, std::uint64_t seq, Kind kind, std::function<void()> step, Delivery delivery);
  void push_entry(const Entry& entry);
  Entry pop_entry(Kind kind);  // the front of kind's heap, without moving time; its payload stays in its slot
  Item take(const Entry& entry);  // the payload, its slot freed

  std::array<Heap, 4> heaps_;
  mutable std::optional<Kind> next_kind_;  // whose front is next, once known; a pop forgets it
  Slots<std::function<void()>> steps_;
  Slots<Delivery> deliveries_;
  TrueTime now_{};
  std::uint64_t seq_ = 0;
  std::uint64_t processed_ = 0;
  TrueTime ahead_until_{};  // the latest delivery taken ahead: nothing new may be due before it
};

}  // namespace semsim
