#include "sim/drivers/real_time_report.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <stdexcept>

namespace semsim {

namespace {
std::string ms(std::int64_t us) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", static_cast<double>(us) / 1000.0);
  return text;
}

// The nearest-rank percentile of sorted values (p in (0, 100]).
std::int64_t percentile(const std::vector<std::int64_t>& sorted, int p) {
  if (sorted.empty()) return 0;
  const std::size_t rank = (sorted.size() * static_cast<std::size_t>(p) + 99) / 100;
  return sorted[std::max<std::size_t>(rank, 1) - 1];
}
}  // namespace

std::int64_t RealTimeReport::worst_us() const {
  return std::max({lag_max_us, step_late_max_us, proxy_late_max_us, late_lines_max_us});
}

void LagMeter::add(std::int64_t lag_us) { lags_.push_back(std::max<std::int64_t>(lag_us, 0)); }

void LagMeter::fill(RealTimeReport& r) const {
  std::vector<std::int64_t> sorted = lags_;
  std::sort(sorted.begin(), sorted.end());
  r.commands = static_cast<std::int64_t>(sorted.size());
  r.lag_p50_us = percentile(sorted, 50);
  r.lag_p99_us = percentile(sorted, 99);
  r.lag_max_us = sorted.empty() ? 0 : sorted.back();
  r.lagging = std::count_if(sorted.begin(), sorted.end(), [](std::int64_t l) { return l > RealTimeReport::kLaggingUs; });
}

std::string describe(const RealTimeReport& r) {
  return "unplanned: command lag p50 " + ms(r.lag_p50_us) + " ms, p99 " + ms(r.lag_p99_us) + " ms, max " +
         ms(r.lag_max_us) + " ms (" + std::to_string(r.lagging) + " of " + std::to_string(r.commands) + " over " +
         ms(RealTimeReport::kLaggingUs) + " ms); semsim's steps late by at most " + ms(r.step_late_max_us) +
         " ms; proxies by at most " + ms(r.proxy_late_max_us) + " ms; " + std::to_string(r.late_lines) +
         " late lines" + (r.late_lines ? " (at most " + ms(r.late_lines_max_us) + " ms)" : "") +
         (as_planned(r) ? std::string() : "; NOT AS PLANNED: " + why_not_as_planned(r));
}

bool as_planned(const RealTimeReport& r) { return r.never_ran == 0 && r.overtaken == 0; }

std::string why_not_as_planned(const RealTimeReport& r) {
  if (as_planned(r)) return "";
  std::string why;
  if (r.never_ran) why = std::to_string(r.never_ran) + " planned command(s) never started";
  if (r.overtaken)
    why += (why.empty() ? "" : ", ") + std::to_string(r.overtaken) + " started only after a later fault of its client's plan";
  return why + " (the first: " + r.first_off_plan + ")";
}

std::string stall_warning(const RealTimeReport& r, std::int64_t timeout_us) {
  const std::int64_t worst = r.worst_us();
  if (timeout_us <= 0 || worst * 10 < timeout_us) return "";
  return "warning: an unplanned delay of " + ms(worst) + " ms, " + std::to_string(worst * 100 / timeout_us) +
         "% of the semaphore's timeout: this machine's load, and not only the library, may be behind what the run "
         "found (see realtime.csv)";
}

std::string real_time_csv_header() {
  return "commands,lag_p50_ms,lag_p99_ms,lag_max_ms,lagging,step_late_max_ms,proxy_late_max_ms,late_lines,"
         "late_lines_max_ms,restarts,server_fault_ms,never_ran,overtaken";
}

std::string real_time_csv_row(const RealTimeReport& r) {
  return std::to_string(r.commands) + "," + ms(r.lag_p50_us) + "," + ms(r.lag_p99_us) + "," + ms(r.lag_max_us) + "," +
         std::to_string(r.lagging) + "," + ms(r.step_late_max_us) + "," + ms(r.proxy_late_max_us) + "," +
         std::to_string(r.late_lines) + "," + ms(r.late_lines_max_us) + "," + std::to_string(r.restarts) + "," +
         std::to_string(r.server_fault_ms) + "," + std::to_string(r.never_ran) + "," + std::to_string(r.overtaken);
}

void write_real_time_csv(const std::string& path, const RealTimeReport& r) {
  std::ofstream out(path, std::ios::trunc);
  out << real_time_csv_header() << "\n" << real_time_csv_row(r) << "\n";
  if (!out.flush()) throw std::runtime_error("cannot write " + path + " (disk full, or not writable)");
}

}  // namespace semsim
