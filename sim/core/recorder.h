// Turns what happens in the simulator into history events: numbered in order, stamped with the
// true time and the client's own clock, handed to a sink (the history file and the checker).
#pragma once

#include <functional>

#include "reports/history/event.h"
#include "sim/core/scheduler.h"

namespace semsim {

class Recorder {
 public:
  using Sink = std::function<void(const Event&)>;
  Recorder(const Scheduler& scheduler, Sink sink) : scheduler_(scheduler), sink_(std::move(sink)) {}

  void record(int client, Micros client_now, Op op, Phase phase, std::string identifier = {}, std::string detail = {}) {
    Event e;
    e.seq = seq_++;
    e.true_us = scheduler_.now().time_since_epoch().count();
    e.client = client;
    e.op = op;
    e.phase = phase;
    e.client_us = client_now.count();
    e.identifier = std::move(identifier);
    e.detail = std::move(detail);
    sink_(e);
  }
  std::uint64_t events() const { return seq_; }

 private:
  const Scheduler& scheduler_;
  Sink sink_;
  std::uint64_t seq_ = 0;
};

}  // namespace semsim
