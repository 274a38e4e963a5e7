// report.html of a sweep: verdicts first, then the charts where the variants differ, the metrics
// that are the same everywhere named, how to reproduce it, the options folded; self-contained.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "reports/outputs/charts.h"
#include "reports/outputs/gnuplot.h"
#include "reports/outputs/page_safety.h"
#include "reports/outputs/sweep_report.h"
#include "tests/text_file.h"

namespace semsim {
namespace {

namespace fs = std::filesystem;

struct Page {
  fs::path dir;
  SweepReport report;
  std::string html() {
    write_sweep_report(dir.string(), report);
    return slurp(dir / "report.html");
  }
};

Summary run(int over_admission, std::int64_t granted = 10) {
  Summary s;
  s.over_admission = over_admission;
  s.safety = over_admission > 0 ? Verdict::invalid : Verdict::valid;
  s.granted = granted;
  return s;
}

// basic over-admits at 5 ms only (runs 1 and 3), lua never; two seeds per point. `basic`: the
// first variant's name.
Page sweep(const std::string& name, const std::string& basic = "basic") {
  Page p;
  p.dir = fs::temp_directory_path() / "semsim_reports_tests" / (name + std::to_string(::getpid()));
  fs::remove_all(p.dir);
  fs::create_directories(p.dir);
  std::vector<SweepRun> runs;
  std::vector<std::string> folders;  // as compare names them; each with its timeline.html
  for (double skew : {0.0, 5.0})
    for (int seed = 0; seed < 2; ++seed) {
      runs.push_back({basic, skew, run(skew > 0 ? 1 + 2 * seed : 0)});
      runs.push_back({"lua", skew, run(0)});
      for (const char* v : {"basic", "lua"}) {
        folders.push_back(std::string(v) + "-skew-" + (skew > 0 ? "5ms" : "0") + "/seed-" + std::to_string(seed + 1));
        fs::create_directories(p.dir / folders.back());
        std::ofstream(p.dir / folders.back() / "timeline.html") << "<!DOCTYPE html>\n";
      }
    }
  runs.back().summary.liveness = Verdict::invalid;  // lua at 5 ms, seed 2: a stall
  const fs::path definitions = p.dir / "source" / "DEFINITIONS.md";  // as installed: outside the sweep's folder
  fs::create_directories(definitions.parent_path());
  std::ofstream(definitions) << "# What the checker counts\n";
  p.report = {"skew", true, "semsim compare --variants basic,lua --skews 0,5ms", "0.2.0 (commit abc)",
              "embedded redis-server 7.0.15", "clients = 10\nlimit = 2\nskew = fixed:0ms\ntimeout = 10s\n", 2, 1, true,
              sweep_stats(runs), run_verdicts(runs, folders), "", definitions.string()};
  return p;
}

// The cells of the verdict row of `variant`, tags stripped.
std::vector<std::string> verdict_row(const std::string& html, const std::string& variant) {
  const std::size_t table = html.find("id=\"verdicts\"");
  const std::size_t row = html.find("<th class=variant>" + variant + "</th>", table);
  const std::string text = html.substr(row, html.find("</tr>", row) - row);
  std::vector<std::string> cells;
  const std::regex cell("<t[dh][^>]*>(.*?)</t[dh]>");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), cell); it != std::sregex_iterator(); ++it)
    cells.push_back(std::regex_replace((*it)[1].str(), std::regex("<[^>]*>"), ""));
  return cells;
}

TEST(SweepReport, OpensWithAVerdictRowPerVariant) {
  const std::string html = sweep("report_verdicts").html();
  const std::size_t verdicts = html.find("<table id=\"verdicts\"");
  ASSERT_NE(verdicts, std::string::npos);
  EXPECT_LT(verdicts, html.find("<h2"));  // right under the title and its context line
  EXPECT_LT(html.find("<h1>"), verdicts);
  EXPECT_EQ(verdict_row(html, "basic"),
            (std::vector<std::string>{"basic", "unsafe", "2 of 4 runs", "+3 at 5 ms (its timeline)", "5 ms (2 of 2 runs there)",
                                      "no stall"}));
  EXPECT_EQ(verdict_row(html, "lua"), (std::vector<std::string>{"lua", "safe in every run", "0 of 4 runs", "none",
                                                                "&mdash;", "stalls in 1 of 4 runs"}));
  EXPECT_NE(html.find("<th>first over-admits at<br>skew (ms)</th>"), std::string::npos);
}

