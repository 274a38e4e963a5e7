// The streaming checker: feed it a history's events in (true_us, seq) order, one at a time, and
// ask for the Summary at any point. Memory grows with the number of clients and of pending or
// held permits, never with the length of the history. Definitions: reports/DEFINITIONS.md.
//
//   Checker checker;                 // limit etc. from the first (run) row
//   for (const Event& e : events) checker.add(e);
//   Summary s = checker.finish();
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "reports/checks/fifo.h"
#include "reports/checks/holds.h"
#include "reports/checks/leases.h"
#include "reports/checks/liveness.h"
#include "reports/checks/master_votes.h"
#include "reports/checks/summary.h"
#include "reports/checks/waits.h"
#include "reports/history/event.h"
#include "reports/history/history_error.h"

namespace semsim {

struct CheckOptions {
  std::optional<int> limit;                      // overrides the run row's limit
  std::optional<std::int64_t> liveness_bound_us; // default: timeout_ms + 1000 ms, or 10 s
  std::size_t max_episodes_kept = 100;           // all are counted; the first ones are described
  std::size_t holders_points = 2000;             // the series keeps 2000..4000 points
};

// Run statistics the history may not hold. A value given here wins over the final run row's.
struct RunStats {
  std::optional<std::int64_t> commands;
  std::optional<double> wall_s;
  // Pipelines sent and answered: how the run travelled, not what happened, so never in the history.
  std::optional<std::int64_t> round_trips;
};

class Checker {
 public:
  explicit Checker(CheckOptions options = {});
  // Not copied: its trackers view its rows (a copy's would be the original's).
  Checker(const Checker&) = delete;
  Checker& operator=(const Checker&) = delete;
  Checker(Checker&&) = default;  // the rows' buffer moves with them
  Checker& operator=(Checker&&) = default;

  // Throws HistoryError on an event out of (true_us, seq) order, a negative client id, a run
  // row whose detail is not key=value pairs or whose values are out of range (run_rows.h), a
  // run row with the run's options (phase info) that is not the first row, or the first non-run
  // event when no limit is known.
  void add(const Event& e);

  // Whether the history had its first row, the run's options (op=run, phase=info): a history
  // without it is refused by analyze_history.
  bool saw_run_row() const { return saw_run_row_; }

  // The summary as of the events added so far (the Checker can go on afterwards).
  Summary finish(const RunStats& stats = {}) const;

 private:
  // The checker's own part of a client's row.
  struct ClientState {
    // Acquires invoked without an outcome yet: an outcome pairs with the earliest (first in,
    // first out). The earliest one's invoke is here; the others' (overlapping acquires, rare) in
    // later_invokes_.
    std::uint32_t pending = 0;
    std::int64_t invoke_us = 0;
    double offset_sum_us = 0;  // a double: a sum of many large offsets must not overflow
    // ClientStats's. attempts also names the pending acquire to the FIFO tracker (1, 2, ...).
    std::int64_t attempts = 0, granted = 0, rejected = 0, unknown = 0;
  };
  // A client's row: its part of every tracker that an acquire's invoke and outcome touch, so that
  // those rows (most of a history) touch the row's first two cache lines, not a line a tracker
  // (callgrind on checker_bench: 2.9 -> 1.7 L1 misses an event). The trackers view their parts
  // here (client_parts.h); the holds, touched at grants and releases only, keep their own.
  struct alignas(64) Row {
    ClientState state;
    FifoTracker::Client fifo;
    WaitTracker::Client waits;
    LivenessTracker::Client liveness;
    LeaseTracker::Client leases;  // its outstanding acquires first: still in the second line
  };
  Row& client(int id) {
    if (static_cast<unsigned>(id) < rows_.size()) return rows_[static_cast<unsigned>(id)];
    return new_client(id);
  }
  Row& new_client(int id);  // a client id not seen yet: checked, then its row
  void advance_to(const Event& e);  // ordering checked, time moved, the instant before closed
  void read_run_row(const Event& e);
  // The instant before now is over: holders counted, liveness judged (finish closes copies).
  void close_instant(HoldTracker& holds, LivenessTracker& liveness) const;
  void on_acquire(const Event& e, Row& row);
  // The invoke an acquire outcome pairs with: the client's earliest pending one (c.pending > 0).
  std::int64_t take_invoke(ClientState& c, int client) {
    const std::int64_t t = c.invoke_us;
    if (--c.pending > 0) next_invoke(c, client);
    return t;
  }
  [[gnu::noinline]] void later_invoke(int client, std::int64_t t_us);  // one more pending behind the earliest
  [[gnu::noinline]] void next_invoke(ClientState& c, int client);  // the next pending one moves up
  void count_operation(const Event& e);
  [[gnu::noinline]] void add_other(const Event& e);  // a row that is not an acquire
  void on_sample(const Event& e);
  void on_server_fault(const Event& e);
  void on_votes(const Event& e);

  CheckOptions options_;
  Summary meta_;  // run metadata and outcome counts, filled as events come
  bool have_limit_ = false;
  bool saw_run_row_ = false;
  bool started_ = false;
  std::int64_t now_us_ = 0;
  std::uint64_t last_seq_ = 0;
  bool granted_now_ = false;
  // What the last instant closed ended with (close_instant skips an instant that ends the same).
  struct InstantEnd {
    int holders, possible, waiting;
    bool operator==(const InstantEnd&) const = default;
  };
  InstantEnd last_closed_{-1, -1, -1};
  std::optional<std::int64_t> row_commands_;
  std::optional<double> row_wall_s_;

  std::vector<Row> rows_;  // by client id
  std::map<int, std::deque<std::int64_t>> later_invokes_;  // by client: see ClientState
  HoldTracker holds_;
  // Runs of several masters (the run row's masters= and quorum=): each permit's votes.
  int masters_ = 1, quorum_ = 1;
  MasterVotes votes_;
  // A driver run (variant=driver:...): its library's rows say no votes, whatever its masters.
  bool driver_ = false;
  FifoTracker fifo_;
  WaitTracker waits_;
  LivenessTracker liveness_;
  LeaseTracker leases_;
  LatencyHistogram latency_;
};

}  // namespace semsim
