#include "sim/search/search_shards.h"

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "reports/history/output_file.h"
#include "sim/run/contained_paths.h"

namespace semsim {

namespace fs = std::filesystem;

namespace {

std::string on_off(bool b) { return b ? "on" : "off"; }

std::string violation_name(Violation v) {
  switch (v) {
    case Violation::safety: return "safety";
    case Violation::liveness: return "liveness";
    case Violation::lease_honesty: return "lease_honesty";
    default: return "none";
  }
}

std::int64_t count(const Manifest& m, const char* key) {
  const std::string& text = m.get("exercise", key);
  try {
    std::size_t used = 0;
    const long long v = std::stoll(text, &used);
    if (used == text.size() && v >= 0) return v;
  } catch (const std::exception&) {
  }
  throw std::invalid_argument(m.file() + ": exercise." + key + " = " + text + ": not a count");
}

int whole(const Manifest& m, const char* section, const char* key) {
  const std::string& text = m.get(section, key);
  try {
    std::size_t used = 0;
    const int v = std::stoi(text, &used);
    if (used == text.size()) return v;
  } catch (const std::exception&) {
  }
  throw std::invalid_argument(m.file() + ": " + section + "." + key + " = " + text + ": not a whole number");
}

}  // namespace

Manifest search_manifest(const SearchSettings& s, const SearchReport& r, const std::string& redis_described,
                         const std::string& redis_version, const std::string& unsharded_command) {
  Manifest m = shard_manifest("check", s.shard, redis_described, redis_version);
  // What the cases depend on: shards of searches that differ in any of these do not merge.
  m.add("options", "variant", s.variant);
  m.add("options", "cases", std::to_string(s.cases));
  m.add("options", "seed", std::to_string(s.seed));
  m.add("options", "max-clients", std::to_string(s.max_clients));
  m.add("options", "preconditions", on_off(s.preconditions));
  m.add("options", "allow-delay", on_off(s.allow_delay));
  m.add("options", "server-jumps", on_off(s.server_jumps));
  m.add("options", "server-faults", on_off(s.server_faults));
  m.add("options", "lock-timeout-us", std::to_string(s.lock_timeout_us));
  m.add("options", "redis", redis_described.starts_with("embedded") ? "embedded" : "given (--redis)");
  // What it judged: every case it owns (numbers K, K + N, ...) up to judged_through.
  m.add("covered", "owned", std::to_string(s.shard.owned(s.cases)));
  m.add("covered", "judged_through", std::to_string(r.judged_through));
  m.add("covered", "cases_run", std::to_string(r.cases_run));
  m.add("covered", "discarded", std::to_string(r.discarded));
  m.add("covered", "seconds", std::to_string(r.seconds));
  // What those cases exercised (exercise.h): the merge applies the rule to the sums.
  m.add("exercise", "acquires", std::to_string(r.exercise.acquires));
  m.add("exercise", "granted", std::to_string(r.exercise.granted));
  m.add("exercise", "rejected", std::to_string(r.exercise.rejected));
  m.add("exercise", "acquire_unknown", std::to_string(r.exercise.acquire_unknown));
  m.add("exercise", "operations", std::to_string(r.exercise.operations));
  m.add("exercise", "unknown", std::to_string(r.exercise.unknown));
  m.add("exercise", "first_unknown", r.exercise.first_unknown);
  m.add("result", "status", !r.error.empty() ? "error" : r.found ? "violation" : "none");
  if (!r.error.empty()) m.add("result", "error", r.error);
  if (r.found) {
    m.add("result", "first_failure_case", std::to_string(r.first_failure_case));
    m.add("result", "violation", violation_name(r.violation));
    m.add("result", "violation_text", std::string(to_string(r.violation)));
    m.add("result", "detail", r.minimal_outcome.detail);
    m.add("result", "first", describe(r.first));
    m.add("result", "minimal", describe(r.minimal));
    m.add("result", "shrink_steps", std::to_string(r.shrink_steps));
    m.add("result", "shrink_tries", std::to_string(r.shrink_tries));
    m.add("result", "replay_failed", r.replay_failed ? "yes" : "no");
  }
  m.add("report", "reproduce", unsharded_command);
  return m;
}

SearchCoverage search_coverage(int cases, const std::vector<std::optional<ShardCoverage>>& by_index) {
  SearchCoverage c;
  const int n = static_cast<int>(by_index.size());
  for (int k = 1; k <= n; ++k)
    if (const auto& s = by_index[static_cast<std::size_t>(k - 1)]; s && s->first_failure)
      if (!c.first_failure || *s->first_failure < *c.first_failure) {
        c.first_failure = s->first_failure;
        c.found_by = k;
      }
  const int last = c.first_failure ? *c.first_failure - 1 : cases;  // every case up to here must have been judged
  for (int k = 1; k <= n; ++k) {
    const auto& s = by_index[static_cast<std::size_t>(k - 1)];
    const int through = s ? s->judged_through : 0;
    // The first case of shard k numbered above `through`: k, k + n, k + 2n, ...
    const int first = through < k ? k : k + ((through - k) / n + 1) * n;
    if (first <= last) c.gaps.push_back({k, first, (last - first) / n + 1});
  }
  return c;
}

SearchMerge merge_search_shards(const ShardSet& set) {
  SearchMerge m;
  const Manifest& any = set.first().manifest;
  m.cases = whole(any, "options", "cases");
  m.reproduce = any.get("report", "reproduce");
  std::vector<std::optional<ShardCoverage>> coverage(set.by_index.size());
  for (std::size_t i = 0; i < set.by_index.size(); ++i) {
    if (!set.by_index[i]) continue;
    const Manifest& s = set.by_index[i]->manifest;
    ShardCoverage c{whole(s, "covered", "judged_through"), std::nullopt};
    if (s.get("result", "status") == "violation") c.first_failure = whole(s, "result", "first_failure_case");
    if (c.judged_through > m.cases || (c.first_failure && *c.first_failure != c.judged_through))
      throw std::invalid_argument(s.file() + ": covered.judged_through = " + std::to_string(c.judged_through) +
                                  " does not fit its result");
    m.cases_run += whole(s, "covered", "cases_run");
    Exercise& e = m.exercise;
    e.acquires += count(s, "acquires");
    e.granted += count(s, "granted");
    e.rejected += count(s, "rejected");
    e.acquire_unknown += count(s, "acquire_unknown");
    e.operations += count(s, "operations");
    e.unknown += count(s, "unknown");
    if (e.first_unknown.empty()) e.first_unknown = s.get("exercise", "first_unknown");
    coverage[i] = c;
  }
  m.coverage = search_coverage(m.cases, coverage);
  if (m.coverage.first_failure) m.winner = &*set.by_index[static_cast<std::size_t>(m.coverage.found_by - 1)];
  return m;
}

std::string gap_reason(const ShardSet& set, const CoverageGap& gap) {
  const auto& s = set.by_index[static_cast<std::size_t>(gap.shard - 1)];
  if (!s) return "missing";
  const Manifest& m = s->manifest;
  if (m.get("result", "status") == "error") return "stopped early in " + s->dir + ": " + m.get("result", "error");
  return "not run by " + s->dir;  // cannot happen with a manifest that fits its result
}

std::string write_merged_counterexample(const SearchMerge& m, const std::string& out) {
  const fs::path from = fs::path(m.winner->dir);
  if (!fs::exists(fs::symlink_status(from / "counterexample.ini")))
    throw std::invalid_argument(m.winner->dir + ": no counterexample.ini, though its shard.ini reports a violation");
  // Read only as regular files inside the shard, written only inside --out (contained_paths.h).
  std::ifstream in(regular_file_inside(from, "counterexample.ini"));
  const std::string path = inside(out, "counterexample.ini").string();
  std::ofstream ini(path);
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("# found by: "))
      line = "# found by: " + m.reproduce + "  (as shard " + m.winner->shard.text() + "; merged by semsim merge)";
    else if (line.starts_with("# replay: "))
      line = "# replay: semsim scenario " + path;
    ini << line << "\n";
  }
  check_written(ini, path);
  // Beside it only the tables it names (clients-file, actions-file, masters-file); semsim deletes nothing it did
  // not make in this run, so an older file of that name in --out stays, unnamed by this one.
  for (const char* table : {"clients.csv", "actions.csv", "masters.csv"})
    if (fs::exists(fs::symlink_status(from / table))) copy_inside(from, out, table);
  return path;
}

}  // namespace semsim