TEST(SweepReport, ChartsWhereTheVariantsDifferComeBeforeTheOthers) {
  Page p = sweep("report_order");
  // granted: basic 10, lua 20 in every run: the variants differ; over_admission overlaps (basic's
  // interval at 5 ms spans lua's 0).
  for (PointStat& s : p.report.stats)
    if (s.metric->name == "granted" && s.variant == "lua") s.mean = 20, s.ci95 = Interval{20, 20};
  const std::string html = p.html();
  const std::size_t differ = html.find("<h2>Where the variants differ</h2>");
  ASSERT_NE(differ, std::string::npos);
  EXPECT_LT(differ, html.find("<h3 id=\"m-granted\">"));
  EXPECT_LT(html.find("<h3 id=\"m-granted\">"), html.find("<h2>The other charts</h2>"));
  EXPECT_LT(html.find("<h2>The other charts</h2>"), html.find("<h3 id=\"m-over_admission\">"));
  EXPECT_NE(html.find("<a href=\"#m-granted\">grants</a> <small>(variants differ)</small>"), std::string::npos);
}

TEST(SweepReport, AMetricTheSameEverywhereIsNamedNotDrawn) {
  const std::string html = sweep("report_same").html();
  EXPECT_NE(html.find("<li>FIFO inversions <small>(fifo_inversions)</small>: <b>0</b> in every run of every "
                      "variant</li>"),
            std::string::npos);
  EXPECT_EQ(html.find("id=\"m-fifo_inversions\""), std::string::npos);
  EXPECT_NE(html.find("<li>Jain's index of grants <small>(jain_index)</small>: undefined in every run</li>"),
            std::string::npos);
}

TEST(SweepReport, TablesNameTheSweptParameterWithItsUnit) {
  const std::string html = sweep("report_tables").html();
  // over_admission of basic at 5 ms: runs 1 and 3, mean 2, t(1) = 12.706205, s = sqrt(2).
  EXPECT_NE(html.find("<tr><td>5</td><td>2.00 <small>[-10.71, 14.71]</small> <small class=n>n=2</small></td>"),
            std::string::npos);
  EXPECT_NE(html.find("<table class=stats><tr><th>skew (ms)</th><th>basic</th><th>lua</th></tr>"), std::string::npos);
}

TEST(SweepReport, SaysHowToReproduceTheSweepAndFoldsTheOptions) {
  const std::string html = sweep("report_reproduce").html();
  EXPECT_NE(html.find("<pre>semsim compare --variants basic,lua --skews 0,5ms</pre>"), std::string::npos);
  EXPECT_NE(html.find("semsim 0.2.0 (commit abc) against embedded redis-server 7.0.15"), std::string::npos);
  EXPECT_NE(html.find("<p class=context>10 clients, limit 2, timeout 10s, 2 seeds per point; seeds 1&ndash;2."),
            std::string::npos);
  const std::size_t details = html.find("<details id=\"options\">");
  ASSERT_NE(details, std::string::npos);
  EXPECT_GT(html.find("clients = 10"), details);
  EXPECT_GT(details, html.find("id=\"verdicts\""));
}

TEST(SweepReport, LinksTheDefinitionsCopiedBesideItAndEveryContentsEntryHasItsTarget) {
  Page p = sweep("report_links");
  const std::string html = p.html();
  // Relative, to a copy beside the page: the link holds in a published copy of the folder.
  EXPECT_NE(html.find("<a href=\"DEFINITIONS.md\">the checker's definitions</a>"), std::string::npos);
  EXPECT_EQ(slurp(p.dir / "DEFINITIONS.md"), "# What the checker counts\n");
  EXPECT_EQ(html.find("file:"), std::string::npos);
  const std::regex link("href=\"#([^\"]+)\"");
  int links = 0;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), link); it != std::sregex_iterator(); ++it, ++links)
    EXPECT_NE(html.find("id=\"" + (*it)[1].str() + "\""), std::string::npos) << (*it)[1];
  EXPECT_GE(links, 4);
}

