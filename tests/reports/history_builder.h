// Test helper: builds a history as Event values with increasing seq, starting with a run row.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "reports/checks/checker.h"
#include "reports/history/event.h"
#include "reports/history/key_values.h"
#include "reports/history/run_rows.h"

namespace semsim::test {

class HistoryBuilder {
 public:
  explicit HistoryBuilder(int limit, int clients = 4, std::int64_t timeout_ms = 1000) {
    KeyValues kv;
    kv.set("variant", "basic").set("mode", "virtual").set("seed", 7).set("clients", clients);
    kv.set("limit", limit).set("duration_ms", 1000).set("timeout_ms", timeout_ms);
    events.push_back(run_start_event(seq_++, 0, kv));
  }

  // Times in ms for readability; client_us = true time + offset_ms.
  HistoryBuilder& at(double t_ms, int client, Op op, Phase phase, std::string id = "",
                     double offset_ms = 0) {
    Event e;
    e.seq = seq_++;
    e.true_us = std::llround(t_ms * 1000);  // 1101.001 ms is 1101001 us, not 1101000
    e.client = client;
    e.op = op;
    e.phase = phase;
    e.client_us = e.true_us + std::llround(offset_ms * 1000);
    e.identifier = std::move(id);
    events.push_back(std::move(e));
    return *this;
  }
  // acquire invoke at t0, ok at t1, release invoke at t2.
  HistoryBuilder& hold(int client, double t0, double t1, double t2, std::string id = "") {
    at(t0, client, Op::acquire, Phase::invoke);
    at(t1, client, Op::acquire, Phase::ok, id);
    at(t2, client, Op::release, Phase::invoke, id);
    return *this;
  }
  HistoryBuilder& end(double t_ms, std::int64_t commands = 0) {
    events.push_back(run_end_event(seq_++, std::llround(t_ms * 1000), commands));
    return *this;
  }

  // The events sorted by (true_us, seq), as a history file would hold them.
  std::vector<Event> sorted() const;
  Summary check(CheckOptions options = {}) const {
    Checker c(options);
    for (const Event& e : sorted()) c.add(e);
    return c.finish();
  }

  std::vector<Event> events;

  static CheckOptions bound_ms(std::int64_t ms) { return bound_us(ms * 1000); }
  static CheckOptions bound_us(std::int64_t us) {
    CheckOptions o;
    o.liveness_bound_us = us;
    return o;
  }

 private:
  std::uint64_t seq_ = 0;
};

inline std::vector<Event> HistoryBuilder::sorted() const {
  std::vector<Event> out = events;
  std::stable_sort(out.begin(), out.end(), [](const Event& a, const Event& b) {
    return a.true_us != b.true_us ? a.true_us < b.true_us : a.seq < b.seq;
  });
  return out;
}

}  // namespace semsim::test
