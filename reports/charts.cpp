#include "reports/charts.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-truncation"  // libfccp's intended strncpy truncation
#include <libfccp/csv.h>
#pragma GCC diagnostic pop

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>
#include <vector>

#include "reports/gnuplot.h"
#include "reports/history_error.h"
#include "reports/text_format.h"

namespace semsim {

namespace fs = std::filesystem;

namespace {

std::string in_dir(const std::string& dir, const std::string& name) {
  return (fs::path(dir) / name).string();
}

// The script draws the chart twice: SVG, then PNG. `plot` is the body after the terminal lines.
bool draw(const Gnuplot& g, const std::string& dir, const std::string& name, const std::string& plot) {
  std::string script = in_dir(dir, name + ".gp");
  {
    std::ofstream out(script);
    out << "# Drawn by semsim; run `gnuplot " << name << ".gp` in this folder's parent to redraw.\n"
        << "set terminal svg size 960,480 dynamic background rgb 'white'\n"
        << "set output " << gnuplot_quote(in_dir(dir, name + ".svg")) << "\n"
        << plot << "\n"
        << "set terminal " << g.png_terminal << " size 960,480\n"
        << "set output " << gnuplot_quote(in_dir(dir, name + ".png")) << "\n"
        << "replot\nunset output\n";
  }
  return run_gnuplot(script);
}

void write_holders(const std::string& path, const Summary& s) {
  // Explicit steps: each bucket's level from its start to the next bucket's start.
  std::ofstream out(path);
  out << "# t_ms max_holders (most holders at any instant of a " << us_as_ms(s.holders_bucket_us)
      << " ms bucket)\n";
  for (std::size_t i = 0; i < s.holders.size(); ++i) {
    std::int64_t t0 = s.holders[i].t_us - s.start_us;
    std::int64_t t1 = i + 1 < s.holders.size() ? s.holders[i + 1].t_us - s.start_us
                                                : std::max(t0, s.end_us - s.start_us);
    out << us_as_ms(t0) << ' ' << s.holders[i].max_holders << '\n'
        << us_as_ms(t1) << ' ' << s.holders[i].max_holders << '\n';
  }
}

void write_skew(const std::string& path, const Summary& s) {
  std::ofstream out(path);
  out << "# client mean_offset_ms success_rate decided_acquires\n";
  for (const ClientStats& c : s.per_client) {
    std::int64_t decided = c.granted + c.rejected;
    if (decided == 0) continue;
    out << c.client << ' ' << fixed(c.mean_offset_ms, 3) << ' '
        << fixed(static_cast<double>(c.granted) / static_cast<double>(decided), 6) << ' ' << decided
        << '\n';
  }
}

void write_latency_cdf(const std::string& path, const Summary& s) {
  std::ofstream out(path);
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
}

}  // namespace

bool draw_run_charts(const std::string& out_dir, const Summary& s, std::ostream& warn) {
  fs::create_directories(out_dir);
  Gnuplot g = find_gnuplot(out_dir, warn);
  if (!g.available) return false;
  bool ok = true;

  write_holders(in_dir(out_dir, "holders.dat"), s);
  std::string dat = gnuplot_quote(in_dir(out_dir, "holders.dat"));
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
                 "plot " + gnuplot_quote(in_dir(out_dir, "skew_success.dat")) +
                 " using 2:3 with points pt 7 ps 0.8 lc rgb '#1f4e9a'");

  write_latency_cdf(in_dir(out_dir, "latency.dat"), s);
  if (s.acquire_latency.count() > 0)
    ok &= draw(g, out_dir, "latency",
               "set title " + gnuplot_quote(s.variant + ": acquire latency (invoke to ok/fail)") +
                   "\nset xlabel 'latency (ms)'\nset ylabel 'fraction of acquires <= latency'\n"
                   "set yrange [0:1]\nset key off\nset grid\n"
                   "plot " + gnuplot_quote(in_dir(out_dir, "latency.dat")) +
                   " using 1:2 with steps lw 1.5 lc rgb '#1f4e9a'");
  if (!ok) warn << "warning: gnuplot failed on a chart in " << out_dir << " (its messages: *.gp.log there)\n";
  return ok;
}

bool draw_comparison_charts(const std::string& sweep_csv, const std::string& out_dir,
                            std::ostream& warn) {
  struct Point {
    double value;
    std::string over_admission, jain_index, fifo_inversions;
  };
  std::map<std::string, std::vector<Point>> by_variant;
  std::string parameter;
  try {
    io::CSVReader<6, io::trim_chars<>, io::double_quote_escape<',', '"'>> csv(sweep_csv);
    csv.read_header(io::ignore_extra_column, "variant", "parameter", "value", "over_admission",
                    "jain_index", "fifo_inversions");
    std::string variant, param;
    double value = 0;
    char *oa = nullptr, *jain = nullptr, *fifo = nullptr;
    while (csv.read_row(variant, param, value, oa, jain, fifo)) {
      parameter = param;
      by_variant[variant].push_back({value, oa, jain, fifo});
    }
  } catch (const io::error::base& e) {
    throw HistoryError(sweep_csv + ": " + e.what());
  }
  fs::create_directories(out_dir);
  Gnuplot g = find_gnuplot(out_dir, warn);
  if (!g.available) return false;

  // One data file per variant; NaN leaves a gap where a metric is undefined.
  std::vector<std::pair<std::string, std::string>> files;  // variant, path
  int n = 0;
  for (auto& [variant, points] : by_variant) {
    std::sort(points.begin(), points.end(),
              [](const Point& a, const Point& b) { return a.value < b.value; });
    std::string path = in_dir(out_dir, "compare_" + std::to_string(n++) + ".dat");
    std::ofstream out(path);
    out << "# " << variant << ": " << parameter << " over_admission jain_index fifo_inversions\n";
    auto or_nan = [](const std::string& v) { return v.empty() ? std::string("NaN") : v; };
    for (const Point& p : points)
      out << fixed(p.value, 6) << ' ' << or_nan(p.over_admission) << ' ' << or_nan(p.jain_index)
          << ' ' << or_nan(p.fifo_inversions) << '\n';
    files.emplace_back(variant, path);
  }
  bool ok = true;
  struct Metric {
    const char* name;
    int column;
    const char* label;
  };
  for (Metric m : {Metric{"over_admission", 2, "over-admission (holders above limit)"},
                   Metric{"jain_index", 3, "Jain's index of grants"},
                   Metric{"fifo_inversions", 4, "FIFO inversions"}}) {
    std::string plot = "set title " + gnuplot_quote(std::string(m.label) + " by " + parameter) +
                       "\nset xlabel " + gnuplot_quote(parameter == "clients" ? parameter : parameter + " (ms)") + "\nset ylabel " +
                       gnuplot_quote(m.label) + "\nset key outside right\nset grid\nplot ";
    for (std::size_t i = 0; i < files.size(); ++i) {
      if (i) plot += ", \\\n  ";
      plot += gnuplot_quote(files[i].second) + " using 1:" + std::to_string(m.column) +
              " with linespoints pt 7 title " + gnuplot_quote(files[i].first);
    }
    if (files.empty()) plot = "set title 'no rows in the sweep'\nplot NaN notitle";
    ok &= draw(g, out_dir, std::string("compare_") + m.name, plot);
  }
  if (!ok) warn << "warning: gnuplot failed on a comparison chart in " << out_dir << " (its messages: *.gp.log there)\n";
  return ok;
}

}  // namespace semsim
