// Charts (gnuplot), on a small synthetic run and on hand-made sweeps.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <cmath>
#include <regex>
#include <set>
#include <sstream>
#include <tuple>

#include <unistd.h>

#include "reports/checks/sweep_stats.h"
#include "reports/outputs/analysis.h"
#include "reports/outputs/gnuplot.h"
#include "tests/reports/synthetic_history.h"
#include "tests/text_file.h"

namespace semsim {
namespace {

namespace fs = std::filesystem;

struct SmallRun {
  std::string dir;
  std::string history;
  Summary summary;
};

SmallRun small_run(const std::string& name, int clients = 8) {
  SmallRun r;
  r.dir = (fs::temp_directory_path() / "semsim_reports_tests" / (name + std::to_string(::getpid()))).string();
  fs::create_directories(r.dir);
  r.history = r.dir + "/history.csv";
  SyntheticOptions o;
  o.clients = clients;
  o.limit = 2;
  o.events = 3000;
  o.over_admit_per_mille = 50;
  {
    HistoryWriter w(r.history);
    generate_history(o, [&](const Event& e) { w.write(e); });
  }
  r.summary = analyze_history(r.history);
  return r;
}

bool have_gnuplot(const std::string&) {
  std::ostringstream warn;
  return find_gnuplot(warn).available;
}

TEST(Charts, RunChartsAreWrittenAsSvgAndPng) {
  SmallRun r = small_run("charts");
  if (!have_gnuplot(r.dir)) GTEST_SKIP() << "gnuplot not installed";
  std::ostringstream warn;
  EXPECT_TRUE(draw_run_charts(r.dir, r.summary, warn)) << warn.str();
  for (std::string name : {"holders", "skew_success", "latency"}) {
    EXPECT_GT(fs::file_size(r.dir + "/" + name + ".svg"), 1000u) << name;
    EXPECT_GT(fs::file_size(r.dir + "/" + name + ".png"), 1000u) << name;
    EXPECT_TRUE(fs::exists(r.dir + "/" + name + ".dat")) << name;
  }
  EXPECT_NE(slurp(r.dir + "/holders.svg").find("<svg"), std::string::npos);
}

// A sweep of two variants over three skews, `seeds` runs per point, over-admission = skew / 10 + seed % 2.
std::vector<PointStat> small_sweep(const Summary& base, int seeds) {
  std::vector<SweepRun> runs;
  for (const char* variant : {"basic", "fair"})
    for (double skew : {0.0, 10.0, 20.0})
      for (int seed = 0; seed < seeds; ++seed) {
        Summary s = base;
        s.variant = variant;
        s.seed = static_cast<std::uint64_t>(seed);
        s.over_admission = static_cast<int>(skew / 10) + seed % 2;
        runs.push_back({variant, skew, s});
      }
  return sweep_stats(runs);
}

TEST(Charts, ComparisonChartsHaveOneLinePerVariantWithErrorBars) {
  SmallRun r = small_run("compare");
  if (!have_gnuplot(r.dir)) GTEST_SKIP() << "gnuplot not installed";
  std::ostringstream warn;
  EXPECT_TRUE(draw_comparison_charts(small_sweep(r.summary, 3), "skew (ms)", r.dir, warn)) << warn.str();
  std::string svg = slurp(r.dir + "/compare_over_admission.svg");
  EXPECT_NE(svg.find("basic"), std::string::npos);
  EXPECT_NE(svg.find("fair"), std::string::npos);
  EXPECT_NE(slurp(r.dir + "/compare_over_admission.gp").find("with yerrorlines"), std::string::npos);
  EXPECT_TRUE(fs::exists(r.dir + "/compare_over_admission.png"));
  EXPECT_TRUE(fs::exists(r.dir + "/compare_over_admitting.svg"));
}

// Hovering a line of a chart names its series, never gnuplot's own gnuplot_plot_N.
TEST(Charts, HoverTextNamesTheSeries) {
  SmallRun r = small_run("hover");
  if (!have_gnuplot(r.dir)) GTEST_SKIP() << "gnuplot not installed";
  std::ostringstream warn;
  EXPECT_TRUE(draw_comparison_charts(small_sweep(r.summary, 3), "skew (ms)", r.dir, warn)) << warn.str();
  const std::string svg = slurp(r.dir + "/compare_over_admission.svg");
  EXPECT_EQ(svg.find("<title>gnuplot_plot_"), std::string::npos);
  EXPECT_NE(svg.find("<title>basic</title>"), std::string::npos);
  EXPECT_NE(svg.find("<title>fair</title>"), std::string::npos);
}

TEST(Charts, APlotWithoutAKeyEntryLosesGnuplotsHoverText) {
  const std::string svg =
      "<g id=\"gnuplot_plot_1\" ><title>gnuplot_plot_1</title>\n<g><g><text>a &amp; b</text></g></g><path d='M0,0'/></g>\n"
      "<g id=\"gnuplot_plot_2\" ><title>gnuplot_plot_2</title>\n<path d='M1,1'/><text>0.5</text></g>\n";
  EXPECT_EQ(name_svg_series(svg),
            "<g id=\"gnuplot_plot_1\" ><title>a &amp; b</title>\n<g><g><text>a &amp; b</text></g></g><path d='M0,0'/></g>\n"
            "<g id=\"gnuplot_plot_2\" >\n<path d='M1,1'/><text>0.5</text></g>\n");
}

// The `set style line` entries of a script: (colour, point type, dash type).
std::vector<std::tuple<std::string, std::string, std::string>> series_styles(const std::string& gp) {
  std::vector<std::tuple<std::string, std::string, std::string>> out;
  const std::regex style("set style line \\d+ lc rgb '(#[0-9a-f]{6})' lw [0-9.]+ pt (\\d+) ps [0-9.]+ dt (\\S+)");
  for (auto it = std::sregex_iterator(gp.begin(), gp.end(), style); it != std::sregex_iterator(); ++it)
    out.emplace_back((*it)[1], (*it)[2], (*it)[3]);
  return out;
}

// Relative luminance (0 black .. 1 white) of #rrggbb.
double luminance(const std::string& hex) {
  double sum = 0;
  const double weight[] = {0.2126, 0.7152, 0.0722};
  for (int i = 0; i < 3; ++i) {
    double c = std::stoi(hex.substr(1 + 2 * i, 2), nullptr, 16) / 255.0;
    c = c <= 0.03928 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
    sum += weight[i] * c;
  }
  return sum;
}

TEST(Charts, SeriesDifferByMarkerAndDashAndNoColourIsPale) {
  SmallRun r = small_run("compare_styles");
  if (!have_gnuplot(r.dir)) GTEST_SKIP() << "gnuplot not installed";
  // Ten variants: every style of the palette.
  std::vector<SweepRun> runs;
  for (int v = 0; v < 10; ++v)
    for (double skew : {0.0, 10.0}) {
      Summary s = r.summary;
      s.over_admission = v + static_cast<int>(skew);
      runs.push_back({"v" + std::to_string(v), skew, s});
    }
  std::ostringstream warn;
  ASSERT_TRUE(draw_comparison_charts(sweep_stats(runs), "skew (ms)", r.dir, warn)) << warn.str();
  const std::string gp = slurp(r.dir + "/compare_over_admission.gp");
  const auto styles = series_styles(gp);
  ASSERT_EQ(styles.size(), 10u);
  std::set<std::string> colours, points, dashes;
  for (const auto& [colour, point, dash] : styles) {
    colours.insert(colour), points.insert(point), dashes.insert(dash);
    // Contrast with white of at least 4.5:1 (WCAG AA): readable on paper.
    EXPECT_GE(1.05 / (luminance(colour) + 0.05), 4.5) << colour;
  }
  EXPECT_EQ(colours.size(), 10u);
  EXPECT_EQ(points.size(), 10u);  // in greyscale, the markers still tell them apart
  EXPECT_EQ(dashes.size(), 10u);
  for (int v = 0; v < 10; ++v) EXPECT_NE(gp.find("with yerrorlines ls " + std::to_string(v + 1) + " title 'v"), std::string::npos);
}

TEST(Charts, AGeometricSweepIsDrawnOneStepPerValueOrOnALogAxis) {
  EXPECT_EQ(x_scale({0, 5, 10, 15}), XScale::linear);
  EXPECT_EQ(x_scale({5, 10}), XScale::linear);
  EXPECT_EQ(x_scale({0, 1, 5, 10, 50}), XScale::categorical);
  EXPECT_EQ(x_scale({2, 3, 5}), XScale::categorical);  // uneven, but not a factor of 10
  EXPECT_EQ(x_scale({100, 1000, 10000}), XScale::log);
  EXPECT_EQ(x_scale({1, 2, 4, 8, 16}), XScale::log);

  SmallRun r = small_run("compare_geometric");
  if (!have_gnuplot(r.dir)) GTEST_SKIP() << "gnuplot not installed";
  std::vector<SweepRun> runs;
  for (double skew : {0.0, 1.0, 5.0, 10.0, 50.0}) {
    Summary s = r.summary;
    s.over_admission = static_cast<int>(skew);
    runs.push_back({"basic", skew, s});
  }
  std::ostringstream warn;
  ASSERT_TRUE(draw_comparison_charts(sweep_stats(runs), "skew (ms)", r.dir, warn, "10 clients, limit 2")) << warn.str();
  const std::string gp = slurp(r.dir + "/compare_over_admission.gp");
  EXPECT_NE(gp.find("set xtics ('0' 0, '1' 1, '5' 2, '10' 3, '50' 4)"), std::string::npos);
  EXPECT_NE(gp.find("set xrange [-0.500000:4.500000]"), std::string::npos);
  EXPECT_NE(gp.find("'skew (ms), one step per value (not to scale)'"), std::string::npos);
  // The data keeps the true value and its position on the axis.
  EXPECT_NE(slurp(r.dir + "/compare_0.dat").find("\n50.000000 4.000000 50.000000"), std::string::npos);

  runs.clear();
  for (double timeout : {100.0, 1000.0, 10000.0}) {
    Summary s = r.summary;
    s.over_admission = static_cast<int>(timeout / 100);
    runs.push_back({"basic", timeout, s});
  }
  ASSERT_TRUE(draw_comparison_charts(sweep_stats(runs), "timeout (ms)", r.dir, warn)) << warn.str();
  EXPECT_NE(slurp(r.dir + "/compare_over_admission.gp").find("set logscale x 10"), std::string::npos);
}

TEST(Charts, EveryChartCarriesItsContext) {
  SmallRun r = small_run("compare_caption");
  if (!have_gnuplot(r.dir)) GTEST_SKIP() << "gnuplot not installed";
  std::ostringstream warn;
  const std::string caption = "10 clients, limit 2, delay uniform:0ms..1ms, timeout 10s, 3 seeds per point";
  ASSERT_TRUE(draw_comparison_charts(small_sweep(r.summary, 3), "skew (ms)", r.dir, warn, caption)) << warn.str();
  EXPECT_NE(slurp(r.dir + "/compare_over_admission.gp").find("set label 901 '" + caption + "'"), std::string::npos);
  EXPECT_NE(slurp(r.dir + "/compare_over_admission.svg").find(caption), std::string::npos);
  ASSERT_TRUE(draw_run_charts(r.dir, r.summary, warn, "8 clients, limit 2, seed 7")) << warn.str();
  for (const char* chart : {"holders", "skew_success", "latency"})
    EXPECT_NE(slurp(r.dir + "/" + chart + ".svg").find("8 clients, limit 2, seed 7"), std::string::npos) << chart;
}

TEST(Charts, AMetricTheSameEverywhereIsNotDrawnFlat) {
  SmallRun r = small_run("compare_flat");
  if (!have_gnuplot(r.dir)) GTEST_SKIP() << "gnuplot not installed";
  Summary s = r.summary;
  s.fifo_inversions = 0;
  std::vector<SweepRun> runs;
  for (double skew : {0.0, 5.0})
    for (std::int64_t granted : {40, 44}) {
      s.granted = granted;
      runs.push_back({"basic", skew, s});
    }
  const std::vector<PointStat> stats = sweep_stats(runs);
  std::ofstream(r.dir + "/compare_fifo_inversions.svg") << "<svg>an older sweep's</svg>";
  std::ostringstream warn;
  EXPECT_TRUE(draw_comparison_charts(stats, "skew (ms)", r.dir, warn)) << warn.str();
  EXPECT_EQ(warn.str(), "");
  EXPECT_FALSE(fs::exists(r.dir + "/compare_fifo_inversions.svg"));  // the old one is gone too
  EXPECT_FALSE(fs::exists(r.dir + "/compare_fifo_inversions.gp"));
  EXPECT_TRUE(fs::exists(r.dir + "/compare_granted.svg"));  // equal means, runs that differ
  const SweepMetric& fifo = *std::find_if(sweep_metrics().begin(), sweep_metrics().end(),
                                          [](const SweepMetric& m) { return m.name == "fifo_inversions"; });
  EXPECT_EQ(metric_shape(stats, fifo).kind, MetricShape::same_everywhere);
  EXPECT_EQ(metric_shape(stats, fifo).value, 0);
}

TEST(Charts, ASinglePointStillGetsAReadableAxis) {
  SmallRun r = small_run("compare_single");
  if (!have_gnuplot(r.dir)) GTEST_SKIP() << "gnuplot not installed";
  Summary a = r.summary, b = r.summary;
  a.granted = 40;
  b.granted = 44;
  std::ostringstream warn;
  EXPECT_TRUE(draw_comparison_charts(sweep_stats({{"basic", 5, a}, {"basic", 5, b}}), "skew (ms)", r.dir, warn));
  EXPECT_EQ(warn.str(), "");
  EXPECT_NE(slurp(r.dir + "/compare_granted.gp").find("set xrange [4.500000:5.500000]"), std::string::npos);
}

TEST(Charts, TheHoldersChartMarksTheFirstOverAdmissionsWideEnoughToSee) {
  SmallRun r = small_run("holders_marks");
  if (!have_gnuplot(r.dir)) GTEST_SKIP() << "gnuplot not installed";
  ASSERT_FALSE(r.summary.episodes.empty());
  std::ostringstream warn;
  ASSERT_TRUE(draw_run_charts(r.dir, r.summary, warn)) << warn.str();
  const std::string gp = slurp(r.dir + "/holders.gp");
  EXPECT_NE(gp.find("set object 1 rect from "), std::string::npos);
  EXPECT_NE(gp.find("set label 902 'first over-admission: "), std::string::npos);
}

TEST(Charts, SkewSuccessSaysWhyItsCorrelationIsUndefined) {
  SmallRun r = small_run("skew_na");
  if (!have_gnuplot(r.dir)) GTEST_SKIP() << "gnuplot not installed";
  Summary s = r.summary;
  for (ClientStats& c : s.per_client) c.mean_offset_ms = 10;
  s.skew_success_correlation.reset();
  std::ostringstream warn;
  ASSERT_TRUE(draw_run_charts(r.dir, s, warn)) << warn.str();
  EXPECT_NE(slurp(r.dir + "/skew_success.gp").find("r undefined: every client''s clock had the same offset (10.000 ms"),
            std::string::npos);
}

// A folder name or a variant name is data, never a gnuplot command: a newline in either would end
// the gnuplot string and run the next line (system() runs a shell command).
TEST(Charts, NoFolderOrVariantNameBecomesAGnuplotCommand) {
  SmallRun r = small_run("hostile");
  if (!have_gnuplot(r.dir)) GTEST_SKIP() << "gnuplot not installed";
  const std::string injected = r.dir + "/INJECTED";
  const std::string command = "system(\"touch " + injected + "\")";
  const std::string dir = r.dir + "/nl\n" + command + "\nx'\n" + command + "\n'`touch " + injected + "`@x";
  Summary s = r.summary;
  s.variant = "script:a\n" + command + "\n' . system('touch " + injected + "') . '\r";
  std::ostringstream warn;
  EXPECT_TRUE(draw_run_charts(dir, s, warn)) << warn.str();
  EXPECT_TRUE(draw_comparison_charts(small_sweep(s, 2), "skew\n" + command, dir, warn)) << warn.str();
  EXPECT_FALSE(fs::exists(injected));
  EXPECT_TRUE(chart_file_complete(dir + "/holders.svg"));
  EXPECT_TRUE(chart_file_complete(dir + "/compare_over_admission.png"));
  // No path in any script: gnuplot runs in the folder and names its files plainly.
  const std::string script = slurp(dir + "/holders.gp");
  EXPECT_NE(script.find("\nset output 'holders.svg'\n"), std::string::npos) << script;
  EXPECT_NE(script.find("\nplot 'holders.dat' using"), std::string::npos) << script;
  EXPECT_EQ(script.find("\nsystem"), std::string::npos) << script;
}

TEST(Charts, QuotedTextIsOneSingleQuotedStringOnOneLine) {
  EXPECT_EQ(gnuplot_quote("it's"), "'it''s'");
  EXPECT_EQ(gnuplot_quote(std::string("a\nb\rc\0d\x7f", 8)), "'a b c d '");
  EXPECT_EQ(gnuplot_quote("`x` @y \\"), "'`x` @y \\'");
}

// A chart gnuplot left short (the disk filled up: gnuplot still exits 0) is not a chart.
TEST(Charts, AnIncompleteChartFileIsTold) {
  SmallRun r = small_run("complete");
  const std::string svg = r.dir + "/c.svg", png = r.dir + "/c.png";
  std::ofstream(svg) << "<?xml?>\n<svg>\n<g>";
  std::ofstream(png) << "\x89PNG\r\n";
  EXPECT_FALSE(chart_file_complete(svg));
  EXPECT_FALSE(chart_file_complete(png));
  EXPECT_FALSE(chart_file_complete(r.dir + "/missing.svg"));
  std::ofstream(svg, std::ios::app) << "</g>\n</svg>\n\n";
  std::ofstream(png, std::ios::app) << std::string("\0\0\0\0IEND\xae\x42\x60\x82", 12);
  EXPECT_TRUE(chart_file_complete(svg));
  EXPECT_TRUE(chart_file_complete(png));
}

TEST(Charts, MissingGnuplotIsOneWarningLineNotAnError) {
  SmallRun r = small_run("nognuplot");
  const char* old = std::getenv("PATH");
  std::string saved = old ? old : "";
  ::setenv("PATH", "/nonexistent", 1);
  std::ostringstream warn;
  bool drawn = draw_run_charts(r.dir, r.summary, warn);
  ::setenv("PATH", saved.c_str(), 1);
  EXPECT_FALSE(drawn);
  EXPECT_EQ(warn.str(), "warning: gnuplot not found on PATH; charts skipped\n");
}

}  // namespace
}  // namespace semsim

