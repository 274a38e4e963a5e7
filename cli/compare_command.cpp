// semsim compare: runs every variant at every value of one swept parameter (sim/scenario/sweep_parameter.h),
// --seeds runs per point, --jobs at a time, and writes one row per run (compare_PARAM.csv),
// statistics per point (compare_PARAM_stats.csv), comparison charts and report.html beside them.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <boost/program_options.hpp>

#include "algorithms/api/semaphore.h"
#include "algorithms/registry.h"
#include "cli/commands.h"
#include "cli/shard_options.h"
#include "reports/checks/summary_csv.h"
#include "reports/checks/sweep_stats.h"
#include "reports/history/output_file.h"
#include "reports/history/text_format.h"
#include "reports/outputs/charts.h"
#include "reports/outputs/sweep_report.h"
#include "sim/core/interrupt.h"
#include "sim/run/compare_shards.h"
#include "sim/run/run_execution.h"
#include "sim/run/sweep_runner.h"
#include "sim/redis/shipped_files.h"
#include "sim/run/version.h"
#include "sim/scenario/client_table.h"
#include "sim/search/run_preconditions.h"
#include "sim/scenario/run_options_io.h"
#include "sim/scenario/sweep_parameter.h"

namespace semsim {

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

// The command as a shell would take it back: "semsim compare" and the arguments, quoted where needed.
std::string command_line(int argc, char** argv) {
  std::string out = "semsim compare";
  for (int i = 1; i < argc; ++i) out += " " + shell_quote(argv[i]);
  return out;
}

// The registry's default comparison set, as an option value.
std::string compared_variants() {
  std::string out;
  for (const VariantInfo& v : variant_registry())
    if (v.compared) out += (out.empty() ? "" : ",") + v.name;
  return out;
}

// One run of the sweep: its point, and the options that make it.
struct PlannedRun {
  std::string variant;
  const SweepValue* value;
  RunOptions options;
};

// Every variant at every value, `seeds` runs each with seeds base, base + 1, ...: the same seeds
// at every point, so that points differ by the variant and the parameter alone. `per_variant[n]`:
// the options of variants[n] (its masters, a lock's limit, its mode), as `semsim run` takes them.
std::vector<PlannedRun> plan_runs(const std::vector<RunOptions>& per_variant, const std::vector<std::string>& variants,
                                  const Sweep& sweep, int seeds) {
  std::vector<PlannedRun> runs;
  const std::vector<std::string> labels = variant_labels(variants);
  for (std::size_t n = 0; n < variants.size(); ++n) {
    const std::string& variant = variants[n];
    const RunOptions& base = per_variant[n];
    for (const SweepValue& v : sweep.values) {
      for (int i = 0; i < seeds; ++i) {
        RunOptions o = base;
        o.charts = false;
        o.progress = false;
        o.seed = base.seed + static_cast<std::uint64_t>(i);
        o.out = (fs::path(base.out) / (labels[n] + "-" + sweep.name() + "-" + v.label) / ("seed-" + std::to_string(o.seed)))
                    .string();
        sweep.apply(v, o);
        runs.push_back({variant, &v, std::move(o)});
      }
    }
  }
  return runs;
}

// Each variant's preconditions judged at each point of the sweep (its options as the run takes
// them, its files read as the run reads them), for report.html and the charts.
std::vector<VariantPromise> sweep_promises(const std::vector<PlannedRun>& plan) {
  std::vector<VariantPromise> out;
  for (const PlannedRun& run : plan) {
    if (out.empty() || out.back().variant != run.variant) out.push_back({.variant = run.variant, .text = {}, .outside = {}});
    VariantPromise& p = out.back();
    if (run.options.seed != plan.front().options.seed) continue;  // the point's first seed: one judgement a point
    note_point(p, run.value->x, run_preconditions(run.options, read_run_inputs(run.options)));
  }
  return out;
}

// What a compare command line asks for.
struct CompareRequest {
  RunOptions base;                     // the first variant's: what every variant shares (--out, --seed, ...)
  std::vector<RunOptions> per_variant;  // [n]: variants[n]'s, checked as `semsim run --variant` checks it
  std::vector<std::string> variants;
  Sweep sweep;
  int seeds = 5;
  int jobs = 1;
  Shard shard;            // --shard K/N: only the runs whose index is K-1 mod N
  std::string unsharded;  // the command line without --shard, --out, --jobs: what shards record
};

int parse_count(const std::string& option, const std::string& text, long long hi) {
  try {
    return static_cast<int>(parse_integer(text, 1, hi));
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("--" + option + " " + text + ": " + e.what());
  }
}

// Run options that compare does not read, or that its sweep replaces: an error, not a surprise.
void refuse_what_compare_would_ignore(const po::variables_map& vm, const std::string& swept) {
  const auto given = [&](const char* name) { return vm.count(name) && !vm[name].defaulted(); };
  if (given("variant"))
    throw std::invalid_argument("--variant: compare runs the variants of --variants (e.g. --variants " +
                                vm["variant"].as<std::string>() + "), and would ignore --variant");
  std::vector<std::string> replaced{swept};
  if (swept == "delay") replaced.insert(replaced.end(), {"delay-out", "delay-in"});
  for (const std::string& name : replaced)
    if (given(name.c_str()))
      throw std::invalid_argument("--" + name + ": the sweep sets " + swept + " in every run, and would ignore --" + name);
}

// The run options of one variant of --variants: those of `semsim run --variant VARIANT` with the
// same options, checked as run checks them (several masters, a lock's limit, its mode), not those
// of the default --variant, which compare never runs.
RunOptions options_for(const po::variables_map& vm, const std::string& variant) {
  po::variables_map one = vm;
  one.erase("variant");
  one.emplace("variant", po::variable_value(variant, false));
  RunOptions o = run_options_from(one);
  if (vm["out"].defaulted()) o.out = "semsim-out/compare";
  return o;
}

// Throws std::invalid_argument naming the option at fault.
CompareRequest read_request(const po::variables_map& vm) {
  CompareRequest r;
  r.variants = split_list(vm["variants"].as<std::string>());
  const int given = static_cast<int>(vm.count("sweep") + vm.count("skews") + vm.count("delays") + vm.count("clients-sweep"));
  if (given != 1)
    throw std::invalid_argument("give exactly one of --sweep NAME=V1,V2,..., --skews, --delays, --clients-sweep"
                                " (a sweep of two parameters at once is not supported)");
  if (vm.count("sweep")) {
    const std::string text = vm["sweep"].as<std::string>();
    const std::size_t eq = text.find('=');
    if (eq == std::string::npos) throw std::invalid_argument("--sweep " + text + ": write NAME=V1,V2,...");
    r.sweep = parse_sweep(text.substr(0, eq), text.substr(eq + 1), "--sweep " + text);
  }
  // The shorthands of --sweep skew=..., delay=..., clients=...
  for (const auto& [option, name] : {std::pair{"skews", "skew"}, {"delays", "delay"}, {"clients-sweep", "clients"}})
    if (vm.count(option)) {
      const std::string values = vm[option].as<std::string>();
      r.sweep = parse_sweep(name, values, std::string("--") + option + " " + values);
    }
  if (r.variants.empty()) throw std::invalid_argument("--variants: nothing to compare");
  for (auto it = r.variants.begin(); it != r.variants.end(); ++it)
    if (std::find(r.variants.begin(), it, *it) != it) throw std::invalid_argument("--variants: " + *it + " is given twice");
  refuse_what_compare_would_ignore(vm, r.sweep.name());
  // Every variant before the first run: the last one's typo costs no run.
  for (const std::string& variant : r.variants) {
    try {
      if (!variant.starts_with("driver:")) make_semaphore(variant, SemaphoreConfig{});
    } catch (const std::exception& e) {
      throw std::invalid_argument("--variants: " + std::string(e.what()));
    }
  }
  for (const std::string& variant : r.variants) r.per_variant.push_back(options_for(vm, variant));
  r.base = r.per_variant.front();
  const std::string seeds_text = vm["seeds"].as<std::string>();
  r.seeds = parse_count("seeds", seeds_text, 10'000);
  r.jobs = parse_count("jobs", vm["jobs"].as<std::string>(), 1024);
  if (r.base.seed > static_cast<std::uint64_t>(INT64_MAX) - static_cast<std::uint64_t>(r.seeds - 1))
    throw std::invalid_argument("--seed " + std::to_string(r.base.seed) + " with --seeds " + seeds_text +
                                ": the last seed would pass " + std::to_string(INT64_MAX));
  if (vm.count("shard")) r.shard = parse_shard(vm["shard"].as<std::string>());
  const std::size_t runs = r.variants.size() * r.sweep.values.size() * static_cast<std::size_t>(r.seeds);
  if (static_cast<std::size_t>(r.shard.count) > runs)
    throw std::invalid_argument("--shard " + r.shard.text() + ": the sweep has " + std::to_string(runs) +
                                " runs, fewer than " + std::to_string(r.shard.count) + " shards");
  return r;
}

// Writes `path`: a header line and one line per item; throws if it cannot.
template <typename Items, typename Row>
void write_csv(const std::string& path, const std::string& header, const Items& items, Row row) {
  std::ofstream csv(path);
  csv << header << "\n";
  for (const auto& item : items) csv << row(item) << "\n";
  check_written(csv, path);
}

// run.ini's lines of `o`.
std::vector<std::string> run_ini_lines(const RunOptions& o) {
  std::ostringstream ini;
  write_run_ini(ini, o);
  std::vector<std::string> lines;
  std::istringstream in(ini.str());
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The options every run of the sweep shares: run.ini's lines but for those the sweep varies, and
// those that differ between variants (a lock's limit, say).
std::string common_options(const std::vector<RunOptions>& per_variant, const std::string& parameter) {
  const RunOptions& base = per_variant.front();
  std::vector<std::vector<std::string>> others;
  for (const RunOptions& o : per_variant) others.push_back(run_ini_lines(o));
  std::string common;
  for (const std::string& line : others.front()) {
    const std::string key = line.substr(0, line.find(" ="));
    if (key == "variant" || key == "seed" || key == parameter || (key == "mode" && !base.mode_given)) continue;
    if (std::all_of(others.begin(), others.end(),
                    [&](const auto& lines) { return std::find(lines.begin(), lines.end(), line) != lines.end(); }))
      common += line + "\n";
  }
  return common;
}

// A shard's shard.ini (sim/run/compare_shards.h): what its runs depend on, which it made, and
// what the merge needs to write the whole sweep's files.
void write_compare_shard(const CompareRequest& r, const std::vector<PlannedRun>& plan,
                         const std::vector<std::size_t>& made, const SweepOutputs& ran) {
  CompareShardInfo info;
  info.shard = r.shard;
  info.redis = ran.redis;
  info.redis_version = ran.redis_version;
  std::ostringstream ini;
  write_run_ini(ini, r.base);
  info.run_ini = ini.str();
  for (const std::string& v : r.variants) info.variants += (info.variants.empty() ? "" : ",") + v;
  info.sweep = r.sweep.name() + "=";
  for (std::size_t i = 0; i < r.sweep.values.size(); ++i) info.sweep += (i ? "," : "") + r.sweep.values[i].label;
  info.seeds = std::to_string(r.seeds);
  info.mode = r.base.mode_given ? "given" : "each variant's default";
  info.redis_kind = ran.redis.starts_with("embedded") ? "embedded" : "given";
  info.parameter = r.sweep.name();
  info.in_ms = r.sweep.in_ms();
  info.command = r.unsharded;
  info.common_options = common_options(r.per_variant, info.parameter);
  info.first_seed = r.base.seed;
  info.charts = r.base.charts;
  info.runs = static_cast<std::int64_t>(plan.size());
  for (const std::size_t i : made)
    info.made.push_back({static_cast<std::int64_t>(i), plan[i].variant, plan[i].value->x,
                         fs::path(plan[i].options.out).lexically_relative(r.base.out).string()});
  compare_manifest(info).write(r.base.out);
}

}  // namespace

int compare_command(int argc, char** argv) {
  po::options_description general("semsim compare: variants x one parameter, --seeds runs per point: runs, statistics, charts, report.html");
  general.add_options()("help,h", "this help")(
      "variants", po::value<std::string>()->default_value(compared_variants()), "comma-separated variants")(
      "sweep", po::value<std::string>(), ("NAME=V1,V2,...: the run option to vary, one of " + sweep_parameter_names() +
                                          "; durations for all but clients and limit, e.g. timeout=100ms,1s,10s")
                                             .c_str())(
      "skews", po::value<std::string>(), "--sweep skew=...: clocks offset uniformly in [-S, +S], e.g. 0,1ms,10ms")(
      "delays", po::value<std::string>(), "--sweep delay=...: delay uniform in [0, D] each way, e.g. 0,1ms,5ms")(
      "clients-sweep", po::value<std::string>(), "--sweep clients=...: the number of clients, e.g. 10,100,1000")(
      "seeds", po::value<std::string>()->default_value("5"),
      "runs per point (1..10000), with seeds --seed, --seed + 1, ...: statistics over them")(
      "jobs", po::value<std::string>()->default_value(std::to_string(default_jobs()), "the number of cores"),
      "runs at a time (1..1024), each on its own Redis; the results do not depend on it")(
      "shard", po::value<std::string>(), kShardHelp);
  po::options_description all;
  all.add(general).add(run_options_description());
  CompareRequest request;
  try {
    po::variables_map vm;
    const po::parsed_options parsed = po::command_line_parser(argc, argv).options(all).run();
    po::store(parsed, vm);
    po::notify(vm);
    if (vm.count("help")) {
      std::cout << all << "\n" << docs_footer();
      return kExitOk;
    }
    request = read_request(vm);
    request.unsharded = unsharded_command("compare", parsed);
  } catch (const std::exception& e) {
    std::cerr << "semsim compare: " << e.what() << "\n";
    return exit_code_after_error();  // the variants' files are read here
  }
  const RunOptions& base = request.base;

  try {
    const std::vector<PlannedRun> plan = plan_runs(request.per_variant, request.variants, request.sweep, request.seeds);
    fs::create_directories(base.out);
    remove_older_manifest(base.out);  // an older shard's: it would describe other files
    std::vector<std::size_t> made;  // the runs of the plan this command makes: all, or its shard's
    std::vector<RunOptions> options;
    for (std::size_t i = 0; i < plan.size(); ++i)
      if (request.shard.owns(static_cast<std::int64_t>(i))) {
        made.push_back(i);
        options.push_back(plan[i].options);
      }
    const std::string& parameter = request.sweep.name();
    const auto said = [&](std::size_t j) {
      const PlannedRun& r = plan[made[j]];
      return r.variant + " " + parameter + "=" + r.value->label + " seed " + std::to_string(r.options.seed);
    };
    const SweepOutputs ran = run_all(options, request.jobs, base.redis_url, [&](std::size_t j, const RunOutput& run,
                                                                            std::size_t done, double seconds_left) {
      if (!run.result.completed) return;  // said below, once the sweep has stopped
      std::cout << "[" << done << "/" << made.size() << "] " << said(j) << ": over_admission " << run.summary.over_admission
                << ", granted " << run.summary.granted << ", fifo_inversions " << run.summary.fifo_inversions;
      if (done < made.size()) std::cout << "; about " << static_cast<long long>(seconds_left + 0.5) << " s left";
      std::cout << std::endl;
    });
    const auto& outputs = ran.runs;
    // A run that stopped early (Ctrl-C, Redis failed) stopped the sweep: the runs after it never
    // started. What finished is still written, said to be partial.
    std::string stopped_by;
    for (std::size_t j = 0; j < made.size(); ++j)
      if (outputs[j] && !outputs[j]->result.completed) {
        std::cerr << "semsim compare: " << said(j) << " stopped early: " << outputs[j]->result.stop_reason << "\n";
        if (stopped_by.empty()) stopped_by = outputs[j]->result.stop_reason;
      }
    std::vector<SweepRun> results;
    std::vector<std::string> folders;  // results[i]'s, relative to --out: report.html links their timelines
    for (std::size_t j = 0; j < made.size(); ++j)
      if (outputs[j] && outputs[j]->result.completed) {
        results.push_back({plan[made[j]].variant, plan[made[j]].value->x, outputs[j]->summary});
        folders.push_back(fs::path(plan[made[j]].options.out).lexically_relative(base.out).generic_string());
      }
    std::string partial;
    if (results.size() < made.size()) {
      const std::string why = "the sweep stopped early (" + (stopped_by.empty() ? interrupted_by() : stopped_by) +
                              "); " + std::to_string(results.size()) + " of " + std::to_string(made.size()) +
                              " runs finished, and only they are counted";
      partial = "partial: " + why;
      std::cout << "PARTIAL: " << why << "\n";  // the result's first line (those above were per run)
    }

    const std::string csv_path = (fs::path(base.out) / ("compare_" + parameter + ".csv")).string();
    write_csv(csv_path, sweep_csv_header(), results,
              [&](const SweepRun& r) { return sweep_csv_row(parameter, r.value, r.summary); });
    if (request.shard.sharded()) {  // statistics, charts and report.html come from the merge of every shard
      if (!partial.empty()) {  // no shard manifest: the merge refuses a shard that did not finish
        std::cerr << "semsim compare: shard " << request.shard.text() << ": " << partial << "\n";
        return exit_code_after_error();
      }
      write_compare_shard(request, plan, made, ran);
      std::cout << "shard " << request.shard.text() << ": " << made.size() << " of the sweep's " << plan.size()
                << " runs: " << csv_path << "\nmerge the shards: semsim merge DIR... --out DIR (docs/scale-out.md)\n";
      return kExitOk;
    }
    const std::vector<PointStat> stats = sweep_stats(results);
    const std::string stats_path = (fs::path(base.out) / ("compare_" + parameter + "_stats.csv")).string();
    write_csv(stats_path, sweep_stats_csv_header(), stats,
              [&](const PointStat& s) { return sweep_stats_csv_row(parameter, s); });

    const bool in_ms = request.sweep.in_ms();
    const std::string common = common_options(request.per_variant, parameter);
    const std::string caption = sweep_caption(common, parameter, request.seeds);
    const std::vector<VariantPromise> promises = sweep_promises(plan);
    const bool charts = base.charts && draw_comparison_charts(stats, in_ms ? parameter + " (ms)" : parameter, base.out,
                                                              std::cerr, caption, promises);
    SweepReport report{parameter, in_ms,         command_line(argc, argv), version(), ran.redis,
                       common,    request.seeds, base.seed,                charts,    stats,
                       run_verdicts(results, folders), caption, doc_path("reports/DEFINITIONS.md").string()};
    report.partial = partial;
    report.variants = request.variants;
    report.meaning = request.sweep.meaning();  // a variant the sweep stopped before stays in the table, "not run"
    report.promises = promises;
    write_sweep_report(base.out, report);
    std::cout << "sweep: " << csv_path << "\nstatistics: " << stats_path << "\nreport: "
              << (fs::path(base.out) / "report.html").string() << "\n";
    if (!partial.empty()) {
      std::cerr << "semsim compare: " << partial << "\n";
      return exit_code_after_error();
    }
    return kExitOk;
  } catch (const std::exception& e) {
    std::cerr << "semsim compare: " << what_failed(e) << "\n";
    return exit_code_after_error();
  }
}

}  // namespace semsim
