// Charts (gnuplot) and the HTML timeline, on a small synthetic run.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "reports/checks/sweep_stats.h"
#include "reports/outputs/analysis.h"
#include "reports/outputs/gnuplot.h"
#include "tests/reports/synthetic_history.h"

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

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
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
  EXPECT_TRUE(fs::exists(r.dir + "/compare_jain_index.png"));
  EXPECT_TRUE(fs::exists(r.dir + "/compare_fifo_inversions.png"));
  EXPECT_TRUE(fs::exists(r.dir + "/compare_over_admitting.svg"));
}

TEST(Charts, EqualValuesAndASinglePointStillGetAReadableAxis) {
  SmallRun r = small_run("compare_flat");
  if (!have_gnuplot(r.dir)) GTEST_SKIP() << "gnuplot not installed";
  Summary s = r.summary;
  s.fifo_inversions = 0;
  s.granted = 40;
  const std::vector<PointStat> stats = sweep_stats({{"basic", 5, s}, {"basic", 5, s}});
  std::ostringstream warn;
  EXPECT_TRUE(draw_comparison_charts(stats, "skew (ms)", r.dir, warn)) << warn.str();
  EXPECT_EQ(warn.str(), "");
  EXPECT_NE(slurp(r.dir + "/compare_fifo_inversions.gp").find("set yrange [-0.05:1]"), std::string::npos);
  EXPECT_NE(slurp(r.dir + "/compare_granted.gp").find("set yrange [36.000000:44.000000]"), std::string::npos);
  EXPECT_NE(slurp(r.dir + "/compare_granted.gp").find("set xrange [4.500000:5.500000]"), std::string::npos);
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

TEST(Timeline, PageIsSelfContainedWithOneRowPerClient) {
  SmallRun r = small_run("timeline");
  std::string html_path = r.dir + "/timeline.html";
  write_timeline_html(r.history, html_path, r.summary);
  std::string html = slurp(html_path);
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find(">client 1<"), std::string::npos);
  EXPECT_NE(html.find(">client 8<"), std::string::npos);
  EXPECT_NE(html.find("fill=\"#f4a0a0\""), std::string::npos);  // over-admission band
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
}

TEST(Timeline, SaysHowManyClientsWereLeftOut) {
  SmallRun r = small_run("timeline_cap", 12);
  std::string html_path = r.dir + "/timeline.html";
  write_timeline_html(r.history, html_path, r.summary, /*max_clients=*/5);
  std::string html = slurp(html_path);
  EXPECT_NE(html.find("Showing the first 5 clients; 7 more are not drawn."), std::string::npos);
  EXPECT_EQ(html.find(">client 6<"), std::string::npos);
}

}  // namespace
}  // namespace semsim
