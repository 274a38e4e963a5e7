#include "reports/outputs/charts.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>
#include <sstream>
#include <vector>

#include "reports/checks/fairness.h"
#include "reports/history/output_file.h"
#include "reports/history/text_format.h"
#include "reports/outputs/gnuplot.h"

namespace semsim {

namespace fs = std::filesystem;

namespace {

std::string in_dir(const std::string& dir, const std::string& name) {
  return (fs::path(dir) / name).string();
}

// Series styles, readable in greyscale and in print: each has its own marker shape and dash as
// well as its colour, and every colour is dark enough for white paper (no yellow, no pastel).
// gnuplot's point types: 7 circle, 5 square, 9 triangle, 11 triangle down, 13 diamond (filled),
// 6, 4, 8, 10, 12 the same open.
struct SeriesStyle {
  const char* colour;
  int point;
  const char* dash;
};
constexpr SeriesStyle kSeries[] = {
    {"#1f4e9a", 7, "1"},          {"#c0392b", 5, "2"},          {"#1b7f3b", 9, "3"},
    {"#7b3f9e", 13, "4"},         {"#000000", 11, "5"},         {"#a04e00", 6, "(8,4,2,4)"},
    {"#00707a", 4, "(2,3)"},      {"#6d4c41", 8, "(12,4)"},     {"#b0125b", 10, "(4,2,4,6)"},
    {"#3d5a00", 12, "(16,4,4,4)"},
};
constexpr std::size_t kStyles = sizeof kSeries / sizeof kSeries[0];

// `set style line` for every series of a chart, so that `ls N` picks series N's look.
std::string series_styles(std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < std::max<std::size_t>(n, 1); ++i) {
    const SeriesStyle& s = kSeries[i % kStyles];
    out += "set style line " + std::to_string(i + 1) + " lc rgb '" + s.colour + "' lw 2 pt " +
           std::to_string(s.point) + " ps 1.3 dt " + s.dash + "\n";
  }
  return out;
}

// The caption: one line of context under the title, in grey, inside the picture.
std::string caption_lines(const std::string& caption) {
  if (caption.empty()) return "";
  return "set label 901 " + gnuplot_quote(caption) +
         " at graph 0.5, graph 1 center offset 0,0.9 font ',10' textcolor rgb '#333333'\nset tmargin 4.5\n"
         "set title offset 0,0.4\n";
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
                    "set terminal svg size 960,520 dynamic noenhanced font 'sans,12' background rgb 'white'\n"
                    "set output '" + name + ".svg'\n"
                    "set border lw 1 lc rgb '#444444'\nset grid lc rgb '#d8d8d8' lw 1 dt 1\n" +
                    plot + "\n"
                    "set terminal " + g.png_terminal + " size 960,520 noenhanced font 'sans,11' background rgb 'white'\n"
                    "set output '" + name + ".png'\n"
                    "replot\nunset output\n");
  const bool ok = run_gnuplot(dir, name + ".gp");
  for (const char* extension : {".svg", ".png"})
    if (!chart_file_complete(in_dir(dir, name + extension)))
      throw OutputError("cannot write " + in_dir(dir, name + extension) + ": gnuplot left it incomplete" +
                        (ok ? std::string(" (a full disk, or a file-size limit?)") : "; its messages: " + in_dir(dir, name + ".gp.log")));
  // Hovering a line names its series (gnuplot's own hover text is gnuplot_plot_N).
  std::ifstream in(in_dir(dir, name + ".svg"), std::ios::binary);
  std::stringstream svg;
  svg << in.rdbuf();
  write_output_file(in_dir(dir, name + ".svg"), name_svg_series(svg.str()));
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
  if (s.acquire_latency.count() > 0) out << us_as_ms(s.acquire_latency.buckets().front().first) << " 0.000000\n";
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

// A parameter value as a tick label: "5", "0.5", "1000" (no trailing zeros).
std::string value_label(double v) {
  std::string s = fixed(v, 3);
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s == "-0" ? "0" : s;
}

// The latency axis from 0; a run whose acquires all took the same time says so.
std::string latency_range(const Summary& s) {
  const auto buckets = s.acquire_latency.buckets();
  if (buckets.empty()) return "";
  const double hi = static_cast<double>(buckets.back().first) / 1000.0;
  std::string out = "set xrange [0:" + fixed(std::max(hi * 1.1, 1.0), 3) + "]\n";
  if (buckets.size() == 1)
    out += "set label 903 " + gnuplot_quote("every decided acquire took " + us_as_ms(buckets.front().first) + " ms") +
           " at graph 0.5, graph 0.5 center\n";
  return out;
}

bool same(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max({1.0, std::abs(a), std::abs(b)}); }

}  // namespace

