// semsim merge DIR... --out DIR: the shards of one `compare --shard K/N` or `check --shard K/N`
// (their --out folders, each with its shard.ini) put back together as the unsharded command's
// results (sim/run/compare_shards.h, sim/search/search_shards.h, docs/scale-out.md). It exits as
// the unsharded command would: compare 0; check 0, 1 on a safety violation, 3 on a liveness one
// alone; 2 when the shards do not fit together or one is missing (unless --partial); 4 a partial
// result (--partial, shards missing that the whole result needs).
#include <filesystem>
#include <fstream>
#include <iostream>
#include <vector>

#include <boost/program_options.hpp>

#include "cli/commands.h"
#include "sim/run/compare_shards.h"
#include "sim/run/shard_manifest.h"
#include "sim/search/run_preconditions.h"
#include "sim/search/search_shards.h"

namespace semsim {

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace {

constexpr const char* kAbout = R"(
The folders are the --out folders of the shards of one sweep or search: `semsim compare ...
--shard K/N` or `semsim check ... --shard K/N`, K = 1..N, the same command, build and options.
compare: writes compare_PARAM.csv (the runs in the order of the unsharded sweep: equal to it but
for wall_s and commands_per_s), compare_PARAM_stats.csv (byte for byte), the charts, report.html
and every run's folder. check: the first failing case by its global number and its shrunk
counterexample.ini, those of the unsharded search once every case below it was judged by its
shard (docs/scale-out.md says why); "cases run" counts what the shards ran.

Exit: as the unsharded command: 0; (check) 1 a safety violation, 3 a liveness violation alone;
2 shards that do not fit together, a missing shard (named), cases below the first failure that a
shard did not judge, a manifest naming a path outside its shard or a symbolic link in a shard
(merge reads only regular files inside the shards and writes only inside --out), or (check)
cases that together never exercised the variant. With --partial the shards given are merged; when
the result misses what the whole would need, its first line says PARTIAL, report.html says so
first and in its verdict table, and the exit is 4 (a violation found still exits 1 or 3).
)";

// The shards' per-shard line for check: what each judged.
void print_check_shards(std::ostream& out, const ShardSet& set) {
  for (const auto& s : set.by_index) {
    if (!s) continue;
    const Manifest& m = s->manifest;
    const std::string status = m.get("result", "status");
    out << "  shard " << s->shard.text() << " (" << s->dir << "): " << m.get("covered", "cases_run") << " of its "
        << m.get("covered", "owned") << " cases, judged up to #" << m.get("covered", "judged_through");
    if (status == "violation") out << ", its first failure";
    if (status == "error") out << ", then stopped: " << m.get("result", "error");
    out << "\n";
  }
}

int merge_check(const ShardSet& set, const std::string& out, bool partial) {
  const SearchMerge m = merge_search_shards(set);
  const SearchCoverage& c = m.coverage;
  const Manifest& any = set.first().manifest;
  std::ostream& say = std::cout;
  const std::string judged = std::to_string(m.cases_run) + " of the search's " + std::to_string(m.cases) + " cases";
  if (!c.gaps.empty() && !partial) {
    std::cerr << "semsim merge: cases the whole search judges "
              << (c.first_failure ? "before the first failure found (#" + std::to_string(*c.first_failure) + ")" : "")
              << " were not judged:\n";
    for (const CoverageGap& g : c.gaps)
      std::cerr << "  shard " << g.shard << "/" << set.count << ": " << g.count << " cases from #" << g.first_case << " ("
                << gap_reason(set, g) << ")\n";
    std::cerr << "semsim merge: not the unsharded search's result: give every shard, re-run those that stopped, "
                 "or --partial\n";
    return kExitBadInput;
  }
  // A partial result says so before anything else, and in its exit code.
  if (!c.gaps.empty())
    say << "PARTIAL: the shards judged " << judged << "; cases the whole search judges"
        << (c.first_failure ? " before the first failure found (#" + std::to_string(*c.first_failure) + ")" : "")
        << " were not judged (below): not the unsharded search's result\n";
  say << "semsim merge: check of variant " << any.get("options", "variant") << ", seed " << any.get("options", "seed")
      << ", " << m.cases << " cases, in " << set.count << " shards\n";
  if (!c.gaps.empty()) {
    say << "not judged:\n";
    for (const CoverageGap& g : c.gaps)
      say << "  shard " << g.shard << "/" << set.count << ": " << g.count << " cases from #" << g.first_case << " ("
          << gap_reason(set, g) << ")\n";
  }
  if (c.gaps.empty() && !set.missing().empty())
    say << set.missing_text() << " not given, and not needed: every case below the first failure was judged\n";
  print_check_shards(say, set);
  if (!c.first_failure) {
    // As check: cases that together never exercised the variant are no pass.
    if (!m.exercise.exercised()) {
      say << "NO VERDICT: the variant was never exercised: " << m.exercise.why_not(std::to_string(m.cases_run) + " cases")
          << "\n";
      std::cerr << "semsim merge: no verdict (a search that never exercised the variant is no pass: "
                   "reports/DEFINITIONS.md, Exercised)\n";
      return exit_code(Finding::not_exercised);
    }
    const std::string counts = " (" + std::to_string(m.exercise.granted) + " grants of " +
                               std::to_string(m.exercise.acquires) + " acquires, " +
                               std::to_string(m.exercise.operations) + " operations, " +
                               std::to_string(m.exercise.unknown) + " unknown)";
    if (!c.gaps.empty()) {
      say << "no violation in the " << judged << " judged" << counts
          << ": no verdict on the others (PARTIAL, exit " << kExitPartial << ")\n";
      return kExitPartial;
    }
    say << "no violation in " << m.cases << " cases" << counts << "\ncases run: " << m.cases_run
        << " by the shards together\n";
    return exit_code(Finding::none);
  }
  fs::create_directories(out);
  const std::string ini_path = write_merged_counterexample(m, out);
  const Manifest& w = m.winner->manifest;
  say << "VIOLATION: " << w.get("result", "violation_text") << ": " << w.get("result", "detail") << "\n"
      << "  first at case #" << *c.first_failure << " (shard " << m.winner->shard.text() << ")"
      << (c.gaps.empty() ? "" : " (PARTIAL: a failing case, not necessarily the search's first)") << ": "
      << w.get("result", "first") << "\n  shrunk to: " << w.get("result", "minimal") << "\n"
      << "  reproduce the search: " << m.reproduce << "  (unsharded, or its " << set.count << " shards)\n"
      << "  replay the case:      semsim scenario " << ini_path
      << (w.get("result", "replay_failed") == "yes" ? "  (replayed: fails again)"
                                                     : "  (replay did not fail its expectations: see the file)")
      << "\n\n";
  std::ifstream ini(ini_path);
  say << ini.rdbuf() << "\n"
      << "cases run: " << m.cases_run << " by the shards together (each up to its own first failure); the unsharded "
      << "search judges " << *c.first_failure << " (#1 to #" << *c.first_failure << ", the last failing)\n"
      << "shrinking: " << w.get("result", "shrink_steps") << " steps accepted, " << w.get("result", "shrink_tries")
      << " runs (by shard " << m.winner->shard.text() << ", as the unsharded search)\n";
  return exit_code(w.get("result", "violation") == "liveness" ? Finding::liveness_violation_alone
                                                               : Finding::safety_violation);
}

int merge_compare(const ShardSet& set, const std::string& out) {
  // A partial result says so before anything else (a chart's warning included), and in its exit code.
  if (!set.missing().empty())
    std::cout << "PARTIAL: " << set.missing_text() << " not given: the runs of the shards given are merged, and the "
              << "statistics, verdicts and report.html are over these alone\n";
  const CompareMerge m = merge_compare_shards(set, out, std::cerr, promises_of_runs);
  std::cout << "merged " << m.merged << " runs from " << set.count - set.missing().size() << " shards"
            << (m.partial.empty() ? "" : " (of the sweep's " + std::to_string(m.runs) + " runs: partial)") << "\nsweep: " << m.csv << "\nstatistics: " << m.stats << "\nreport: " << m.report << "\n";
  return m.partial.empty() ? kExitOk : kExitPartial;
}

}  // namespace