TEST(SweepReport, NamesTheDefinitionsWithoutALinkWhenThereIsNoFile) {
  Page p = sweep("report_nodefs");
  p.report.definitions = (p.dir / "no-such" / "DEFINITIONS.md").string();
  const std::string html = p.html();
  EXPECT_NE(html.find("Definitions: reports/DEFINITIONS.md in semsim's documentation."), std::string::npos);
  EXPECT_FALSE(fs::exists(p.dir / "DEFINITIONS.md"));
}

TEST(SweepReport, LinksEachRunsTimelineRelativelyAndTheWorstOverAdmission) {
  Page p = sweep("report_runs");
  fs::remove(p.dir / "lua-skew-0" / "seed-2" / "timeline.html");  // a run without its page: not linked
  const std::string html = p.html();
  EXPECT_NE(html.find("<a href=\"#runs\">each run's timeline</a>"), std::string::npos);
  EXPECT_NE(html.find("<tr><td>0</td><td><a href=\"basic-skew-0/seed-1/timeline.html\">1</a> <a "
                      "href=\"basic-skew-0/seed-2/timeline.html\">2</a></td><td><a href=\"lua-skew-0/seed-1/timeline.html\">1</a></td></tr>"),
            std::string::npos);
  EXPECT_NE(html.find("<a href=\"basic-skew-5ms/seed-2/timeline.html\" class=unsafe title=\"over-admitted: +3\">2<sup>+3</sup></a>"),
            std::string::npos);
  // The worst over-admission (+3: seed 2 at 5 ms) links to its run.
  EXPECT_NE(html.find("<b>+3</b> <small>at 5 ms (<a href=\"basic-skew-5ms/seed-2/timeline.html\">its timeline</a>)"),
            std::string::npos);
}

TEST(SweepReport, AVariantAskedForThatNeverRanStaysInTheVerdictTableMarkedNotRun) {
  Page p = sweep("report_notrun");
  p.report.variants = {"basic", "fair", "lua"};
  p.report.partial = "partial: the sweep stopped early (interrupted); 8 of 12 runs finished";
  const std::string html = p.html();
  EXPECT_EQ(verdict_row(html, "fair"),
            (std::vector<std::string>{"fair", "not run (the sweep stopped before any run of it finished)"}));
  // In the order asked for.
  EXPECT_LT(html.find("<th class=variant>basic</th>"), html.find("<th class=variant>fair</th>"));
  EXPECT_LT(html.find("<th class=variant>fair</th>"), html.find("<th class=variant>lua</th>"));
  EXPECT_EQ(verdict_row(html, "lua")[1], "safe in the 4 runs made (partial)");
}

TEST(SweepReport, SaysWhatAValueOfTheSweptParameterStandsFor) {
  Page p = sweep("report_meaning");
  p.report.meaning = "skew V: each client's clock offset drawn uniformly from [-V, +V]";
  const std::string html = p.html();
  const std::size_t meaning = html.find("<p class=context id=\"meaning\">skew V: each client's clock offset drawn uniformly "
                                        "from [-V, +V].</p>");
  ASSERT_NE(meaning, std::string::npos) << html.substr(0, 1200);
  EXPECT_LT(meaning, html.find("<table id=\"verdicts\""));
}

