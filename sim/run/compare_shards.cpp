#include "sim/run/compare_shards.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "reports/checks/summary_csv.h"
#include "reports/checks/sweep_stats.h"
#include "reports/history/output_file.h"
#include "reports/history/text_format.h"
#include "reports/outputs/charts.h"
#include "reports/outputs/sweep_report.h"
#include "sim/redis/shipped_files.h"
#include "sim/run/contained_paths.h"
#include "sim/scenario/sweep_parameter.h"
#include "sim/run/version.h"

namespace semsim {

namespace fs = std::filesystem;

namespace {

// The shortest text that reads back as the same double.
std::string exact(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

template <typename Number>
Number number(const std::string& text, const std::string& where) {
  Number v{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size())
    throw std::invalid_argument(where + ": not a number: " + text);
  return v;
}

Verdict verdict_of(const std::string& text, const std::string& where) {
  for (const Verdict v : {Verdict::valid, Verdict::invalid, Verdict::unknown})
    if (text == to_string(v)) return v;
  throw std::invalid_argument(where + ": not a verdict: " + text);
}

// A merged run: its row as the shard wrote it, its metrics, and where its folder is.
struct MergedRow {
  std::string line;
  WrittenSweepRun written;
  RunVerdict verdict;  // the verdict table's view of the run
  fs::path from;                // the shard's folder
  fs::path folder;              // the run's, relative to it and to --out
  std::vector<fs::path> files;  // the run folder's regular files, relative to the shard's folder
};

// The swept parameter names merge's files (compare_PARAM.csv): a plain word, nothing a path could hide in.
const std::string& parameter_of(const Manifest& m) {
  const std::string& p = m.get("report", "parameter");
  const bool plain = !p.empty() && std::all_of(p.begin(), p.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  });
  if (!plain) throw std::invalid_argument(m.file() + ": report.parameter = " + p + ": not a parameter's name");
  return p;
}

// Reads one shard's runs (manifest) and rows (compare_PARAM.csv) into `rows`, by index.
void read_shard(const ShardDir& shard, const std::string& parameter, std::vector<std::optional<MergedRow>>& rows) {
  const Manifest& m = shard.manifest;
  const std::vector<std::string> runs = m.all("runs", "run");
  const auto made = static_cast<std::int64_t>(runs.size());
  if (number<std::int64_t>(m.get("covered", "made"), m.file() + ": covered.made") != made)
    throw std::invalid_argument(m.file() + ": covered.made does not count its runs");
  if (made != shard.shard.owned(static_cast<std::int64_t>(rows.size())))
    throw std::invalid_argument(m.file() + ": " + std::to_string(made) + " runs, but shard " + shard.shard.text() +
                                " of the sweep's " + std::to_string(rows.size()) + " makes " +
                                std::to_string(shard.shard.owned(static_cast<std::int64_t>(rows.size()))));
  const std::string csv = (fs::path(shard.dir) / ("compare_" + parameter + ".csv")).string();
  if (!fs::exists(fs::symlink_status(csv))) throw std::invalid_argument(csv + ": missing (the shard's rows)");
  std::ifstream in(regular_file_inside(shard.dir, "compare_" + parameter + ".csv"));
  if (!in) throw std::invalid_argument(csv + ": cannot be read");
  const std::string header = sweep_csv_header();
  std::string line;
  if (!std::getline(in, line) || line != header)
    throw std::invalid_argument(csv + ": its header is not this semsim's compare_" + parameter + ".csv header");
  const std::vector<std::string> columns = split_csv_line(header);
  std::vector<std::size_t> metric_column;
  for (const SweepMetric& metric : sweep_metrics())
    for (std::size_t c = 0; c < columns.size(); ++c)
      if (columns[c] == metric.name) metric_column.push_back(c);
  if (metric_column.size() != sweep_metrics().size()) throw std::logic_error("a sweep metric without its CSV column");
  const auto column = [&](std::string_view name) {
    const auto c = std::find(columns.begin(), columns.end(), name);
    if (c == columns.end()) throw std::logic_error("compare_PARAM.csv without its " + std::string(name) + " column");
    return static_cast<std::size_t>(c - columns.begin());
  };
  const std::size_t over_admission = column("over_admission"), safety = column("safety"), liveness = column("liveness");

  for (std::size_t j = 0; j < runs.size(); ++j) {
    const std::string where = m.file() + ": run " + std::to_string(j + 1);
    const std::vector<std::string> f = split_csv_line(runs[j]);  // index,value,folder,variant
    if (f.size() != 4) throw std::invalid_argument(where + ": expected index,value,folder,variant");
    const auto index = number<std::int64_t>(f[0], where);
    if (index < 0 || index >= static_cast<std::int64_t>(rows.size()) || !shard.shard.owns(index))
      throw std::invalid_argument(where + ": run " + f[0] + " is not one of shard " + shard.shard.text() + "'s");
    if (!std::getline(in, line))
      throw std::invalid_argument(csv + ": " + std::to_string(j) + " rows, its shard.ini lists " +
                                  std::to_string(runs.size()) + " runs");
    std::vector<std::string> cells;
    try {
      cells = split_csv_line(line);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(csv + ":" + std::to_string(j + 2) + ": " + e.what());
    }
    if (cells.size() != columns.size())
      throw std::invalid_argument(csv + ":" + std::to_string(j + 2) + ": " + std::to_string(cells.size()) + " fields, the header has " +
                                  std::to_string(columns.size()));
    const std::string at = csv + ":" + std::to_string(j + 2);
    const fs::path folder = relative_path(f[2], where + ": its folder");
    MergedRow row{line,
                  {f[3], number<double>(f[1], where), {}},
                  {f[3], number<double>(f[1], where), number<int>(cells[over_admission], at + ": over_admission"),
                   verdict_of(cells[safety], at + ": safety"), verdict_of(cells[liveness], at + ": liveness")},
                  fs::path(shard.dir),
                  folder,
                  files_of_folder(shard.dir, folder)};
    for (std::size_t c : metric_column) row.written.metrics.push_back(metric_from_text(cells[c]));
    rows[static_cast<std::size_t>(index)] = std::move(row);
  }
  if (std::getline(in, line)) throw std::invalid_argument(csv + ": more rows than the runs its shard.ini lists");
}

}  // namespace

Manifest compare_manifest(const CompareShardInfo& info) {
  Manifest m = shard_manifest("compare", info.shard, info.redis, info.redis_version);
  std::istringstream ini(info.run_ini);
  for (std::string line; std::getline(ini, line);)
    if (const std::size_t eq = line.find(" = "); eq != std::string::npos)
      m.add("options", line.substr(0, eq), line.substr(eq + 3));
  m.add("options", "variants", info.variants);
  m.add("options", "sweep", info.sweep);
  m.add("options", "seeds", info.seeds);
  m.add("options", "mode", info.mode);
  m.add("options", "redis", info.redis_kind);
  m.add("covered", "runs", std::to_string(info.runs));
  m.add("covered", "made", std::to_string(info.made.size()));
  m.add("report", "parameter", info.parameter);
  m.add("report", "in_ms", info.in_ms ? "yes" : "no");
  m.add("report", "command", info.command);
  m.add("report", "first_seed", std::to_string(info.first_seed));
  m.add("report", "charts", info.charts ? "yes" : "no");
  std::istringstream common(info.common_options);
  for (std::string line; std::getline(common, line);) m.add("report", "common", line);
  for (const ShardRun& r : info.made)
    m.add("runs", "run", std::to_string(r.index) + "," + exact(r.value) + "," + csv_field(r.folder) + "," + csv_field(r.variant));
  return m;
}

CompareMerge merge_compare_shards(const ShardSet& set, const std::string& out, std::ostream& warn, const PromiseJudge& judge) {
  const Manifest& any = set.first().manifest;
  const std::string parameter = parameter_of(any);
  CompareMerge merge;
  merge.runs = number<std::int64_t>(any.get("covered", "runs"), any.file() + ": covered.runs");
  // Before a vector that size: each shard makes about runs / N (read_shard checks it exactly).
  const auto made = static_cast<std::int64_t>(any.all("runs", "run").size());
  if (merge.runs < 1 || merge.runs > (made + 1) * set.count)
    throw std::invalid_argument(any.file() + ": covered.runs = " + std::to_string(merge.runs) + " does not fit its " +
                                std::to_string(made) + " runs of " + std::to_string(set.count) + " shards");
  std::vector<std::optional<MergedRow>> rows(static_cast<std::size_t>(merge.runs));
  for (const auto& shard : set.by_index)
    if (shard) read_shard(*shard, parameter, rows);

  // Everything read is checked; now the writing, inside --out only: no link where merge writes.
  fs::create_directories(out);
  for (const fs::directory_entry& e : fs::directory_iterator(out))
    if (const std::string name = e.path().filename().string();
        e.is_symlink() && (name.starts_with("compare_") || name == "report.html"))
      inside(out, name);  // refuses it, by name
  std::vector<WrittenSweepRun> written;
  std::vector<RunVerdict> verdicts;
  merge.csv = inside(out, "compare_" + parameter + ".csv").string();
  std::ofstream csv(merge.csv);
  csv << sweep_csv_header() << "\n";
  for (const auto& row : rows)
    if (row) {
      csv << row->line << "\n";
      written.push_back(row->written);
      verdicts.push_back(row->verdict);
      verdicts.back().folder = row->folder.generic_string();  // copied into --out: report.html links its timeline
      for (const fs::path& file : row->files) copy_inside(row->from, out, file);
    }
  check_written(csv, merge.csv);
  merge.merged = static_cast<std::int64_t>(written.size());
  if (!set.missing().empty())
    merge.partial = "partial (semsim merge --partial): " + set.missing_text() + " not given; " +
                    std::to_string(merge.merged) + " of the sweep's " + std::to_string(merge.runs) +
                    " runs merged, and the statistics and verdicts are over these alone";

  const std::vector<PointStat> stats = sweep_stats(written);
  merge.stats = inside(out, "compare_" + parameter + "_stats.csv").string();
  std::ofstream stats_csv(merge.stats);
  stats_csv << sweep_stats_csv_header() << "\n";
  for (const PointStat& s : stats) stats_csv << sweep_stats_csv_row(parameter, s) << "\n";
  check_written(stats_csv, merge.stats);

  const bool in_ms = any.get("report", "in_ms") == "yes";
  std::string common;
  for (const std::string& line : any.all("report", "common")) common += line + "\n";
  const int seeds = number<int>(any.get("options", "seeds"), any.file() + ": options.seeds");
  const std::string caption = sweep_caption(common, parameter, seeds);
  const std::vector<VariantPromise> promises = judge ? judge(verdicts, out) : std::vector<VariantPromise>{};
  const bool charts = any.get("report", "charts") == "yes" &&
                      draw_comparison_charts(stats, in_ms ? parameter + " (ms)" : parameter, out, warn, caption, promises);
  std::string command = any.get("report", "command") + " --out " + shell_word(out);
  if (!merge.partial.empty()) command += "\n# " + merge.partial;
  SweepReport report{parameter,
                           in_ms,
                           command,
                           any.get("", "version"),
                           set.redis(),
                           common,
                           seeds,
                           number<std::uint64_t>(any.get("report", "first_seed"), any.file() + ": report.first_seed"),
                           charts,
                           stats,
                           verdicts,
                           caption,
                           doc_path("reports/DEFINITIONS.md").string()};
  report.partial = merge.partial;
  report.meaning = sweep_meaning(parameter);
  report.promises = promises;
  write_sweep_report(out, report);
  merge.report = (fs::path(out) / "report.html").string();
  return merge;
}

}  // namespace semsim
