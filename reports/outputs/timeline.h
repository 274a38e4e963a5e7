// timeline.html: who held a permit when, as one self-contained page (its script and data inline,
// nothing loaded from the network) that a person can zoom into.
//
// One row per client, labelled with its clock offset (mean of client_us - true_us at its acquire
// invokes): holds as blue bars, red where more than `limit` held (possible holds after an info
// acquire dashed; the holds named in a kept episode's witness outlined), and where the run has a
// timeout, the lease each hold asked Redis for (last ok'd acquire or refresh invoke + timeout): a
// hold that outlives its lease shows the rest striped, "held past its lease", from a black tick
// where the lease ended. Pauses are a purple line under the bar, crashes black crosses,
// clock jumps triangles. Above the rows, the holders lane: the most holders per bucket, the limit,
// red above it, and the samples where clients believed in permits Redis no longer counted. Faults
// of Redis are marked across every row (spans for a pause and the writes a failover lost).
//
// Zoom with the wheel (or +/-), pan by dragging (or the arrow keys), brush a range on the holders
// lane to zoom to it; "first / next over-admission" jump to each episode and zoom to it. Ticks
// are at round steps (1, 2, 5 x 10^k) with their unit. At most `max_clients` rows (the lowest
// ids, and beyond them the clients of a kept episode's witness; the page says how many were left
// out): every row is labelled, and the bars are drawn for the
// rows in sight, so that a redraw costs what a screen shows. Runs over several masters get a lane
// per master above the clients (its faults, the clients cut from it, the permits it voted for). Holds are kept exactly up to `max_bars`; beyond,
// holds of one client closer than a gap merge (the page says how close), so the page stays small.
//
// The page is built from the events as they come, the way the Checker judges them: `semsim run`
// feeds a TimelineBuilder from its sink and writes the page once the Summary exists (no second
// read of history.csv); write_timeline_html does the same from a file (analyze, tests).
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "reports/checks/summary.h"
#include "reports/history/event.h"

namespace semsim {

// Rows a page draws: every client of a run up to this many (a label each, bars for those in sight).
inline constexpr int kTimelineMaxClients = 2000;

class TimelineBuilder {
 public:
  // Keeps what it needs for the rows of at most `max_clients` clients (those the page will draw,
  // and a bounded number of candidates), so its memory does not grow with the number of clients.
  // `history_path`: the file the same events are written to. The clients beyond `max_clients` that a
  // kept episode's witness names get their rows too, read back from it when the page is written (a
  // second read, only then); without it they are left out with the others.
  explicit TimelineBuilder(int max_clients = kTimelineMaxClients, std::string history_path = "");
  ~TimelineBuilder();
  TimelineBuilder(const TimelineBuilder&) = delete;
  TimelineBuilder& operator=(const TimelineBuilder&) = delete;

  // Every event of the history, in its order (true_us, seq).
  void add(const Event& e);
  // The page, with `s` the Summary of the same events (its start, end, timeout, episodes and
  // clients). Once: it moves the rows into the page.
  void write(const std::string& html_path, const Summary& s, std::size_t max_bars = 200'000);
  // The clients it keeps a row for now (timeline.cpp: at most max_clients that acquire, and those
  // below them that have not acquired yet).
  std::size_t rows_held() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The page of a history file: reads it into a TimelineBuilder.
void write_timeline_html(const std::string& history_path, const std::string& html_path,
                         const Summary& s, int max_clients = kTimelineMaxClients, std::size_t max_bars = 200'000);

}  // namespace semsim
