#include "reports/outputs/sweep_report.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "reports/history/output_file.h"
#include "reports/history/text_format.h"

namespace semsim {

namespace fs = std::filesystem;

namespace {

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

// Rows: values ascending; columns: variants in the order of the sweep.
void write_table(std::ostream& out, const SweepMetric& m, const std::vector<PointStat>& stats,
                 const std::vector<std::string>& variants) {
  std::map<double, std::map<std::string, const PointStat*>> rows;
  for (const PointStat& p : stats)
    if (p.metric == &m) rows[p.value][p.variant] = &p;
  out << "<table><tr><th>" << "value" << "</th>";
  for (const std::string& v : variants) out << "<th>" << escape_html(v) << "</th>";
  out << "</tr>\n";
  for (const auto& [value, cells] : rows) {
    out << "<tr><td>" << fixed(value, 3) << "</td>";
    for (const std::string& v : variants) {
      const auto cell = cells.find(v);
      out << "<td>";
      if (cell == cells.end() || cell->second->n == 0) {
        out << "undefined";
      } else {
        const PointStat& p = *cell->second;
        out << format_value(m, p.mean);
        if (p.ci95) out << " <small>[" << format_value(m, p.ci95->low) << ", " << format_value(m, p.ci95->high) << "]</small>";
        out << " <small class=n>n=" << p.n << "</small>";
      }
      out << "</td>";
    }
    out << "</tr>\n";
  }
  out << "</table>\n";
}

}  // namespace

void write_sweep_report(const std::string& out_dir, const SweepReport& r) {
  std::vector<std::string> variants;
  for (const PointStat& p : r.stats)
    if (std::find(variants.begin(), variants.end(), p.variant) == variants.end()) variants.push_back(p.variant);
  std::string title = "semsim compare: ";
  for (std::size_t i = 0; i < variants.size(); ++i) title += (i ? ", " : "") + variants[i];
  title += " by " + r.parameter;

  const std::string path = (fs::path(out_dir) / "report.html").string();
  std::ostringstream out;
  out << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" << escape_html(title) << "</title>\n"
      << "<style>body{font:14px sans-serif;margin:16px 32px;max-width:1000px}pre{background:#f4f4f4;padding:8px;"
         "overflow-x:auto}table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ccc;padding:3px 8px;"
         "text-align:right}small{color:#555}.n{color:#999}svg{max-width:100%;height:auto}</style></head><body>\n"
      << "<h1>" << escape_html(title) << "</h1>\n"
      << (r.partial.empty() ? "" : "<p id=\"partial\"><b>" + escape_html(r.partial) + "</b></p>\n")
      << "<p>semsim " << escape_html(r.semsim_version) << " against " << escape_html(r.redis) << ". " << r.seeds
      << " run" << (r.seeds == 1 ? "" : "s") << " per point (variant, " << escape_html(r.parameter)
      << "), with seeds " << r.first_seed;
  if (r.seeds > 1) out << " to " << r.first_seed + static_cast<std::uint64_t>(r.seeds - 1);
  out << " at every point; " << (r.in_ms ? "values in ms" : "values are counts")
      << ". Each cell: the mean over the runs where the metric is defined, [its 95% interval] (Student t; "
         "Wilson for the share of runs over-admitting), and n, the runs counted. Definitions: "
         "reports/DEFINITIONS.md in semsim's source. Data: compare_"
      << escape_html(r.parameter) << ".csv (one row per run) and compare_" << escape_html(r.parameter)
      << "_stats.csv beside this page.</p>\n"
      << "<h2>Reproduce</h2>\n<pre>" << escape_html(r.command) << "</pre>\n"
      << "<h2>Run options</h2>\n<p>Common to every run; the variant, the seed and the swept parameter vary (and the time mode, "
         "each variant's default, unless --mode was given).</p>\n<pre>"
      << escape_html(r.options) << "</pre>\n";
  for (const SweepMetric& m : sweep_metrics()) {
    out << "<h2 id=\"" << m.name << "\">" << escape_html(m.label) << " <small>(" << m.name << ")</small></h2>\n";
    const std::string svg = r.charts ? inline_svg(fs::path(out_dir) / ("compare_" + m.name + ".svg")) : "";
    if (svg.empty()) out << "<p><small>No chart (--no-charts, or gnuplot not available).</small></p>\n";
    else out << svg << "\n";
    write_table(out, m, r.stats, variants);
  }
  out << "</body></html>\n";
  write_output_file(path, out.str());
}

}  // namespace semsim
