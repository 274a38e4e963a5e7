#include "tests/reports/synthetic_history.h"

#include <queue>
#include <random>
#include <string>
#include <vector>

#include "reports/history/key_values.h"
#include "reports/history/run_rows.h"

namespace semsim {

namespace {

struct Step {
  std::int64_t t_us;
  int client;
  bool operator>(const Step& o) const { return t_us != o.t_us ? t_us > o.t_us : client > o.client; }
};

enum class Next { invoke, reply, release, release_reply };

}  // namespace

void generate_history(const SyntheticOptions& o, const std::function<void(const Event&)>& sink) {
  std::mt19937_64 rng(o.seed);
  auto between = [&](std::int64_t lo, std::int64_t hi) {  // uniform enough for a benchmark
    return lo + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(hi - lo + 1));
  };
  std::uint64_t seq = 0;
  KeyValues kv;
  kv.set("variant", "synthetic").set("mode", "virtual").set("seed", static_cast<std::int64_t>(o.seed));
  kv.set("clients", o.clients).set("limit", o.limit).set("duration_ms", 0).set("timeout_ms", 1000);
  sink(run_start_event(seq++, 0, kv));

  std::vector<Next> next(o.clients + 1, Next::invoke);
  std::vector<std::int64_t> offset_us(o.clients + 1);
  std::vector<std::uint64_t> ids(o.clients + 1, 0);
  for (int c = 1; c <= o.clients; ++c) offset_us[c] = between(-20'000, 20'000);
  std::priority_queue<Step, std::vector<Step>, std::greater<>> queue;
  for (int c = 1; c <= o.clients; ++c) queue.push({between(0, 10'000), c});
  int holders = 0;
  Event e;
  std::int64_t t = 0;
  while (static_cast<std::int64_t>(seq) < o.events - 1) {
    Step s = queue.top();
    queue.pop();
    t = s.t_us;
    int c = s.client;
    e.seq = seq++;
    e.true_us = t;
    e.client = c;
    e.client_us = t + offset_us[c];
    e.detail.clear();
    std::int64_t then = t;
    switch (next[c]) {
      case Next::invoke:
        e.op = Op::acquire;
        e.phase = Phase::invoke;
        e.identifier.clear();
        next[c] = Next::reply;
        then = t + between(200, 3'000);
        break;
      case Next::reply: {
        e.op = Op::acquire;
        e.identifier = "c" + std::to_string(c) + "-" + std::to_string(++ids[c]);
        bool admit = holders < o.limit || static_cast<int>(rng() % 1000) < o.over_admit_per_mille;
        if (static_cast<int>(rng() % 1000) < o.info_per_mille) {
          e.phase = Phase::info;
          next[c] = Next::invoke;
          then = t + between(1'000, 20'000);
        } else if (admit) {
          e.phase = Phase::ok;
          ++holders;
          next[c] = Next::release;
          then = t + between(2'000, 30'000);
        } else {
          e.phase = Phase::fail;
          next[c] = Next::invoke;
          then = t + between(1'000, 20'000);
        }
        break;
      }
      case Next::release:
        e.op = Op::release;
        e.phase = Phase::invoke;
        e.identifier = "c" + std::to_string(c) + "-" + std::to_string(ids[c]);
        --holders;
        next[c] = Next::release_reply;
        then = t + between(200, 3'000);
        break;
      case Next::release_reply:
        e.op = Op::release;
        e.phase = Phase::ok;
        e.identifier = "c" + std::to_string(c) + "-" + std::to_string(ids[c]);
        next[c] = Next::invoke;
        then = t + between(0, 10'000);
        break;
    }
    sink(e);
    queue.push({then, c});
  }
  // About three Redis commands per event: a plausible figure for the summary's throughput.
  std::int64_t commands = static_cast<std::int64_t>(seq) * 3;
  sink(run_end_event(seq, t, commands));
}

}  // namespace semsim