namespace semsim {
namespace {

// A point outside its variant's preconditions is ringed on every comparison chart, the ring named
// once in the key, and its data file says which points they are (a last column, `outside`).
TEST(Charts, PointsOutsideTheirPreconditionsAreRinged) {
  SmallRun r = small_run("promises");
  if (!have_gnuplot(r.dir)) GTEST_SKIP() << "gnuplot not installed";
  std::ostringstream warn;
  const std::vector<VariantPromise> promises = {{"basic", true, "lease", {{20.0, "hold 50ms >= lease 50ms"}}},
                                                {"fair", true, "spread", {{10.0, "x"}, {20.0, "y"}}}};
  EXPECT_TRUE(draw_comparison_charts(small_sweep(r.summary, 3), "skew (ms)", r.dir, warn, "", promises)) << warn.str();
  const std::string gp = slurp(r.dir + "/compare_over_admission.gp");
  EXPECT_NE(gp.find("'compare_0.dat' using ($2+"), std::string::npos);
  EXPECT_NE(gp.find("with points pt 6 ps 2.6 lw 1.5 lc rgb '#000000' title 'outside its preconditions'"),
            std::string::npos);
  EXPECT_NE(gp.find("with points pt 6 ps 2.6 lw 1.5 lc rgb '#000000' notitle"), std::string::npos);  // fair's rings, unnamed
  const std::string basic = slurp(r.dir + "/compare_0.dat");
  EXPECT_NE(basic.find(" outside\n"), std::string::npos);
  std::istringstream rows(basic);
  std::vector<std::string> last;
  for (std::string line; std::getline(rows, line);)
    if (!line.starts_with("#")) last.push_back(line.substr(line.rfind(' ') + 1));
  EXPECT_EQ(last, (std::vector<std::string>{"0", "0", "1"}));
  EXPECT_NE(slurp(r.dir + "/compare_over_admission.svg").find("<title>outside its preconditions</title>"), std::string::npos);
}

}  // namespace
}  // namespace semsim
