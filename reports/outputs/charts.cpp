#include "reports/outputs/charts.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <ostream>
#include <sstream>
#include <vector>

#include "reports/history/output_file.h"
#include "reports/history/text_format.h"
#include "reports/outputs/gnuplot.h"

namespace semsim {

namespace fs = std::filesystem;

namespace {

std::string in_dir(const std::string& dir, const std::string& name) {
  return (fs::path(dir) / name).string();
}

// Text for a data file's comment line: a newline in it would start a data line.
std::string one_line(std::string s) {
  for (char& c : s)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  return s;
}

// The script draws the chart twice: SVG, then PNG. `plot` is the body after the terminal lines;
// every file it names is a plain name in `dir`, where gnuplot runs (gnuplot.h). Returns whether
// gnuplot succeeded; throws OutputError if a chart file came out incomplete (a full disk: gnuplot
// itself exits 0 then).
bool draw(const Gnuplot& g, const std::string& dir, const std::string& name, const std::string& plot) {
  write_output_file(in_dir(dir, name + ".gp"),
                    "# Drawn by semsim; run `gnuplot " + name + ".gp` in this folder to redraw.\n"
                    "set terminal svg size 960,480 dynamic background rgb 'white'\n"
                    "set output '" + name + ".svg'\n" +
                    plot + "\n"
                    "set terminal " + g.png_terminal + " size 960,480\n"
                    "set output '" + name + ".png'\n"
                    "replot\nunset output\n");
  const bool ok = run_gnuplot(dir, name + ".gp");
  for (const char* extension : {".svg", ".png"})
    if (!chart_file_complete(in_dir(dir, name + extension)))
      throw OutputError("cannot write " + in_dir(dir, name + extension) + ": gnuplot left it incomplete" +
                        (ok ? std::string(" (a full disk, or a file-size limit?)") : "; its messages: " + in_dir(dir, name + ".gp.log")));
  return ok;
}

void write_holders(const std::string& path, const Summary& s) {
  // Explicit steps: each bucket's level from its start to the next bucket's start.
  std::ostringstream out;
  out << "# t_ms max_holders (most holders at any instant of a " << us_as_ms(s.holders_bucket_us)
      << " ms bucket)\n";
  for (std::size_t i = 0; i < s.holders.size(); ++i) {
    std::int64_t t0 = s.holders[i].t_us - s.start_us;
    std::int64_t t1 = i + 1 < s.holders.size() ? s.holders[i + 1].t_us - s.start_us
                                                : std::max(t0, s.end_us - s.start_us);
    out << us_as_ms(t0) << ' ' << s.holders[i].max_holders << '\n'
        << us_as_ms(t1) << ' ' << s.holders[i].max_holders << '\n';
  }
  write_output_file(path, out.str());
}

void write_skew(const std::string& path, const Summary& s) {
  std::ostringstream out;
  out << "# client mean_offset_ms success_rate decided_acquires\n";
  for (const ClientStats& c : s.per_client) {
    std::int64_t decided = c.granted + c.rejected;
    if (decided == 0) continue;
    out << c.client << ' ' << fixed(c.mean_offset_ms, 3) << ' '
        << fixed(static_cast<double>(c.granted) / static_cast<double>(decided), 6) << ' ' << decided
        << '\n';
  }
  write_output_file(path, out.str());
}

void write_latency_cdf(const std::string& path, const Summary& s) {
  std::ostringstream out;
  out << "# latency_ms cumulative_fraction\n";
  auto buckets = s.acquire_latency.buckets();
  double n = static_cast<double>(s.acquire_latency.count());
  std::uint64_t seen = 0;
  double last_written = -1;
  for (std::size_t i = 0; i < buckets.size(); ++i) {
    seen += buckets[i].second;
    double f = static_cast<double>(seen) / n;
    // At most ~2000 points: skip steps smaller than 0.05% except the last.
    if (f - last_written < 0.0005 && i + 1 < buckets.size()) continue;
    out << us_as_ms(buckets[i].first) << ' ' << fixed(f, 6) << '\n';
    last_written = f;
  }
  write_output_file(path, out.str());
}

// The extent of some values, as a gnuplot range "[lo:hi]" with room around it.
struct Range {
  double lo = 0, hi = 0;
  bool seen = false;
  bool empty() const { return !seen; }
  void add(double v) {
    lo = seen ? std::min(lo, v) : v;
    hi = seen ? std::max(hi, v) : v;
    seen = true;
  }
  // `pad` on each side; when all values are equal, a tenth of the value on each side, or
  // [-0.05:1] when they are all 0. A line at 0 stays visible above the axis.
  std::string padded(double pad) const {
    if (!seen) return "[0:1]";
    const bool flat = hi - lo <= 1e-9 * std::max(1.0, std::abs(lo));  // equal but for rounding
    if (flat && lo == 0) return "[-0.05:1]";
    if (flat) pad = std::abs(lo) * 0.1;
    return "[" + fixed(lo - pad, 6) + ":" + fixed(hi + pad, 6) + "]";
  }
};

}  // namespace

bool draw_run_charts(const std::string& out_dir, const Summary& s, std::ostream& warn) {
  fs::create_directories(out_dir);
  Gnuplot g = find_gnuplot(warn);
  if (!g.available) return false;
  bool ok = true;

  write_holders(in_dir(out_dir, "holders.dat"), s);
  const std::string dat = "'holders.dat'";
  std::string limit = std::to_string(s.limit);
  ok &= draw(g, out_dir, "holders",
             "set title " + gnuplot_quote(s.variant + ": holders over time (limit " + limit + ")") +
                 "\nset xlabel 'true time (ms)'\nset ylabel 'clients holding'\nset yrange [0:*]\n"
                 "set key outside bottom center horizontal\nset offsets 0,0,0.5,0\n"
                 "plot " + dat + " using 1:($2>" + limit + "?$2:" + limit + "):(" + limit +
                 ") with filledcurves lc rgb '#f4a0a0' title 'over-admission', \\\n  " + dat +
                 " using 1:2 with lines lc rgb '#1f4e9a' lw 1.5 title 'holders (max per " +
                 us_as_ms(s.holders_bucket_us) + " ms)', \\\n  " + limit +
                 " with lines dt 2 lc rgb '#c00000' title 'limit'");

  write_skew(in_dir(out_dir, "skew_success.dat"), s);
  ok &= draw(g, out_dir, "skew_success",
             "set title " + gnuplot_quote(s.variant + ": success rate by clock offset (r = " +
                                          (s.skew_success_correlation
                                               ? fixed(*s.skew_success_correlation, 3)
                                               : std::string("n/a")) +
                                          ")") +
                 "\nset xlabel 'mean clock offset at acquire (ms, client - true)'\n"
                 "set ylabel 'acquires granted / decided'\nset yrange [0:1.05]\nset key off\n"
                 "plot 'skew_success.dat'"
                 " using 2:3 with points pt 7 ps 0.8 lc rgb '#1f4e9a'");

  write_latency_cdf(in_dir(out_dir, "latency.dat"), s);
  if (s.acquire_latency.count() > 0)
    ok &= draw(g, out_dir, "latency",
               "set title " + gnuplot_quote(s.variant + ": acquire latency (invoke to ok/fail)") +
                   "\nset xlabel 'latency (ms)'\nset ylabel 'fraction of acquires <= latency'\n"
                   "set yrange [0:1]\nset key off\nset grid\n"
                   "plot 'latency.dat'"
                   " using 1:2 with steps lw 1.5 lc rgb '#1f4e9a'");
  if (!ok) warn << "warning: gnuplot failed on a chart in " << out_dir << " (its messages: *.gp.log there)\n";
  return ok;
}

bool draw_comparison_charts(const std::vector<PointStat>& stats, const std::string& x_label,
                            const std::string& out_dir, std::ostream& warn) {
  fs::create_directories(out_dir);
  Gnuplot g = find_gnuplot(warn);
  if (!g.available) return false;

  // Variants in the order of the stats; per variant its points, per point each metric's stat.
  const std::vector<SweepMetric>& metrics = sweep_metrics();
  std::vector<std::string> variants;
  std::map<std::string, std::map<double, std::vector<const PointStat*>>> table;
  for (const PointStat& p : stats) {
    if (!table.count(p.variant)) variants.push_back(p.variant);
    table[p.variant][p.value].push_back(&p);
  }
  // One data file per variant: x, then mean, low, high for each metric (NaN where undefined).
  std::vector<std::string> files;  // plain names in out_dir
  for (std::size_t i = 0; i < variants.size(); ++i) {
    files.push_back("compare_" + std::to_string(i) + ".dat");
    std::ostringstream out;
    out << "# " << one_line(variants[i]) << ": " << one_line(x_label);
    for (const SweepMetric& m : metrics) out << ' ' << m.name << " low high";
    out << '\n';
    for (const auto& [value, point] : table[variants[i]]) {
      out << fixed(value, 6);
      for (const SweepMetric& m : metrics) {
        const auto found = std::find_if(point.begin(), point.end(), [&](const PointStat* p) { return p->metric == &m; });
        if (found == point.end() || (*found)->n == 0) {
          out << " NaN NaN NaN";
          continue;
        }
        const PointStat& p = **found;
        const Interval ci = p.ci95.value_or(Interval{p.mean, p.mean});  // one run: the point alone
        out << ' ' << fixed(p.mean, 6) << ' ' << fixed(ci.low, 6) << ' ' << fixed(ci.high, 6);
      }
      out << '\n';
    }
    write_output_file(in_dir(out_dir, files.back()), out.str());
  }

  // Explicit ranges, so that one value, or equal values, still give a readable axis (and gnuplot
  // has no "empty range" to warn about).
  Range x;
  for (const PointStat& p : stats) x.add(p.value);
  const double x_span = x.hi > x.lo ? x.hi - x.lo : 1;
  bool ok = true;
  for (std::size_t k = 0; k < metrics.size(); ++k) {
    const SweepMetric& m = metrics[k];
    Range y;
    for (const PointStat& p : stats)
      if (p.metric == &m && p.n > 0) {
        y.add(p.mean);
        if (p.ci95) y.add(p.ci95->low), y.add(p.ci95->high);
      }
    std::string plot = "set title " + gnuplot_quote(m.label + " (mean, 95% interval)") +
                       "\nset xlabel " + gnuplot_quote(x_label) +
                       "\nset ylabel " + gnuplot_quote(m.label) + "\nset key outside right\nset grid\n" +
                       "set xrange " + x.padded(0.05 * x_span) + "\nset yrange " +
                       (m.kind == MetricKind::share ? "[-0.05:1.05]" : y.padded(0.05 * (y.hi - y.lo))) + "\n";
    if (y.empty()) plot += "set label 'undefined in every run' at graph 0.5, 0.5 center\n";
    plot += "plot ";
    const std::string column = std::to_string(2 + 3 * k);
    for (std::size_t i = 0; i < files.size(); ++i) {
      // Variants side by side, a little apart, so that their error bars do not hide each other.
      const double shift = (static_cast<double>(i) - static_cast<double>(files.size() - 1) / 2) * 0.006 * x_span;
      if (i) plot += ", \\\n  ";
      plot += gnuplot_quote(files[i]) + " using ($1+" + fixed(shift, 6) + "):" + column + ":" + std::to_string(3 + 3 * k) +
              ":" + std::to_string(4 + 3 * k) + " with yerrorlines pt 7 title " + gnuplot_quote(variants[i]);
    }
    if (files.empty()) plot += "NaN notitle";
    ok &= draw(g, out_dir, "compare_" + m.name, plot);
  }
  if (!ok) warn << "warning: gnuplot failed on a comparison chart in " << out_dir << " (its messages: *.gp.log there)\n";
  return ok;
}

}  // namespace semsim
