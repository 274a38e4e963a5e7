// `semsim compare --shard K/N` and `semsim merge` of its shards. A shard makes the runs of the
// whole sweep (every variant x value x seed, in compare's order) whose index i has i mod N = K-1,
// and writes their rows of compare_PARAM.csv, their folders and shard.ini; no statistics, charts
// or report.html, which only the whole set of runs gives. Merge puts the rows back in the order
// of the whole sweep and writes its files from them: compare_PARAM.csv equal to the unsharded
// one but for the machine's wall_s and commands_per_s, compare_PARAM_stats.csv byte for byte
// (the statistics are those of the numbers in the CSV, and these are the same), the charts and
// report.html drawn from those statistics, and every run's folder.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "reports/outputs/sweep_report.h"
#include "sim/run/shard_manifest.h"

namespace semsim {

// One run a shard made: its index in the whole sweep, its point, its folder (relative to --out).
struct ShardRun {
  std::int64_t index = 0;
  std::string variant;
  double value = 0;
  std::string folder;
};

// What a compare shard records in shard.ini.
struct CompareShardInfo {
  Shard shard;
  std::string redis, redis_version;  // described; version alone
  // What the runs depend on (shards that differ here refuse to merge): the options as run.ini
  // writes them, the variants, the sweep, the seeds per point, whether --mode was given, the Redis.
  std::string run_ini, variants, sweep, seeds, mode, redis_kind;
  // What merge needs to write report.html as the unsharded sweep does.
  std::string parameter;
  bool in_ms = true;
  std::string command;         // the unsharded command line: no --shard, --out or --jobs
  std::string common_options;  // as report.html lists them
  std::uint64_t first_seed = 0;
  bool charts = true;
  std::int64_t runs = 0;       // in the whole sweep
  std::vector<ShardRun> made;  // this shard's, in order
};

Manifest compare_manifest(const CompareShardInfo& info);

struct CompareMerge {
  std::int64_t runs = 0;    // in the whole sweep
  std::int64_t merged = 0;  // rows of the shards given
  std::string partial;      // "" when every shard was given; else what is missing, a sentence
  std::string csv, stats, report;
};

// Writes compare_PARAM.csv, compare_PARAM_stats.csv, the charts, report.html and every run's
// folder under `out` from the shards of `set`. With shards missing (merge --partial): from the
// runs of those given, report.html saying first (and its verdict table, and its command) which
// shards and runs are missing. Reads only regular files inside the shards' folders and writes
// only inside `out` (contained_paths.h); everything read is checked before anything is written.
// Throws std::invalid_argument naming a shard whose files do not fit its manifest, the manifest's
// field that names a path outside its folder, or the symbolic link refused.
// `judge` (if any) gives each variant's preconditions and the points outside them
// (sweep_promise.h) from the merged runs, whose folders (relative to `out`) hold each run's run.ini.
using PromiseJudge = std::function<std::vector<VariantPromise>(const std::vector<RunVerdict>& runs, const std::string& out)>;
CompareMerge merge_compare_shards(const ShardSet& set, const std::string& out, std::ostream& warn,
                                  const PromiseJudge& judge = {});

}  // namespace semsim