int merge_command(int argc, char** argv) {
  po::options_description o("semsim merge DIR... --out DIR: the shards of a compare or check, merged");
  o.add_options()("help,h", "this help")("out", po::value<std::string>(), "where the merged results go")(
      "partial", po::bool_switch(), "merge the shards given even when some are missing, saying which")(
      "dirs", po::value<std::vector<std::string>>()->composing(), "the shards' --out folders");
  po::positional_options_description positional;
  positional.add("dirs", -1);
  std::vector<std::string> dirs;
  std::string out;
  bool partial = false;
  ShardSet set;
  try {
    po::variables_map vm;
    po::store(po::command_line_parser(argc, argv).options(o).positional(positional).run(), vm);
    po::notify(vm);
    if (vm.count("help")) {
      std::cout << o << kAbout << "\n" << docs_footer();
      return kExitOk;
    }
    if (!vm.count("dirs")) throw std::invalid_argument("give the shards' folders: semsim merge DIR... --out DIR");
    if (!vm.count("out")) throw std::invalid_argument("--out DIR is required");
    dirs = vm["dirs"].as<std::vector<std::string>>();
    out = vm["out"].as<std::string>();
    partial = vm["partial"].as<bool>();
    for (const std::string& dir : dirs)
      if (fs::exists(out) && fs::exists(dir) && fs::equivalent(out, dir))
        throw std::invalid_argument("--out " + out + " is one of the shards: merge into another folder");
    set = read_shard_set(dirs);
    if (!set.missing().empty() && !partial)
      throw std::invalid_argument(set.missing_text() + " of " + std::to_string(set.count) +
                                  " not given (every shard's folder is needed, or --partial)");
  } catch (const std::exception& e) {
    std::cerr << "semsim merge: " << e.what() << "\n";
    return kExitBadInput;
  }
  try {
    if (set.command == "compare") return merge_compare(set, out);
    if (set.command == "check") return merge_check(set, out, partial);
    throw std::invalid_argument(set.first().manifest.file() + ": command = " + set.command + ": not one merge knows");
  } catch (const std::exception& e) {
    std::cerr << "semsim merge: " << e.what() << "\n";
    return exit_code_after_error();
  }
}

}  // namespace semsim
