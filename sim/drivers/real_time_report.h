// What a driver run did not plan, measured beside what it found (reports/DEFINITIONS.md, "Unplanned
// lag of a driver run"): a loaded machine that stalls a driver, or semsim itself, stretches holds
// and delays requests beyond the plan, and must not pass that off as the library's doing.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace semsim {

struct RealTimeReport {
  std::int64_t commands = 0;          // commands semsim wrote whose invoke it saw (planned pauses excluded)
  std::int64_t lag_p50_us = 0, lag_p99_us = 0, lag_max_us = 0;  // write -> the driver's invoke
  std::int64_t lagging = 0;           // commands whose lag passed kLaggingUs
  std::int64_t step_late_max_us = 0;  // semsim's own steps (commands, faults): run after their instant
  std::int64_t proxy_late_max_us = 0; // the proxies: data sent after its due instant
  std::int64_t late_lines = 0;        // driver lines that came after the history had passed their instant
  std::int64_t late_lines_max_us = 0; // by how much, at most (each is placed at the last instant written)
  std::int64_t restarts = 0;          // fresh driver processes after crashes
  std::int64_t server_fault_ms = 0;   // semsim restarting or failing over Redis (planned: its steps wait)
  // The plan as it happened (DEFINITIONS.md, "Unplanned lag of a driver run"): planned commands the
  // driver never started although due well before the end, and those a later fault of their
  // client's plan (a pause, a crash, a jump, a partition) overtook, with the first of each said.
  std::int64_t never_ran = 0;
  std::int64_t overtaken = 0;
  std::string first_off_plan;

  static constexpr std::int64_t kLaggingUs = 100'000;
  // The largest unplanned delay of any kind.
  std::int64_t worst_us() const;
};

// Collects the lags of one run.
class LagMeter {
 public:
  void add(std::int64_t lag_us);
  // Fills the lag fields of `report`.
  void fill(RealTimeReport& report) const;

 private:
  std::vector<std::int64_t> lags_;
};

// One line for people: "unplanned: command lag p50 0.4 ms, p99 2.1 ms, max 3.0 ms (0 of 41 over
// 100 ms); semsim's steps late by at most 1.2 ms; proxies by at most 0.8 ms; 0 late lines".
std::string describe(const RealTimeReport& r);
// Whether the run staged what its plan said: every planned command started, before the client's
// next planned fault. A run that did not is no evidence for or against what its plan stages.
bool as_planned(const RealTimeReport& r);
// Why not ("2 planned commands never started (the first: ...)"); "" when it went as planned.
std::string why_not_as_planned(const RealTimeReport& r);
// A warning when the worst unplanned delay is a tenth of `timeout_us` or more; empty otherwise.
std::string stall_warning(const RealTimeReport& r, std::int64_t timeout_us);
// realtime.csv: a header and one row.
void write_real_time_csv(const std::string& path, const RealTimeReport& r);
std::string real_time_csv_header();
std::string real_time_csv_row(const RealTimeReport& r);

}  // namespace semsim
