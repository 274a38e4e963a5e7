#include "reports/outputs/sweep_report.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "reports/history/output_file.h"
#include "reports/history/text_format.h"
#include "reports/outputs/charts.h"
#include "reports/outputs/page_safety.h"

namespace semsim {

namespace fs = std::filesystem;

namespace {

constexpr const char* kStyle =
    "body{font:15px/1.45 system-ui,sans-serif;color:#1a1a1a;margin:20px 32px;max-width:1040px}"
    "h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 6px;border-bottom:1px solid #ccc}"
    "h3{font-size:16px;margin:22px 0 4px}.context{color:#333;margin:0 0 10px}"
    "pre{background:#f2f2f2;padding:8px;overflow-x:auto;white-space:pre-wrap}"
    "table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #bbb;padding:4px 10px;text-align:right}"
    "th{background:#eef0f4}caption{text-align:left;font-weight:600;padding:4px 0}"
    ".verdicts td,.verdicts th{text-align:left}.verdicts th.variant{font-family:monospace;font-size:15px}"
    ".unsafe{color:#a11;font-weight:700}.unknown{color:#8a5a00;font-weight:700}.safe{color:#176b2c;font-weight:600}"
    "small{color:#444}.n{color:#666}svg{max-width:100%;height:auto}td.outside{background:#eeeeee}"
    "a.outside{color:#333;text-decoration:none;font-weight:700}"
    "nav ul{margin:4px 0;padding-left:20px;columns:2}nav li{margin:1px 0}.flat li{margin:2px 0}"
    "@media print{nav{display:none}h2{break-after:avoid}svg{break-inside:avoid}}";

// The <svg> element of a file gnuplot wrote, without its XML prologue; "" if there is none.
std::string inline_svg(const fs::path& path) {
  std::ifstream in(path);
  if (!in) return {};
  std::stringstream text;
  text << in.rdbuf();
  const std::string svg = text.str();
  const std::size_t start = svg.find("<svg");
  return start == std::string::npos ? std::string() : svg.substr(start);
}

std::string format_value(const SweepMetric& m, double v) {
  return fixed(v, m.decimals == 0 ? 2 : std::min(m.decimals, 4));  // a mean of counts has decimals
}

// A parameter value as people write it: "5", "0.5", "1000".
std::string value_text(double v) {
  std::string s = fixed(v, 3);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s == "-0" ? "0" : s;
}

struct Names {
  std::string parameter;  // "skew (ms)"
  std::string unit;       // " ms" or ""
};

// Rows: values ascending; columns: variants in the order of the sweep.
// A cell's mark when its point is outside its variant's preconditions: a dagger, the reason as its
// hover text, linked to the list of such points.
std::string outside_mark(const std::string* why) {
  if (!why) return {};
  return " <a class=outside href=\"#preconditions\" title=\"outside its preconditions: " + escape_html(*why) + "\">&dagger;</a>";
}

void write_table(std::ostream& out, const SweepMetric& m, const std::vector<PointStat>& stats,
                 const std::vector<std::string>& variants, const Names& names, const std::vector<VariantPromise>& promises) {
  std::map<double, std::map<std::string, const PointStat*>> rows;
  for (const PointStat& p : stats)
    if (p.metric == &m) rows[p.value][p.variant] = &p;
  out << "<table class=stats><tr><th>" << escape_html(names.parameter) << "</th>";
  for (const std::string& v : variants) out << "<th>" << escape_html(v) << "</th>";
  out << "</tr>\n";
  for (const auto& [value, cells] : rows) {
    out << "<tr><td>" << value_text(value) << "</td>";
    for (const std::string& v : variants) {
      const auto cell = cells.find(v);
      const std::string* why = outside_promise(promises, v, value);
      out << (why ? "<td class=outside>" : "<td>");
      if (cell == cells.end() || cell->second->n == 0) {
        out << "undefined";
      } else {
        const PointStat& p = *cell->second;
        out << format_value(m, p.mean);
        if (p.ci95) out << " <small>[" << format_value(m, p.ci95->low) << ", " << format_value(m, p.ci95->high) << "]</small>";
        out << " <small class=n>n=" << p.n << "</small>";
      }
      out << outside_mark(why) << "</td>";
    }
    out << "</tr>\n";
  }
  out << "</table>\n";
}

// A relative path as an href: every byte but [A-Za-z0-9-._~/] percent-encoded (a folder named after
// a script variant's file may hold anything), so that it is a path, never a scheme or markup.
std::string url_path(const std::string& path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const unsigned char c : path) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

// The link to a run's timeline.html, when the run has one beside report.html ("" if not).
std::string timeline_href(const std::string& out_dir, const RunVerdict& v) {
  if (v.folder.empty() || !fs::is_regular_file(fs::path(out_dir) / v.folder / "timeline.html")) return {};
  return url_path(fs::path(v.folder).generic_string() + "/timeline.html");
}

// "3 of 10 runs"
std::string of_runs(int k, int n) { return std::to_string(k) + " of " + std::to_string(n) + " run" + (n == 1 ? "" : "s"); }

// The verdict table: one row per variant, what a reviewer asks first.
void write_verdicts(std::ostream& out, const std::string& out_dir, const SweepReport& r, const std::vector<std::string>& variants,
                    const Names& names) {
  // A partial sweep's verdicts are over the runs it has: said in the caption and in every "safe".
  const bool partial = !r.partial.empty();
  out << "<table id=\"verdicts\" class=verdicts>\n<caption>Verdicts" << (partial ? " (PARTIAL: not every run)" : "")
      << ": " << r.runs.size() << " runs, " << r.seeds
      << " per point (variant, " << escape_html(r.parameter) << ")</caption>\n"
      << "<tr><th>variant</th><th>safety</th><th>over-admitted</th><th>worst over-admission</th>"
      << "<th>first over-admits at<br>" << escape_html(names.parameter) << "</th><th>liveness</th>"
      << (r.promises.empty() ? "" : "<th>preconditions<br><small>(what the source articles promise)</small></th>") << "</tr>\n";
  for (const std::string& variant : variants) {
    int n = 0, over = 0, unknown = 0, live_bad = 0, live_unknown = 0, worst = 0, over_inside = 0;
    const auto promise = std::find_if(r.promises.begin(), r.promises.end(), [&](const VariantPromise& p) { return p.variant == variant; });
    double worst_at = 0;
    const RunVerdict* worst_run = nullptr;
    std::map<double, std::pair<int, int>> per_value;  // value -> (over-admitting runs, runs)
    for (const RunVerdict& v : r.runs) {
      if (v.variant != variant) continue;
      ++n;
      auto& [k, m] = per_value[v.value];
      ++m;
      if (v.over_admission > 0) ++over, ++k, over_inside += !outside_promise(r.promises, variant, v.value);
      unknown += v.safety == Verdict::unknown;
      live_bad += v.liveness == Verdict::invalid;
      live_unknown += v.liveness == Verdict::unknown;
      if (v.over_admission > worst || (v.over_admission == worst && worst > 0 && v.value < worst_at))
        worst = v.over_admission, worst_at = v.value, worst_run = &v;
    }
    if (n == 0) {  // asked for, never run: a partial sweep stopped before it
      out << "<tr><th class=variant>" << escape_html(variant) << "</th><td class=unknown colspan=" << (r.promises.empty() ? 5 : 6)
          << ">not run <small>("
          << (partial ? "the sweep stopped before any run of it finished" : "no run of it was given") << ")</small></td></tr>\n";
      continue;
    }
    const char* safety = over ? "unsafe" : unknown ? "unknown" : "safe";
    out << "<tr><th class=variant>" << escape_html(variant) << "</th><td class=\"" << safety << "\">" << safety
        << (over || unknown ? ""
            : partial       ? " <small>in the " + std::to_string(n) + " run" + (n == 1 ? "" : "s") + " made (partial)</small>"
                            : " <small>in every run</small>")
        << "</td><td class=num>"
        << (over ? "<b>" + of_runs(over, n) + "</b>" : of_runs(0, n));
    if (unknown) out << "<br><small>" << unknown << " unknown (an acquire's outcome lost)</small>";
    if (over && promise != r.promises.end() && promise->promised)
      out << "<br><small>" << (over_inside ? "<b>" + std::to_string(over_inside) + " inside its preconditions</b>"
                                           : std::string("each outside its preconditions"))
          << "</small>";
    out << "</td><td class=num>";
    if (worst > 0) {
      out << "<b>+" << worst << "</b> <small>at " << value_text(worst_at) << names.unit;
      if (const std::string href = timeline_href(out_dir, *worst_run); !href.empty())
        out << " (<a href=\"" << href << "\">its timeline</a>)";
      out << "</small>";
    }
    else
      out << "none";
    out << "</td><td class=num>";
    const auto first = std::find_if(per_value.begin(), per_value.end(), [](const auto& kv) { return kv.second.first > 0; });
    if (first == per_value.end())
      out << "&mdash;";
    else
      out << "<b>" << value_text(first->first) << names.unit << "</b> <small>(" << of_runs(first->second.first, first->second.second)
          << " there)</small>";
    const char* liveness = live_bad ? "unsafe" : live_unknown ? "unknown" : "safe";
    out << "</td><td class=\"" << liveness << "\">"
        << (live_bad ? "stalls in " + of_runs(live_bad, n)
                     : live_unknown ? "unknown in " + of_runs(live_unknown, n) : std::string("no stall"))
        << "</td>";
    if (!r.promises.empty()) {
      out << "<td>";
      if (promise == r.promises.end()) {
        out << "&mdash;";
      } else if (!promise->promised) {
        // The registry's texts of such variants say so first ("none (a planted bug)").
        out << (promise->text.starts_with("none") ? escape_html(promise->text)
                                                   : "none promised <small>(" + escape_html(promise->text) + ")</small>");
      } else if (promise->outside.empty()) {
        out << "kept at every point <small>(" << escape_html(promise->text) << ")</small>";
      } else {
        std::string at;
        for (const auto& [value, why] : promise->outside) at += (at.empty() ? "" : ", ") + value_text(value);
        out << "outside at <b>" << at << names.unit << "</b> <small>(<a href=\"#preconditions\">why</a>; "
            << escape_html(promise->text) << ")</small>";
      }
      out << "</td>";
    }
    out << "</tr>\n";
  }
  out << "</table>\n";
}

struct Section {
  const SweepMetric* metric;
  MetricShape shape;
};

bool any_outside(const SweepReport& r) {
  return std::any_of(r.promises.begin(), r.promises.end(), [](const VariantPromise& p) { return !p.outside.empty(); });
}

// The points outside their variant's preconditions, each with why (nothing when there are none).
void write_outside_promises(std::ostream& out, const SweepReport& r, const Names& names) {
  if (!any_outside(r)) return;
  out << "<h2 id=\"preconditions\">Points outside their variant's preconditions</h2>\n<p><small>The source articles "
         "promise a variant safe only under its preconditions (<code>semsim check</code> keeps its cases inside them; "
         "<code>semsim check --help</code> lists them). At these points the runs fall outside them, for the reason given: an "
         "over-admission there is what the promise leaves out, not a defect of the variant. Marked &dagger; in the tables "
         "and ringed on the charts.</small></p>\n<table class=verdicts><tr><th>variant</th><th>"
      << escape_html(names.parameter) << "</th><th>outside because</th></tr>\n";
  for (const VariantPromise& p : r.promises)
    for (const auto& [value, why] : p.outside)
      out << "<tr><th class=variant>" << escape_html(p.variant) << "</th><td>" << value_text(value) << "</td><td>"
          << escape_html(why) << "</td></tr>\n";
  out << "</table>\n";
}

}  // namespace

std::vector<RunVerdict> run_verdicts(const std::vector<SweepRun>& runs, const std::vector<std::string>& folders) {
  std::vector<RunVerdict> out;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const SweepRun& r = runs[i];
    out.push_back({r.variant, r.value, r.summary.over_admission, r.summary.safety, r.summary.liveness,
                   i < folders.size() ? folders[i] : std::string()});
  }
  return out;
}

