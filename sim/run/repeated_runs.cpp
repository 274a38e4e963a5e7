#include "sim/run/repeated_runs.h"

#include <filesystem>
#include <fstream>
#include <ostream>

#include "reports/checks/summary_csv.h"
#include "reports/history/output_file.h"

namespace semsim {

namespace fs = std::filesystem;

std::string RepeatedRuns::verdict() const {
  std::string text = "invalid (over-admission) in " + std::to_string(invalid) + " of " + std::to_string(runs.size()) +
                     " runs, unknown in " + std::to_string(unknown);
  if (off_plan || stalled)
    text += "; weak evidence: " + std::to_string(off_plan) + " not as planned, " + std::to_string(stalled) +
            " stalled by unplanned delays (each run's line says which; realtime columns of repeat.csv)";
  return text;
}

std::string describe_repeat(const RunOptions& options, const RunOutput& run) {
  const Summary& s = run.summary;
  std::string text = "seed " + std::to_string(options.seed) + ": " + std::string(to_string(s.safety)) +
                     ", over_admission " + std::to_string(s.over_admission) + ", granted " + std::to_string(s.granted);
  if (run.real_time) {
    text += "; unplanned at most " + std::to_string(run.real_time->worst_us() / 1000) + " ms";
    if (!stall_warning(*run.real_time, options.timeout.count()).empty()) text += " (STALLED)";
    if (!as_planned(*run.real_time)) text += "; NOT AS PLANNED: " + why_not_as_planned(*run.real_time);
  }
  if (!run.result.completed) text += "; stopped early: " + run.result.stop_reason;
  return text;
}

RepeatedRuns repeat_run(const RunOptions& options, int times, RedisSession& redis, std::ostream& log,
                        const std::function<void(const RunOptions&, const RunOutput&)>& each) {
  RepeatedRuns out;
  fs::create_directories(options.out);
  const std::string path = (fs::path(options.out) / "repeat.csv").string();
  std::ofstream csv(path, std::ios::trunc);
  bool header = false;
  for (int i = 0; i < times; ++i) {
    RunOptions one = options;
    one.seed = options.seed + static_cast<std::uint64_t>(i);
    one.out = (fs::path(options.out) / ("seed-" + std::to_string(one.seed))).string();
    RunOutput run = execute_run(one, redis, log);
    if (!header) {
      csv << summary_csv_header() << (run.real_time ? "," + real_time_csv_header() : "") << "\n";
      header = true;
    }
    csv << summary_csv_row(run.summary) << (run.real_time ? "," + real_time_csv_row(*run.real_time) : "") << "\n";
    check_written(csv, path);
    out.invalid += run.summary.safety == Verdict::invalid;
    out.unknown += run.summary.safety == Verdict::unknown;
    if (run.real_time) {
      out.off_plan += !as_planned(*run.real_time);
      out.stalled += !stall_warning(*run.real_time, one.timeout.count()).empty();
    }
    const bool completed = run.result.completed;
    out.runs.push_back(std::move(run));
    if (each) each(one, out.runs.back());
    if (!completed) break;
  }
  return out;
}

}  // namespace semsim