TEST(SweepReport, InlinesTheChartsAndLoadsNothing) {
  Page p = sweep("report_inline");
  std::ofstream(p.dir / "compare_over_admission.svg") << "<?xml version=\"1.0\"?>\n<svg viewBox=\"0 0 1 1\"></svg>\n";
  const std::string html = p.html();
  EXPECT_NE(html.find("<h3 id=\"m-over_admission\">over-admission (most holders above the limit) "
                      "<small>(over_admission)</small></h3>\n<svg viewBox=\"0 0 1 1\"></svg>"),
            std::string::npos);
  EXPECT_EQ(html.find("<?xml"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_FALSE(std::regex_search(html, std::regex("https?:")));
}

TEST(SweepReport, LeavesOutChartsNotDrawnForThisSweep) {
  Page p = sweep("report_nocharts");
  std::ofstream(p.dir / "compare_over_admission.svg") << "<svg>an older sweep's</svg>\n";
  p.report.charts = false;
  EXPECT_EQ(p.html().find("an older sweep's"), std::string::npos);
}

TEST(SweepReport, CaptionNamesTheContextButNotTheSweptParameter) {
  const std::string options = "clients = 10\nlimit = 2\nskew = fixed:0ms\ndelay = uniform:0ms..1ms\ntimeout = 10s\n"
                              "hold = fixed:50ms\nduration = 1s\nseed = 1\n";
  EXPECT_EQ(sweep_caption(options, "skew", 2),
            "10 clients, limit 2, delay uniform:0ms..1ms, timeout 10s, hold fixed:50ms, 1s runs, 2 seeds per point");
  EXPECT_EQ(sweep_caption(options, "clients", 1),
            "limit 2, skew fixed:0ms, delay uniform:0ms..1ms, timeout 10s, hold fixed:50ms, 1s runs, 1 seed per point");
}

// Markup that would run, load or comment out, in a file name, a folder name, an option's value.
const std::string kHostile = "<img src=x onerror=\"document.title='XSS'\"><script>x</script><!--&amp;";
const std::string kEscaped =
    "&lt;img src=x onerror=&quot;document.title='XSS'&quot;&gt;&lt;script&gt;x&lt;/script&gt;&lt;!--&amp;amp;";

// Every text of the page from the sweep, hostile: a variant's name (a script variant's file),
// the command (its --out), the options (a scenario's file), the Redis, the version, why it is
// partial, the caption, where the definitions are.
Page hostile_sweep(const std::string& name) {
  Page p = sweep(name, "script:" + kHostile + ".ini");
  for (std::string* text : {&p.report.command, &p.report.options, &p.report.redis, &p.report.semsim_version,
                            &p.report.partial, &p.report.caption, &p.report.definitions})
    *text += kHostile;
  p.report.parameter += kHostile;
  p.report.runs[0].folder = kHostile + "/seed-1";  // a run folder (named after the variant)
  fs::create_directories(p.dir / p.report.runs[0].folder);
  std::ofstream(p.dir / p.report.runs[0].folder / "timeline.html") << "<!DOCTYPE html>\n";
  return p;
}

TEST(SweepReport, EveryTextOfTheSweepReachesThePageAsText) {
  const std::string html = hostile_sweep("report_hostile").html();
  for (const char* markup : {"<img", "<script", "<!--", "onerror=\""})
    EXPECT_EQ(html.find(markup), std::string::npos) << markup;
  EXPECT_NE(html.find("<th class=variant>script:" + kEscaped + ".ini</th>"), std::string::npos);
  EXPECT_NE(html.find("<pre>semsim compare --variants basic,lua --skews 0,5ms" + kEscaped + "</pre>"), std::string::npos);
  EXPECT_NE(html.find("<b>" + kEscaped + "</b>"), std::string::npos);  // partial
  // A run folder's name as a path of its own, percent-encoded: never markup, never a scheme.
  EXPECT_NE(html.find("<a href=\"%3Cimg%20src%3Dx%20onerror%3D%22document.title%3D%27XSS%27%22%3E%3Cscript%3Ex%3C/script%3E%3C%21--%26amp%3B/seed-1/timeline.html\">1</a>"),
            std::string::npos);
  EXPECT_EQ(html.find("file:"), std::string::npos);
}

TEST(SweepReport, ItsPolicyRunsNoScriptAndOnlyItsOwnStyle) {
  const std::string html = sweep("report_policy").html();
  const std::size_t style = html.find("<style>") + 7;
  EXPECT_NE(html.find("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'none'; "
                      "style-src 'sha256-" + sha256_base64(html.substr(style, html.find("</style>") - style)) +
                      "'; base-uri 'none'; form-action 'none'\">"),
            std::string::npos);
  EXPECT_LT(html.find("Content-Security-Policy"), style);
  EXPECT_FALSE(std::regex_search(html, std::regex("<[^>]*\\s(on[a-z]+|style)\\s*=")));
}

TEST(SweepReport, ChartTextFromTheDataIsEscapedByGnuplot) {
  std::ostringstream warn;
  if (!find_gnuplot(warn).available) GTEST_SKIP() << "gnuplot not installed";
  Page p = hostile_sweep("report_hostile_charts");
  ASSERT_TRUE(draw_comparison_charts(p.report.stats, "skew (ms)" + kHostile, p.dir.string(), warn, p.report.caption));
  const std::string html = p.html();
  EXPECT_NE(html.find("<svg"), std::string::npos);
  for (const char* markup : {"<img", "<script", "<!--"}) EXPECT_EQ(html.find(markup), std::string::npos) << markup;
  // In a legend, and in the caption under each title.
  EXPECT_NE(html.find("<text>script:&lt;img src=x onerror=\"document.title='XSS'\">&lt;script>x&lt;/script>&lt;!--&amp;amp;.ini"
                      "</text>"),
            std::string::npos);
}

}  // namespace
}  // namespace semsim