namespace {

// Each run's seed linked to its timeline.html, by value (rows) and variant (columns); the runs that
// over-admitted in red with how far. Nothing when no run has a timeline beside the page.
void write_run_links(std::ostream& out, const std::string& out_dir, const SweepReport& r,
                     const std::vector<std::string>& variants, const Names& names) {
  std::map<double, std::map<std::string, std::string>> cells;
  bool any = false;
  for (const RunVerdict& v : r.runs) {
    const std::string href = timeline_href(out_dir, v);
    if (href.empty()) continue;
    any = true;
    std::string seed = fs::path(v.folder).filename().string();
    if (seed.starts_with("seed-")) seed.erase(0, 5);
    std::string& cell = cells[v.value][v.variant];
    cell += (cell.empty() ? "" : " ") + std::string("<a href=\"") + href + "\"" +
            (v.over_admission > 0 ? " class=unsafe title=\"over-admitted: +" + std::to_string(v.over_admission) + "\">" : ">") +
            escape_html(seed) + (v.over_admission > 0 ? "<sup>+" + std::to_string(v.over_admission) + "</sup>" : "") + "</a>";
  }
  if (!any) return;
  out << "<h2 id=\"runs\">Each run's timeline</h2>\n<p><small>Each run by its seed, linked to its timeline.html (who held a "
         "permit when); in red, with how many holders above the limit, the runs that over-admitted.</small></p>\n"
      << "<table class=runs><tr><th>" << escape_html(names.parameter) << "</th>";
  for (const std::string& v : variants) out << "<th>" << escape_html(v) << "</th>";
  out << "</tr>\n";
  for (const auto& [value, by_variant] : cells) {
    out << "<tr><td>" << value_text(value) << "</td>";
    for (const std::string& v : variants) {
      const auto cell = by_variant.find(v);
      const std::string* why = outside_promise(r.promises, v, value);
      out << (why ? "<td class=outside>" : "<td>") << (cell == by_variant.end() ? std::string("&mdash;") : cell->second)
          << outside_mark(why) << "</td>";
    }
    out << "</tr>\n";
  }
  out << "</table>\n";
}

// The checker's definitions beside the page (DEFINITIONS.md): the link holds wherever the folder
// is published. "" when there is no such file to copy.
std::string copy_definitions(const std::string& out_dir, const std::string& definitions) {
  if (definitions.empty()) return {};
  std::ifstream in(definitions, std::ios::binary);
  if (!in || !fs::is_regular_file(definitions)) return {};
  std::stringstream text;
  text << in.rdbuf();
  write_output_file((fs::path(out_dir) / "DEFINITIONS.md").string(), text.str());
  return "DEFINITIONS.md";
}

}  // namespace

