// semsim conformance: the conformance card. Every situation of the catalogue (scenarios/conformance/)
// run on each library given, each cell classified holds / lease limit / defect / not staged
// (reports/checks/conformance.h); conformance.csv and conformance.html in --out.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <boost/program_options.hpp>

#include "algorithms/registry.h"
#include "cli/commands.h"
#include "reports/checks/expectations.h"
#include "reports/checks/live_leases.h"
#include "reports/history/history_reader.h"
#include "reports/history/output_file.h"
#include "reports/history/text_format.h"
#include "reports/outputs/conformance_page.h"
#include "sim/core/interrupt.h"
#include "sim/drivers/driver_run.h"
#include "sim/drivers/real_time_report.h"
#include "sim/redis/shipped_files.h"
#include "sim/run/run_execution.h"
#include "sim/scenario/run_options_io.h"
#include "sim/scenario/situation.h"

namespace semsim {

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace {

constexpr const char* kCardAbout = R"(
Runs a catalogue of situations (PATH below; docs/conformance.md) on each library and classifies each
cell: holds (it did what a correct lease lock or semaphore does), lease limit (more holders than the
limit that no lease lock avoids without fencing: a holder past its lease, Redis losing a write),
defect (a correct library avoids it: more live leases than the limit, a grant after its lease, no
grant where one was due), not staged (the run did not show the situation: said in the cell), n/a
(a situation for a semaphore, with --limit 1). The situations over one Redis run for every library;
those over several masters with --masters N > 1, each over its own plan's masters.
A driver's cells run in warp (virtual time) unless it cannot, then paced, and the card says which.
Exit: 1 a defect in any cell; else 2 a cell not staged (or bad input); else 0.
)";

// A folder name from a variant: the driver's script and the words after it (driver:node
// x/redis-semaphore.js mutex -> redis-semaphore-mutex), a script variant's INI, or the variant's name.
std::string folder_for(const std::string& variant) {
  std::string name = variant_label(variant);
  if (variant.rfind("driver:", 0) == 0) {
    std::istringstream words(variant.substr(7));
    std::string script, after;
    for (std::string w; words >> w;) {
      const fs::path word(w);
      if (word.has_extension() && w[0] != '@' && w.find('=') == std::string::npos) {  // the script
        script = word.stem().string();
        after.clear();
      } else if (!script.empty()) {
        after += "-" + word.filename().string();  // @sesamecare-oss/redlock -> redlock
      }
    }
    name = script.empty() ? "driver" : script + after;
  }
  std::string out;
  for (char c : name) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.') ? c : '_';
  return out.empty() || out[0] == '.' ? "library" : out;
}

std::string seconds_text(std::int64_t us) {
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(3);
  s << static_cast<double>(us) / 1e6 << " s";
  return s.str();
}

// Fillers: with a limit above the plan's, the plan plays out on the last free permit. Each filler
// (a client after the plan's) takes a permit at 0 and keeps it to the end, refreshing every third
// of the lease. The actions file with them goes to `dir`.
RunOptions with_fillers(const Situation& s, int limit, const fs::path& dir) {
  RunOptions o = s.plan;
  const int fillers = limit - s.plan.limit;
  o.limit = limit;
  if (fillers <= 0) return o;
  std::string text = "at,client,action,arg\n";
  if (!s.plan.actions_file.empty()) {
    std::ifstream in(s.plan.actions_file);
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  if (!text.empty() && text.back() != '\n') text += '\n';
  const std::string header = text.substr(0, text.find('\n'));
  const std::string tail = header.find("masters") != std::string::npos ? ",\n" : "\n";
  const std::int64_t duration_ms = o.duration.count() / 1000, every_ms = std::max<std::int64_t>(1, o.timeout.count() / 3000);
  for (int f = 1; f <= fillers; ++f) {
    const int id = s.plan.clients + f;
    text += "0ms," + std::to_string(id) + ",acquire," + std::to_string(duration_ms) + "ms" + tail;
    for (std::int64_t t = every_ms; t < duration_ms; t += every_ms)
      text += std::to_string(t) + "ms," + std::to_string(id) + ",refresh," + tail;
  }
  fs::create_directories(dir);
  o.actions_file = (dir / (s.name + ".limit-" + std::to_string(limit) + ".actions.csv")).string();
  write_output_file(o.actions_file, text);
  o.clients += fillers;
  return o;
}

struct CellRun {
  CardCell cell;
  std::string library;
  bool needs_paced = false;  // warp could not hold this driver to virtual time
};

CellRun run_cell(const Situation& s, RunOptions options, const fs::path& out, const std::string& folder,
                 RedisSession& redis, std::ostream& log) {
  CellRun r;
  options.out = (out / folder / s.name).string();
  r.cell.timeline = folder + "/" + s.name + "/timeline.html";
  RunOutput run;
  try {
    run = execute_run(options, redis, log);
  } catch (const std::exception& e) {
    const std::string what = what_failed(e);
    if (interrupt_signal()) return r;  // not judged: the card stops (its caller sees the signal)
    r.needs_paced = options.mode == TimeMode::virtual_time && dynamic_cast<const WarpUnfit*>(&e) != nullptr;
    r.cell.cell = {CellVerdict::not_staged, "the run could not be made: " + what};
    r.cell.timeline.clear();
    return r;
  }
  r.library = run.library;
  if (!run.result.completed) {
    if (interrupt_signal()) return r;
    r.needs_paced = options.mode == TimeMode::virtual_time && run.result.warp_unfit;
    r.cell.cell = {CellVerdict::not_staged, "the run stopped early: " + run.result.stop_reason};
    return r;
  }
  Figures figures = summary_values(run.summary);
  const std::vector<Event> history = read_history((fs::path(options.out) / "history.csv").string());
  const LiveLeases live = live_leases(history, options.limit, options.timeout.count());
  figures["live_lease_over_admission"] = std::to_string(live.over_admission);
  figures["late_grants"] = std::to_string(live.late_grants);
  figures["unanswered_acquires"] = std::to_string(live.unanswered_acquires);
  figures["as_planned"] = !run.real_time || as_planned(*run.real_time) ? "yes" : "no";
  if (run.real_time) figures["off_plan"] = why_not_as_planned(*run.real_time);

  const std::int64_t t0 = run.summary.start_us;
  std::string defect_witness;
  if (live.over_admission > 0) {
    defect_witness = "live leases at " + seconds_text(live.first_over_us - t0) + ":";
    for (const LiveLeases::Holder& h : live.witness)
      defect_witness += " client " + std::to_string(h.client) + " (" + h.identifier + " since " + seconds_text(h.since_us - t0) + ")";
  } else if (live.late_grants > 0) {
    defect_witness = std::to_string(live.late_grants) + " grant(s) heard of after their lease ended";
  } else if (live.unanswered_acquires > 0) {
    defect_witness = "client " + std::to_string(live.first_unanswered_client) + "'s acquire invoked at " +
                     seconds_text(live.first_unanswered_us - t0) + " never came back";
  } else if (run.summary.liveness == Verdict::invalid) {
    defect_witness = "no grant for " + us_as_ms(run.summary.longest_no_grant_us) + " ms";
  }
  std::string limit_witness;
  if (!run.summary.episodes.empty()) {
    const Episode& e = run.summary.episodes.front();
    limit_witness = "holders at " + seconds_text(e.start_us - t0) + ":";
    for (const HoldRef& h : e.witness)
      limit_witness += " client " + std::to_string(h.client) + " (since " + seconds_text(h.since_us - t0) + ")";
  }
  r.cell.cell = classify(s.rules, figures, defect_witness, limit_witness);
  return r;
}

}  // namespace

int conformance_command(int argc, char** argv) {
  po::options_description o("semsim conformance --variant V [--variant V2 ...] [options]: the conformance card");
  o.add_options()("help,h", "this help")(
      "variant", po::value<std::vector<std::string>>()->composing(),
      "a library: \"driver:COMMAND\" (docs/drivers.md; its kits and reference drivers: docs/conformance.md), or any "
      "variant of semsim run; several give one matrix, a column each")(
      "limit", po::value<std::string>()->default_value("1"),
      "permits (SEMSIM_LIMIT): 1 for a lock; above a situation's own, clients holding the others stay in its plan")(
      "masters", po::value<std::string>()->default_value("1"),
      "N > 1: also the situations over several masters (Redlock); the library is given each master")(
      "situation", po::value<std::vector<std::string>>()->composing(), "only this situation (by file name; repeatable)")(
      "situations", po::value<std::string>(), "the catalogue's folder (default: the shipped one)")(
      "mode", po::value<std::string>(), "virtual (a driver in warp) or paced; default: warp where the driver allows")(
      "seed", po::value<std::string>(), "the runs' seed (default: each situation's)")(
      "out", po::value<std::string>()->default_value("semsim-out/conformance"), "where the card and its runs go");
  std::vector<std::string> variants, only;
  int limit = 1, masters = 1;
  std::optional<TimeMode> mode;
  std::optional<std::uint64_t> seed;
  std::string out_dir, catalogue_dir;
  std::vector<Situation> situations;
  try {
    po::variables_map vm;
    po::store(po::command_line_parser(argc, argv).options(o).run(), vm);
    po::notify(vm);
    if (vm.count("help")) {
      std::cout << o << kCardAbout << "PATH: " << shipped_conformance_dir().string() << "\n\n" << docs_footer();
      return kExitOk;
    }
    if (!vm.count("variant")) throw std::invalid_argument("--variant: give the library (\"driver:COMMAND\") to judge");
    variants = vm["variant"].as<std::vector<std::string>>();
    for (const std::string& v : variants) variant_info(v);  // an unknown one is bad input now
    limit = static_cast<int>(parse_integer(vm["limit"].as<std::string>(), 1, 1000));
    masters = static_cast<int>(parse_integer(vm["masters"].as<std::string>(), 1, 9));
    if (vm.count("mode")) {
      const std::string m = vm["mode"].as<std::string>();
      if (m == "virtual") mode = TimeMode::virtual_time;
      else if (m == "paced") mode = TimeMode::paced;
      else throw std::invalid_argument("--mode " + m + ": virtual or paced");
    }
    if (vm.count("seed")) seed = static_cast<std::uint64_t>(parse_integer(vm["seed"].as<std::string>(), 0, INT64_MAX));
    out_dir = vm["out"].as<std::string>();
    catalogue_dir = vm.count("situations") ? vm["situations"].as<std::string>() : shipped_conformance_dir().string();
    if (vm.count("situation")) only = vm["situation"].as<std::vector<std::string>>();
    for (Situation& s : load_catalogue(catalogue_dir)) {
      if (s.plan.masters > 1 && masters == 1) continue;
      if (!only.empty() && std::find(only.begin(), only.end(), s.name) == only.end()) continue;
      situations.push_back(std::move(s));
    }
    for (const std::string& name : only)
      if (std::none_of(situations.begin(), situations.end(), [&](const Situation& s) { return s.name == name; }))
        throw std::invalid_argument("--situation " + name + ": no such situation in " + catalogue_dir +
                                    (masters == 1 ? " over one Redis (those over several masters need --masters N)" : ""));
  } catch (const std::exception& e) {
    std::cerr << "semsim conformance: " << e.what() << "\n";
    return exit_code_after_error();
  }

  Card card;
  card.limit = limit;
  for (const Situation& s : situations) card.rows.push_back({s.name, s.title, s.correct, {}});
  std::size_t made = 0;  // cells judged, for a card cut short
  try {
    RedisSession redis("");
    const fs::path out(out_dir);
    std::vector<std::string> folders;
    for (const std::string& variant : variants) {
      if (interrupt_signal()) break;
      std::string folder = folder_for(variant);
      for (int k = 2; std::find(folders.begin(), folders.end(), folder) != folders.end(); ++k)
        folder = folder_for(variant) + "-" + std::to_string(k);
      folders.push_back(folder);
      const bool driver = variant_info(variant).real_processes;
      TimeMode m = mode.value_or(TimeMode::virtual_time);
      std::string mode_note = driver ? (m == TimeMode::virtual_time ? "warp" : "paced") : "virtual";
      std::vector<CardCell> cells;
      std::string library;
      for (std::size_t i = 0; i < situations.size() && !interrupt_signal(); ++i) {
        const Situation& s = situations[i];
        CardCell cell;
        if (s.plan.limit > limit) {
          cell.cell = {CellVerdict::not_applicable, "a semaphore's situation (limit " + std::to_string(s.plan.limit) +
                                                        "): run the card with --limit " + std::to_string(s.plan.limit)};
        } else {
          RunOptions options = with_fillers(s, limit, out / "plans");
          options.variant = variant;
          options.mode = m;
          options.mode_given = true;  // a driver warp cannot hold fails here, and its column goes paced
          options.charts = false;
          if (seed) options.seed = *seed;
          std::ostringstream log;
          CellRun r = run_cell(s, options, out, folder, redis, log);
          if (r.needs_paced && !mode) {  // warp cannot hold it: its whole column again, paced
            std::cout << folder << ": warp cannot run this driver (" << r.cell.cell.why << "); its cells run paced\n";
            m = TimeMode::paced;
            mode_note = "paced (warp could not hold it to virtual time)";
            cells.clear();
            i = static_cast<std::size_t>(-1);
            continue;
          }
          if (library.empty()) library = r.library;
          cell = r.cell;
        }
        if (interrupt_signal()) break;  // the cell cut short is not judged
        std::cout << "  " << folder << "  " << s.name << ": " << to_string(cell.cell.verdict) << ": " << cell.cell.why << "\n";
        cells.push_back(cell);
        ++made;
      }
      cells.resize(situations.size(), {{CellVerdict::not_run, "interrupted before this cell ran"}, ""});
      card.columns.push_back({library.empty() ? variant_label(variant) : library, variant, mode_note, folder});
      for (std::size_t i = 0; i < situations.size(); ++i) card.rows[i].cells.push_back(cells[i]);
    }
  } catch (const std::exception& e) {
    if (!interrupt_signal()) {
      std::cerr << "semsim conformance: " << what_failed(e) << "\n";
      return exit_code_after_error();
    }
  }
  if (interrupt_signal()) {  // what was judged, said to be partial, and every column asked for
    const std::size_t all = situations.size() * variants.size();
    card.partial = "PARTIAL: interrupted after " + std::to_string(made) + " of " + std::to_string(all) + " cells";
    std::cout << card.partial << "\n";
    for (std::size_t v = card.columns.size(); v < variants.size(); ++v) {
      card.columns.push_back({variant_label(variants[v]), variants[v], "not run", folder_for(variants[v])});
      for (CardRow& row : card.rows) row.cells.push_back({{CellVerdict::not_run, "interrupted before this cell ran"}, ""});
    }
  }
  fs::create_directories(out_dir);
  write_output_file((fs::path(out_dir) / "conformance.csv").string(), conformance_csv(card));
  write_output_file((fs::path(out_dir) / "conformance.html").string(), conformance_html(card));
  int defects = 0, unstaged = 0, cells = 0;
  for (const CardRow& row : card.rows)
    for (const CardCell& c : row.cells) {
      defects += c.cell.verdict == CellVerdict::defect;
      unstaged += c.cell.verdict == CellVerdict::not_staged;
      cells += c.cell.verdict != CellVerdict::not_applicable && c.cell.verdict != CellVerdict::not_run;
    }
  std::cout << "conformance: " << cells << " cells, " << defects << " defect(s), " << unstaged << " not staged; "
            << (fs::path(out_dir) / "conformance.html").string() << "\n";
  if (!card.partial.empty()) return kExitInterrupted;
  return defects ? kExitFinding : unstaged ? kExitBadInput : kExitOk;
}

}  // namespace semsim
