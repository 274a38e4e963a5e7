// `semsim check --shard K/N` and `semsim merge` of its shards.
//
// What "the same as the unsharded search" means. The whole search judges cases 1, 2, ... in
// order and stops at the first failing one, F, which it shrinks. Case c (its value, its size,
// the random stream it is drawn from) depends only on --seed, --cases and the options, never on
// which cases run: every shard generates every case and runs those it owns (c - 1 = K - 1 mod N),
// judges them in order, and stops at its own first failure F_K, which it shrinks exactly as the
// whole search would (shrinking depends on that case alone). Shard K has judged every case it owns
// numbered up to T_K (`judged_through`: F_K, or --cases if none failed, or less if it stopped on
// an error). Merge takes F = min F_K and checks that every case numbered below F (every case, when
// none failed) was judged by its shard: c <= T_K. Then no case below F fails (each was judged and
// passed), F fails, and so F is the whole search's first failure, with the same shrunk case and
// counterexample.ini; or, when none failed, the whole search finds none either. Where a case
// below F was not judged (a shard missing or stopped early), the merge says which, and is not
// the whole search's result.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/run/shard_manifest.h"
#include "sim/search/property_search.h"

namespace semsim {

// shard.ini of a check shard: its options, what it judged and what it found.
Manifest search_manifest(const SearchSettings& s, const SearchReport& r, const std::string& redis_described,
                         const std::string& redis_version, const std::string& unsharded_command);

// What one shard judged: every case it owns numbered up to judged_through; its first failure.
struct ShardCoverage {
  int judged_through = 0;
  std::optional<int> first_failure;
};

// Cases of one shard that the whole search would have judged but the shard did not.
struct CoverageGap {
  int shard = 0;        // K
  int first_case = 0;   // the first such case's number
  int count = 0;        // how many
};

struct SearchCoverage {
  std::optional<int> first_failure;  // F: the lowest first failure of any shard
  int found_by = 0;                  // its shard's K
  std::vector<CoverageGap> gaps;     // below F (or up to --cases when none failed), by K
};

// `by_index[K-1]`: shard K's coverage, nullopt when that shard is missing.
SearchCoverage search_coverage(int cases, const std::vector<std::optional<ShardCoverage>>& by_index);

// The merge of check shards, read from their manifests.
struct SearchMerge {
  SearchCoverage coverage;
  int cases = 0;                     // --cases of the whole search
  const ShardDir* winner = nullptr;  // the shard that found F
  long long cases_run = 0;           // by all shards together (each up to its own first failure)
  std::string reproduce;             // the unsharded command
  Exercise exercise;                 // what the shards' cases exercised, summed (exercise.h)
};
// Throws std::invalid_argument naming the manifest at fault.
SearchMerge merge_search_shards(const ShardSet& set);

// Why the cases of a gap were not judged: "missing" or the shard's own error.
std::string gap_reason(const ShardSet& set, const CoverageGap& gap);

// Copies the winner's counterexample.ini (and the clients.csv, actions.csv, masters.csv it names)
// to `out`, its comment lines saying where it came from and how to replay it there; reads only
// regular files inside the shard and writes only inside `out` (contained_paths.h). Returns the
// new file's path.
std::string write_merged_counterexample(const SearchMerge& m, const std::string& out);

}  // namespace semsim