std::string options_caption(const std::string& options, const std::string& leave_out) {
  std::map<std::string, std::string> kv;
  std::istringstream lines(options);
  for (std::string line; std::getline(lines, line);) {
    const std::size_t eq = line.find(" = ");
    if (eq != std::string::npos) kv[line.substr(0, eq)] = line.substr(eq + 3);
  }
  std::string out;
  const auto add = [&](const std::string& key, const std::string& before, const std::string& after = "") {
    if (key == leave_out || !kv.count(key)) return;
    out += (out.empty() ? "" : ", ") + before + kv[key] + after;
  };
  add("clients", "", " clients");
  add("limit", "limit ");
  add("skew", "skew ");
  add("delay", "delay ");
  add("timeout", "timeout ");
  add("hold", "hold ");
  add("duration", "", " runs");
  return out;
}

XScale x_scale(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end(), same), values.end());
  if (values.size() < 3) return XScale::linear;
  const double span = values.back() - values.front();
  const double step = span / static_cast<double>(values.size() - 1);
  bool even = true;
  for (std::size_t i = 1; i < values.size(); ++i) even &= std::abs(values[i] - values[i - 1] - step) <= 0.01 * span;
  if (even) return XScale::linear;
  if (values.front() > 0 && values.back() / values.front() >= 10) return XScale::log;
  return XScale::categorical;
}

MetricShape metric_shape(const std::vector<PointStat>& stats, const SweepMetric& m) {
  MetricShape shape;
  bool first = true, varies = false;
  for (const PointStat& p : stats) {
    if (p.metric != &m || p.n == 0) continue;
    if (first) shape.value = p.mean;
    first = false;
    varies |= !same(p.mean, shape.value);
    // A mean whose runs differ varies even where the means agree; a share's Wilson interval is
    // never a point, so for a share only the share itself counts.
    if (m.kind == MetricKind::mean && p.ci95) varies |= !same(p.ci95->low, p.mean) || !same(p.ci95->high, p.mean);
  }
  if (first) return shape;
  shape.kind = varies ? MetricShape::varies : MetricShape::same_everywhere;
  // Variants differ where, at one value, two of them have intervals that do not overlap (with
  // one run per point: different values).
  std::map<double, std::vector<Interval>> by_value;
  for (const PointStat& p : stats)
    if (p.metric == &m && p.n > 0) by_value[p.value].push_back(p.ci95.value_or(Interval{p.mean, p.mean}));
  for (const auto& [value, intervals] : by_value)
    for (const Interval& a : intervals)
      for (const Interval& b : intervals) shape.variants_differ |= a.high < b.low && !same(a.high, b.low);
  return shape;
}