namespace semsim {
namespace {

// fair over-admits at 5 ms only, where its clocks' spread breaks its promise; lua is outside its
// own there too; basic promises nothing. The verdict table says so per variant, a section lists
// each point with why, and every cell of such a point carries a dagger whose hover text is why.
TEST(SweepReport, MarksThePointsOutsideAVariantsPreconditionsWithTheReason) {
  Page p = sweep("report_promises", "fair");
  p.report.promises = {{"fair", true, "no network delay and no pauses; clock spread + hold < timeout",
                        {{5.0, "clock spread 10ms >= timeout 10ms"}}},
                       {"lua", true, "hold (or refresh period) + pauses + round trip < timeout", {{5.0, "hold 50ms >= lease <5ms>"}}}};
  const std::string html = p.html();
  EXPECT_EQ(verdict_row(html, "fair"),
            (std::vector<std::string>{"fair", "unsafe", "2 of 4 runseach outside its preconditions", "+3 at 5 ms (its timeline)",
                                      "5 ms (2 of 2 runs there)", "no stall",
                                      "outside at 5 ms (why; no network delay and no pauses; clock spread + hold &lt; timeout)"}));
  EXPECT_EQ(verdict_row(html, "lua").back(), "outside at 5 ms (why; hold (or refresh period) + pauses + round trip &lt; timeout)");
  const std::size_t section = html.find("<h2 id=\"preconditions\">");
  ASSERT_NE(section, std::string::npos);
  EXPECT_NE(html.find("<td>5</td><td>clock spread 10ms &gt;= timeout 10ms</td>", section), std::string::npos);
  EXPECT_NE(html.find("<td>5</td><td>hold 50ms &gt;= lease &lt;5ms&gt;</td>", section), std::string::npos);
  // Every metric's table: the outside cells (fair and lua at 5 ms), not the others.
  const std::size_t metric = html.find("<table class=stats>", html.find("<h3 id=\"m-over_admission\">"));
  ASSERT_NE(metric, std::string::npos);
  const std::string table = html.substr(metric, html.find("</table>", metric) - metric);
  const std::string mark = "<a class=outside href=\"#preconditions\" title=\"outside its preconditions: clock spread 10ms &gt;= timeout 10ms\">&dagger;</a>";
  EXPECT_NE(table.find(mark), std::string::npos);
  const std::regex outside_cell("<td class=outside>");
  EXPECT_EQ(std::distance(std::sregex_iterator(table.begin(), table.end(), outside_cell), std::sregex_iterator()), 2);
  EXPECT_NE(html.find("<a href=\"#preconditions\">points outside their preconditions</a>"), std::string::npos);

  // basic promises nothing: said, and no point of it marked; nothing judged: no column at all.
  Page q = sweep("report_promises_none");
  q.report.promises = {{"basic", false, "none (not safe: the seeds' naive semaphore)", {}}};
  const std::string none = q.html();
  EXPECT_EQ(verdict_row(none, "basic").back(), "none (not safe: the seeds' naive semaphore)");
  EXPECT_EQ(none.find("id=\"preconditions\""), std::string::npos);
  EXPECT_EQ(verdict_row(sweep("report_promises_unjudged").html(), "basic").size(), 6u);
}

}  // namespace
}  // namespace semsim
