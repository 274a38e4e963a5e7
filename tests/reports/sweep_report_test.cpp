// report.html of a sweep: self-contained, says how to reproduce it, a table and a chart per metric.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "reports/outputs/sweep_report.h"

namespace semsim {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Page {
  fs::path dir;
  SweepReport report;
};

Page two_points(const std::string& name) {
  Page p;
  p.dir = fs::temp_directory_path() / "semsim_reports_tests" / (name + std::to_string(::getpid()));
  fs::remove_all(p.dir);
  fs::create_directories(p.dir);
  std::vector<SweepRun> runs;
  for (int over : {1, 3}) {
    Summary s;
    s.over_admission = over;
    runs.push_back({"basic", 5, s});
    runs.push_back({"lua", 5, Summary{}});
  }
  p.report = {"skew", true, "semsim compare --variants basic,lua --skews 5ms", "0.2.0 (commit abc)",
              "embedded redis-server 7.0.15", "clients = 10\n", 2, 1, true, sweep_stats(runs)};
  return p;
}

TEST(SweepReport, SaysHowToReproduceTheSweep) {
  Page p = two_points("report_reproduce");
  write_sweep_report(p.dir.string(), p.report);
  const std::string html = slurp(p.dir / "report.html");
  EXPECT_NE(html.find("<pre>semsim compare --variants basic,lua --skews 5ms</pre>"), std::string::npos);
  EXPECT_NE(html.find("semsim 0.2.0 (commit abc) against embedded redis-server 7.0.15"), std::string::npos);
  EXPECT_NE(html.find("with seeds 1 to 2 at every point"), std::string::npos);
  EXPECT_NE(html.find("clients = 10"), std::string::npos);
}

TEST(SweepReport, HasATableOfMeansAndIntervalsPerMetric) {
  Page p = two_points("report_tables");
  write_sweep_report(p.dir.string(), p.report);
  const std::string html = slurp(p.dir / "report.html");
  // over_admission of basic at 5 ms: runs 1 and 3, mean 2, t(1) = 12.706205, s = sqrt(2).
  EXPECT_NE(html.find("<td>5.000</td><td>2.00 <small>[-10.71, 14.71]</small> <small class=n>n=2</small></td>"),
            std::string::npos);
  for (const SweepMetric& m : sweep_metrics()) EXPECT_NE(html.find("<h2 id=\"" + m.name + "\">"), std::string::npos);
}

TEST(SweepReport, InlinesTheChartsAndLoadsNothing) {
  Page p = two_points("report_inline");
  std::ofstream(p.dir / "compare_over_admission.svg") << "<?xml version=\"1.0\"?>\n<svg viewBox=\"0 0 1 1\"></svg>\n";
  write_sweep_report(p.dir.string(), p.report);
  const std::string html = slurp(p.dir / "report.html");
  EXPECT_NE(html.find("<h2 id=\"over_admission\">over-admission (most holders above the limit) "
                      "<small>(over_admission)</small></h2>\n<svg viewBox=\"0 0 1 1\"></svg>"),
            std::string::npos);
  EXPECT_EQ(html.find("<?xml"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("href="), std::string::npos);
}

TEST(SweepReport, LeavesOutChartsNotDrawnForThisSweep) {
  Page p = two_points("report_nocharts");
  std::ofstream(p.dir / "compare_over_admission.svg") << "<svg>an older sweep's</svg>\n";
  p.report.charts = false;
  write_sweep_report(p.dir.string(), p.report);
  EXPECT_EQ(slurp(p.dir / "report.html").find("an older sweep's"), std::string::npos);
}

}  // namespace
}  // namespace semsim