bool draw_run_charts(const std::string& out_dir, const Summary& s, std::ostream& warn, const std::string& caption) {
  fs::create_directories(out_dir);
  Gnuplot g = find_gnuplot(warn);
  if (!g.available) return false;
  bool ok = true;

  write_holders(in_dir(out_dir, "holders.dat"), s);
  const std::string dat = "'holders.dat'";
  std::string limit = std::to_string(s.limit);
  // The first episodes as red spans at least 0.4% of the width wide, so that a 10 ms steal in a
  // 2 s run is seen, and the first one named.
  const double span_ms = static_cast<double>(std::max<std::int64_t>(s.end_us - s.start_us, 1)) / 1000.0;
  std::string episodes;
  for (std::size_t i = 0; i < s.episodes.size() && i < 50; ++i) {
    const Episode& e = s.episodes[i];
    const double a = static_cast<double>(e.start_us - s.start_us) / 1000.0;
    const double b = std::max(static_cast<double>(e.end_us - s.start_us) / 1000.0, a + span_ms * 0.004);
    episodes += "set object " + std::to_string(i + 1) + " rect from " + fixed(a, 3) + ", graph 0 to " + fixed(b, 3) +
                ", graph 1 fc rgb '#c0392b' fs transparent solid 0.22 noborder behind\n";
  }
  if (!s.episodes.empty()) {
    const Episode& e = s.episodes.front();
    episodes += "set label 902 " +
                gnuplot_quote("first over-admission: " + us_as_ms(e.start_us - s.start_us) + " ms, " +
                              std::to_string(e.peak_holders) + " holders") +
                " at " + fixed(static_cast<double>(e.start_us - s.start_us) / 1000.0, 3) +
                ", graph 0.96 left offset 1,0 font ',10' textcolor rgb '#8e1b10' front\n";
  }
  ok &= draw(g, out_dir, "holders",
             "set title " + gnuplot_quote(s.variant + ": holders over time (limit " + limit + ")") + "\n" +
                 caption_lines(caption) + episodes +
                 "set xlabel 'true time (ms)'\nset ylabel 'clients holding'\nset yrange [0:*]\n" +
                 (s.max_holders <= 12 ? "set ytics 1\n" : s.max_holders <= 30 ? "set ytics 2\n" : "") +
                 "set xrange [0:" + fixed(span_ms, 3) + "]\n"
                 "set key outside bottom center horizontal\nset offsets 0,0,0.5,0\n"
                 "plot " + dat + " using 1:($2>" + limit + "?$2:" + limit + "):(" + limit +
                 ") with filledcurves lc rgb '#c0392b' fs solid 0.85 noborder title 'above the limit', \\\n  " + dat +
                 " using 1:2 with lines lc rgb '#1f4e9a' lw 1.5 title 'holders (max per " +
                 us_as_ms(s.holders_bucket_us) + " ms)', \\\n  " + limit +
                 " with lines dt 2 lw 2 lc rgb '#000000' title 'limit'");

  write_skew(in_dir(out_dir, "skew_success.dat"), s);
  const std::string r = s.skew_success_correlation ? "r = " + fixed(*s.skew_success_correlation, 3)
                                                   : "r undefined: " + skew_success(s.per_client).undefined_because;
  ok &= draw(g, out_dir, "skew_success",
             "set title " + gnuplot_quote(s.variant + ": success rate by clock offset (" + r + ")") + "\n" +
                 caption_lines(caption) +
                 "set xlabel 'mean clock offset at acquire (ms, client - true; negative: clock behind)'\n"
                 "set ylabel 'acquires granted / decided'\nset yrange [-0.05:1.08]\nset key off\n"
                 "set offsets graph 0.05, graph 0.05, 0, 0\n"
                 "plot 'skew_success.dat'"
                 " using 2:3 with points pt 7 ps 1.2 lc rgb '#1f4e9a'" +
                 // Few clients: each point named, so that the steal's client can be found.
                 (s.per_client.size() <= 20 ? std::string(", \\\n  'skew_success.dat'"
                                                              " using 2:3:(sprintf('c%d', $1)) with labels offset 0,0.8 font ',9' "
                                                              "textcolor rgb '#333333'")
                                            : std::string()));

  write_latency_cdf(in_dir(out_dir, "latency.dat"), s);
  if (s.acquire_latency.count() > 0)
    ok &= draw(g, out_dir, "latency",
               "set title " + gnuplot_quote(s.variant + ": acquire latency (invoke to ok/fail)") + "\n" +
                   caption_lines(caption) +
                   "set xlabel 'latency (ms)'\nset ylabel 'fraction of acquires <= latency'\n"
                   "set yrange [0:1.02]\nset key off\n" + latency_range(s) +
                   "plot 'latency.dat'"
                   " using 1:2 with steps lw 2 lc rgb '#1f4e9a'");
  if (!ok) warn << "warning: gnuplot failed on a chart in " << out_dir << " (its messages: *.gp.log there)\n";
  return ok;
}