std::string sweep_caption(const std::string& options, const std::string& parameter, int seeds) {
  const std::string context = options_caption(options, parameter);
  return context + (context.empty() ? "" : ", ") + std::to_string(seeds) + " seed" + (seeds == 1 ? "" : "s") + " per point";
}

void write_sweep_report(const std::string& out_dir, const SweepReport& r) {
  std::vector<std::string> variants = r.variants;
  for (const PointStat& p : r.stats)
    if (std::find(variants.begin(), variants.end(), p.variant) == variants.end()) variants.push_back(p.variant);
  std::string title = "semsim compare: ";
  for (std::size_t i = 0; i < variants.size(); ++i) title += (i ? ", " : "") + variants[i];
  title += " by " + r.parameter;
  const Names names{r.parameter + (r.in_ms ? " (ms)" : ""), r.in_ms ? " ms" : ""};

  // Charts where the variants differ first, then the others that vary, then what is the same everywhere.
  std::vector<Section> differ, vary, same, undefined;
  for (const SweepMetric& m : sweep_metrics()) {
    const MetricShape shape = metric_shape(r.stats, m);
    (shape.kind == MetricShape::undefined_everywhere ? undefined
     : shape.kind == MetricShape::same_everywhere    ? same
     : shape.variants_differ                         ? differ
                                                     : vary)
        .push_back({&m, shape});
  }
  const std::string copied = copy_definitions(out_dir, r.definitions);
  const std::string definitions = copied.empty() ? "reports/DEFINITIONS.md in semsim's documentation"
                                                 : "<a href=\"" + copied + "\">the checker's definitions</a> (DEFINITIONS.md beside this page)";

  const std::string path = (fs::path(out_dir) / "report.html").string();
  std::ostringstream out;
  // No script at all, no style but the page's own, nothing loaded (page_safety.h): a chart or a
  // text that held markup could not run or load anything.
  out << "<!DOCTYPE html>\n<html lang=en><head><meta charset=\"utf-8\">" << page_policy({}, {kStyle})
      << "<meta name=viewport content=\"width=device-width, initial-scale=1\"><title>" << escape_html(title) << "</title>\n"
      << "<style>" << kStyle << "</style></head><body>\n"
      << "<h1>" << escape_html(title) << "</h1>\n"
      << (r.partial.empty() ? "" : "<p id=\"partial\"><b>" + escape_html(r.partial) + "</b></p>\n")
      << "<p class=context>" << escape_html(r.caption.empty() ? sweep_caption(r.options, r.parameter, r.seeds) : r.caption)
      << "; seeds " << r.first_seed;
  if (r.seeds > 1) out << "&ndash;" << r.first_seed + static_cast<std::uint64_t>(r.seeds - 1);
  out << ". semsim " << escape_html(r.semsim_version) << " against " << escape_html(r.redis) << ".</p>\n";
  if (!r.meaning.empty()) out << "<p class=context id=\"meaning\">" << escape_html(r.meaning) << ".</p>\n";
  if (!r.runs.empty())
    write_verdicts(out, out_dir, r, variants, names);
  else
    out << "<p id=\"verdicts\">No per-run results were given: no verdicts.</p>\n";
  out << "<p><small>Over-admission: more than the limit of clients believed they held a permit at one instant "
    "(worst: the most above the limit in one run). A stall: a free permit not granted for longer than the liveness "
    "bound. Definitions: "
      << definitions << ".</small></p>\n";

  write_outside_promises(out, r, names);

  // The table of contents.
  const auto anchor = [](const SweepMetric& m) { return "m-" + m.name; };
  out << "<nav><b>Contents</b><ul>\n";
  for (const auto* group : {&differ, &vary})
    for (const Section& s : *group)
      out << "<li><a href=\"#" << anchor(*s.metric) << "\">" << escape_html(s.metric->label) << "</a>"
          << (group == &differ ? " <small>(variants differ)</small>" : "") << "</li>\n";
  if (any_outside(r)) out << "<li><a href=\"#preconditions\">points outside their preconditions</a></li>\n";
  if (!same.empty() || !undefined.empty()) out << "<li><a href=\"#same\">the same everywhere</a></li>\n";
  if (std::any_of(r.runs.begin(), r.runs.end(), [&](const RunVerdict& v) { return !timeline_href(out_dir, v).empty(); }))
    out << "<li><a href=\"#runs\">each run's timeline</a></li>\n";
  out << "<li><a href=\"#reproduce\">reproduce</a></li><li><a href=\"#options\">run options</a></li></ul></nav>\n"
      << "<p><small>Under each chart, each cell: the mean over the runs where the metric is defined, [its 95% interval] "
    "(Student t; Wilson for the share of runs over-admitting), and n, the runs counted.</small></p>\n";

  const auto section = [&](const Section& s) {
    const SweepMetric& m = *s.metric;
    out << "<h3 id=\"" << anchor(m) << "\">" << escape_html(m.label) << " <small>(" << m.name << ")</small></h3>\n";
    const std::string svg = r.charts ? inline_svg(fs::path(out_dir) / ("compare_" + m.name + ".svg")) : "";
    if (svg.empty()) out << "<p><small>No chart (--no-charts, or gnuplot not available).</small></p>\n";
    else out << svg << "\n";
    write_table(out, m, r.stats, variants, names, r.promises);
    if (std::any_of(r.promises.begin(), r.promises.end(), [](const VariantPromise& p) { return !p.outside.empty(); }))
      out << "<p><small>&dagger; and a ring on the chart: a point outside its variant's preconditions (<a "
             "href=\"#preconditions\">which, and why</a>).</small></p>\n";
  };
  if (!differ.empty()) {
    out << "<h2>Where the variants differ</h2>\n<p><small>At some " << escape_html(names.parameter)
        << ", two variants' 95% intervals do not overlap.</small></p>\n";
    for (const Section& s : differ) section(s);
  }
  if (!vary.empty()) {
    out << "<h2>" << (differ.empty() ? "Charts" : "The other charts") << "</h2>\n";
    for (const Section& s : vary) section(s);
  }
  if (!same.empty() || !undefined.empty()) {
    out << "<h2 id=\"same\">The same everywhere</h2>\n<p><small>Not drawn: a flat line shows nothing.</small></p>\n"
           "<ul class=flat>\n";
    for (const Section& s : same)
      out << "<li>" << escape_html(s.metric->label) << " <small>(" << s.metric->name << ")</small>: <b>"
          << value_text(s.shape.value) << "</b> in every run of every variant</li>\n";
    for (const Section& s : undefined)
      out << "<li>" << escape_html(s.metric->label) << " <small>(" << s.metric->name
          << ")</small>: undefined in every run</li>\n";
    out << "</ul>\n";
  }
  write_run_links(out, out_dir, r, variants, names);
  out << "<h2 id=\"reproduce\">Reproduce</h2>\n<pre>" << escape_html(r.command) << "</pre>\n"
      << "<p><small>Data: compare_" << escape_html(r.parameter) << ".csv (one row per run) and compare_"
      << escape_html(r.parameter) << "_stats.csv beside this page.</small></p>\n"
      << "<details id=\"options\"><summary>Run options common to every run</summary>\n<p><small>The variant, the seed "
    "and the swept parameter vary (and the time mode, each variant's default, unless --mode was given).</small></p>"
    "\n<pre>"
      << escape_html(r.options) << "</pre></details>\n";
  out << "</body></html>\n";
  write_output_file(path, out.str());
}

}  // namespace semsim