bool draw_comparison_charts(const std::vector<PointStat>& stats, const std::string& x_label,
                            const std::string& out_dir, std::ostream& warn, const std::string& caption,
                            const std::vector<VariantPromise>& promises) {
  fs::create_directories(out_dir);
  Gnuplot g = find_gnuplot(warn);
  if (!g.available) return false;

  // Variants in the order of the stats; per variant its points, per point each metric's stat.
  const std::vector<SweepMetric>& metrics = sweep_metrics();
  std::vector<std::string> variants;
  std::map<std::string, std::map<double, std::vector<const PointStat*>>> table;
  std::vector<double> values;
  for (const PointStat& p : stats) {
    if (!table.count(p.variant)) variants.push_back(p.variant);
    table[p.variant][p.value].push_back(&p);
    values.push_back(p.value);
  }
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end(), same), values.end());
  const XScale scale = x_scale(values);
  // Where a value is drawn: itself, or (categorical) its rank among the values.
  const auto position = [&](double v) {
    if (scale != XScale::categorical) return v;
    return static_cast<double>(std::lower_bound(values.begin(), values.end(), v - 1e-9) - values.begin());
  };
  // One data file per variant: x, its position on the axis, then mean, low, high for each
  // metric (NaN where undefined).
  std::vector<std::string> files;  // plain names in out_dir
  for (std::size_t i = 0; i < variants.size(); ++i) {
    files.push_back("compare_" + std::to_string(i) + ".dat");
    std::ostringstream out;
    out << "# " << one_line(variants[i]) << ": " << one_line(x_label) << ", position on the x axis";
    for (const SweepMetric& m : metrics) out << ' ' << m.name << " low high";
    out << " outside\n";
    for (const auto& [value, point] : table[variants[i]]) {
      out << fixed(value, 6) << ' ' << fixed(position(value), 6);
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
      out << ' ' << (outside_promise(promises, variants[i], value) ? 1 : 0) << '\n';
    }
    write_output_file(in_dir(out_dir, files.back()), out.str());
  }

  // The x axis: explicit ranges, so that one value, or equal values, still give a readable axis
  // (and gnuplot has no "empty range" to warn about).
  std::string x_axis;
  std::string label = x_label;
  const std::size_t n_values = values.size();
  if (scale == XScale::categorical) {
    x_axis = "set xrange [-0.500000:" + fixed(static_cast<double>(n_values) - 0.5, 6) + "]\nset xtics (";
    for (std::size_t i = 0; i < n_values; ++i)
      x_axis += (i ? ", " : "") + gnuplot_quote(value_label(values[i])) + " " + std::to_string(i);
    x_axis += ")\nset grid noxtics ytics\n";
    label += ", one step per value (not to scale)";
  } else if (scale == XScale::log) {
    x_axis = "set logscale x 10\nset xrange [" + fixed(values.front() / 1.5, 6) + ":" + fixed(values.back() * 1.5, 6) +
             "]\nset xtics (";
    for (std::size_t i = 0; i < n_values; ++i)
      x_axis += (i ? ", " : "") + gnuplot_quote(value_label(values[i])) + " " + fixed(values[i], 6);
    x_axis += ")\n";
    label += ", log scale";
  } else {
    Range x;
    for (double v : values) x.add(v);
    x_axis = "set xrange " + x.padded(0.05 * (x.hi > x.lo ? x.hi - x.lo : 1)) + "\n";
  }
  // Variants side by side, a little apart, so that their error bars do not hide each other.
  const double spread = scale == XScale::categorical ? 0.06
                        : scale == XScale::log        ? 0.015
                                                      : 0.006 * (values.size() > 1 ? values.back() - values.front() : 1);
  const auto shifted = [&](std::size_t i) {
    const double k = static_cast<double>(i) - static_cast<double>(files.size() - 1) / 2;
    if (scale == XScale::log) return "($2*" + fixed(std::pow(10.0, k * spread), 6) + ")";
    return "($2+" + fixed(k * spread, 6) + ")";
  };

  bool ok = true;
  for (std::size_t k = 0; k < metrics.size(); ++k) {
    const SweepMetric& m = metrics[k];
    const std::string name = "compare_" + m.name;
    if (metric_shape(stats, m).kind != MetricShape::varies) {
      // Named in the report, not drawn flat; no older chart of it may stay to contradict that.
      std::error_code ignored;
      for (const char* ext : {".svg", ".png", ".gp"}) fs::remove(in_dir(out_dir, name + ext), ignored);
      continue;
    }
    Range y;
    for (const PointStat& p : stats)
      if (p.metric == &m && p.n > 0) {
        y.add(p.mean);
        if (p.ci95) y.add(p.ci95->low), y.add(p.ci95->high);
      }
    std::string plot = "set title " + gnuplot_quote(m.label + ": mean and 95% interval per point") + "\n" +
                       caption_lines(caption) +
                       "set xlabel " + gnuplot_quote(label) + "\nset ylabel " + gnuplot_quote(m.label) +
                       "\nset key outside right top box lc rgb '#888888'\n" + x_axis + "set yrange " +
                       (m.kind == MetricKind::share ? "[-0.05:1.05]" : y.padded(0.05 * (y.hi - y.lo))) + "\n" +
                       series_styles(files.size()) + "set bars 0.6\nplot ";
    const std::string column = std::to_string(3 + 3 * k);
    for (std::size_t i = 0; i < files.size(); ++i) {
      if (i) plot += ", \\\n  ";
      plot += gnuplot_quote(files[i]) + " using " + shifted(i) + ":" + column + ":" + std::to_string(4 + 3 * k) + ":" +
              std::to_string(5 + 3 * k) + " with yerrorlines ls " + std::to_string(i + 1) + " title " +
              gnuplot_quote(variants[i]);
    }
    // A ring around each point outside its variant's preconditions, named once in the key.
    const std::string outside_column = std::to_string(3 + 3 * metrics.size());
    bool ring_named = false;
    for (std::size_t i = 0; i < files.size(); ++i) {
      const auto& points = table[variants[i]];
      if (std::none_of(points.begin(), points.end(), [&](const auto& p) { return outside_promise(promises, variants[i], p.first); }))
        continue;
      plot += ", \\\n  " + gnuplot_quote(files[i]) + " using " + shifted(i) + ":($" + outside_column + ">0?$" + column +
              ":NaN) with points pt 6 ps 2.6 lw 1.5 lc rgb '#000000' " +
              (ring_named ? std::string("notitle") : "title " + gnuplot_quote("outside its preconditions"));
      ring_named = true;
    }
    if (files.empty()) plot += "NaN notitle";
    ok &= draw(g, out_dir, name, plot);
  }
  if (!ok) warn << "warning: gnuplot failed on a comparison chart in " << out_dir << " (its messages: *.gp.log there)\n";
  return ok;
}

}  // namespace semsim
