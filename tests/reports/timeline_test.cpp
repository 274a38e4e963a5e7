// timeline.html: the data the page draws, from a hand-made history (every kind of mark), and the
// page around it: self-contained, with its zoom and over-admission controls. The page's behaviour
// in a browser (zooming, jumping, ticks, nothing clipped): tests/browser (ctest -L browser).
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "reports/outputs/analysis.h"
#include "reports/outputs/page_safety.h"
#include "tests/reports/history_builder.h"
#include "tests/reports/synthetic_history.h"
#include "tests/text_file.h"

namespace semsim {
namespace {

namespace fs = std::filesystem;
using test::HistoryBuilder;

std::string dir_for(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / "semsim_reports_tests" / (name + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir.string();
}

// A directory of its own holding `events` as history.csv.
std::string history_dir(const std::vector<Event>& events, const std::string& name) {
  const std::string dir = dir_for(name);
  HistoryWriter w(dir + "/history.csv");
  for (const Event& e : events) w.write(e);
  return dir;
}

// The page of `events` (written as a history file, checked, then drawn).
std::string page_of(const std::vector<Event>& events, const std::string& name, int max_clients = 200,
                    std::size_t max_bars = 200'000) {
  const std::string dir = history_dir(events, name);
  const Summary s = analyze_history(dir + "/history.csv");
  write_timeline_html(dir + "/history.csv", dir + "/timeline.html", s, max_clients, max_bars);
  return slurp(dir + "/timeline.html");
}

// Limit 1, timeout 100 ms. Client 1 holds [1, 50) ms; client 2, its clock 10 ms behind, is granted
// at 21 ms (a steal), pauses from 30 to 180 ms and releases at 200 ms, 80 ms after its lease ran
// out (invoke at 20 + 100); client 3's acquire ends unknown at 301 ms and it crashes at 350 ms;
// Redis pauses for 20 ms at 250 ms.
std::vector<Event> every_mark() {
  HistoryBuilder h(/*limit=*/1, /*clients=*/3, /*timeout_ms=*/100);
  h.hold(1, 0, 1, 50, "a");
  h.at(20, 2, Op::acquire, Phase::invoke, "", -10).at(21, 2, Op::acquire, Phase::ok, "b", -10);
  h.at(30, 2, Op::pause, Phase::ok, "", -10).at(180, 2, Op::resume, Phase::ok, "", -10);
  h.at(200, 2, Op::release, Phase::invoke, "b", -10).at(201, 2, Op::release, Phase::ok, "b", -10);
  h.at(250, 0, Op::redis_pause, Phase::ok);
  h.events.back().detail = "length_us=20000";
  h.at(300, 3, Op::acquire, Phase::invoke, "", 5).at(301, 3, Op::acquire, Phase::info, "", 5);
  h.at(350, 3, Op::crash, Phase::ok, "", 5);
  h.end(400);
  return h.sorted();
}

TEST(Timeline, RowsCarryHoldsLeasesPausesCrashesAndClockOffsets) {
  const std::string html = page_of(every_mark(), "timeline_marks");
  // Client 1: one hold, the witness of the over-admission (flag 2), its lease to 0 + 100 ms.
  EXPECT_NE(html.find("{\"id\":1,\"offset_ms\":0.000,\"holds\":[1000,50000,100000,2,1],\"pauses\":[],\"crashes\":[],"
                      "\"jumps\":[]}"),
            std::string::npos);
  // Client 2: its clock, its hold (a witness too) past its lease (120 ms < 200 ms), its pause.
  EXPECT_NE(html.find("{\"id\":2,\"offset_ms\":-10.000,\"holds\":[21000,200000,120000,2,1],\"pauses\":[30000,180000],"),
            std::string::npos);
  // Client 3: a possible hold (flag 1), from its info to its crash.
  EXPECT_NE(html.find("{\"id\":3,\"offset_ms\":5.000,\"holds\":[301000,350000,-1,1,1],\"pauses\":[],\"crashes\":[350000]"),
            std::string::npos);
  EXPECT_NE(html.find("\"server\":[[\"redis_pause\",250000,270000,\"length_us=20000\"]]"), std::string::npos);
  EXPECT_NE(html.find("\"episodes\":[21000,50000,2]"), std::string::npos);
  EXPECT_NE(html.find("\"timeout_us\":100000"), std::string::npos);
}

TEST(Timeline, IsOnePageWithItsControlsAndNothingFromTheNetwork) {
  const std::string html = page_of(every_mark(), "timeline_page");
  for (const char* id : {"first", "prev", "next", "zin", "zout", "all", "range", "axis", "plot"})
    EXPECT_NE(html.find("id=\"" + std::string(id) + "\""), std::string::npos) << id;
  EXPECT_NE(html.find("addEventListener('wheel'"), std::string::npos);
  EXPECT_EQ(std::regex_search(html, std::regex("(src|href)=\"?(https?:)?//")), false);
  EXPECT_EQ(html.find("<script src"), std::string::npos);
  // No text of the history can close the data's script element.
  EXPECT_EQ(html.find("</script>", html.find("id=\"data\"")), html.find("</script>", html.find("id=\"data\"")));
}

// Markup in every text of a history the page shows: the run row's variant, a fault's detail, and
// the mode (which the checker refuses: the page does not count on that).
std::string hostile_page(const std::string& name) {
  std::vector<Event> events = every_mark();
  events.front().detail = "variant=\"script:</script><script>document.title='XSS'</script>\" mode=virtual seed=7 "
                          "clients=3 limit=1 duration_ms=1000 timeout_ms=100";
  for (Event& e : events)
    if (e.op == Op::redis_pause) e.detail = "length_us=20000 note=\"<svg onload=alert(1)> <!-- \\\"'& \u2028\u2029\"";
  const std::string dir = history_dir(events, name);
  Summary s = analyze_history(dir + "/history.csv");
  s.mode = "<img src=x onerror=\"document.title='XSS'\">";
  write_timeline_html(dir + "/history.csv", dir + "/timeline.html", s);
  return slurp(dir + "/timeline.html");
}

TEST(Timeline, TheHistorysTextsReachThePageAsDataNotMarkup) {
  const std::string html = hostile_page("timeline_escape");
  for (const char* markup : {"<img", "<svg onload", "</script><script>document", "<!-- ", "\u2028", "\u2029"})
    EXPECT_EQ(html.find(markup), std::string::npos) << markup;
  EXPECT_NE(html.find(R"("variant":"script:\u003c/script\u003e\u003cscript\u003edocument.title='XSS'\u003c/script\u003e")"),
            std::string::npos);
  EXPECT_NE(html.find(R"("mode":"\u003cimg src=x onerror=\"document.title='XSS'\"\u003e")"), std::string::npos);
  EXPECT_NE(html.find(R"(note=\"\u003csvg onload=alert(1)\u003e \u003c!-- \\\"'\u0026 \u2028\u2029\"")"), std::string::npos);
  EXPECT_NE(html.find("<title>semsim timeline: script:&lt;/script&gt;&lt;script&gt;document.title='XSS'&lt;/script&gt;</title>"),
            std::string::npos);
  // Two script elements: the data, and the page's own, which builds its elements from the data
  // with createElementNS, textContent and setAttribute, never by parsing text as HTML.
  std::size_t scripts = 0;
  for (std::size_t at = html.find("<script"); at != std::string::npos; at = html.find("<script", at + 1)) ++scripts;
  EXPECT_EQ(scripts, 2u);
  for (const char* parser : {"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "DOMParser", "eval("})
    EXPECT_EQ(html.find(parser), std::string::npos) << parser;
}

// The text of the first element `tag` (<style>, <script>) after `from`.
std::string element_text(const std::string& html, const std::string& tag, std::size_t from = 0) {
  const std::size_t a = html.find("<" + tag + ">", from) + tag.size() + 2;
  return html.substr(a, html.find("</" + tag + ">", a) - a);
}

TEST(Timeline, ItsPolicyRunsItsOwnScriptAndStyleAndNothingElse) {
  const std::string html = hostile_page("timeline_policy");
  std::smatch policy;
  ASSERT_TRUE(std::regex_search(html, policy, std::regex("<meta http-equiv=\"Content-Security-Policy\" content=\"([^\"]*)\">")));
  const std::string script = element_text(html, "script", html.find("id=\"data\""));
  EXPECT_EQ(policy[1].str(), "default-src 'none'; script-src 'sha256-" + sha256_base64(script) + "'; style-src 'sha256-" +
                                 sha256_base64(element_text(html, "style")) + "'; base-uri 'none'; form-action 'none'");
  // First in <head>: a policy in a meta element covers only what follows it.
  EXPECT_LT(static_cast<std::size_t>(policy.position(0)), html.find("<style>"));
  // No inline handler or style attribute in the markup, which the policy would refuse.
  std::string markup = html;
  for (const std::string tag : {"script", "style"})
    for (std::size_t a = markup.find("<" + tag); a != std::string::npos; a = markup.find("<" + tag, a + 1))
      markup.erase(a, markup.find("</" + tag + ">", a) - a);
  EXPECT_FALSE(std::regex_search(markup, std::regex("<[^>]*\\s(on[a-z]+|style)\\s*=")));
  EXPECT_NE(markup.find("<p class=\"help\">"), std::string::npos);
}

TEST(Timeline, TheSameHistoryGivesTheSamePageByteForByte) {
  EXPECT_EQ(hostile_page("timeline_same_a"), hostile_page("timeline_same_b"));
}

TEST(Timeline, SaysHowManyClientsWereLeftOut) {
  const std::string dir = dir_for("timeline_cap");
  {
    HistoryWriter w(dir + "/history.csv");
    SyntheticOptions o;
    o.clients = 12;
    o.events = 3000;
    generate_history(o, [&](const Event& e) { w.write(e); });
  }
  const Summary s = analyze_history(dir + "/history.csv");
  write_timeline_html(dir + "/history.csv", dir + "/timeline.html", s, /*max_clients=*/5);
  const std::string html = slurp(dir + "/timeline.html");
  // The first 5, and beyond them only the clients a kept episode's witness names.
  std::smatch counts;
  ASSERT_TRUE(std::regex_search(html, counts, std::regex("\"hidden\":(\\d+),\"witness_rows\":(\\d+),")));
  EXPECT_EQ(std::stoi(counts[1]) + std::stoi(counts[2]), 7);
  EXPECT_GT(std::stoi(counts[1]), 0);
  EXPECT_NE(html.find("{\"id\":5,"), std::string::npos);
  EXPECT_NE(html.find("more are not drawn"), std::string::npos);
}

TEST(Timeline, TooManyHoldsMergeThoseCloserThanAGapAndSaySo) {
  const std::string dir = dir_for("timeline_merge");
  {
    HistoryWriter w(dir + "/history.csv");
    SyntheticOptions o;
    o.clients = 4;
    o.events = 6000;
    generate_history(o, [&](const Event& e) { w.write(e); });
  }
  const Summary s = analyze_history(dir + "/history.csv");
  write_timeline_html(dir + "/history.csv", dir + "/timeline.html", s, 200, /*max_bars=*/100);
  const std::string html = slurp(dir + "/timeline.html");
  std::smatch gap;
  ASSERT_TRUE(std::regex_search(html, gap, std::regex("\"merge_gap_us\":(\\d+)")));
  EXPECT_GT(std::stoll(gap[1]), 0);
  // At most 100 bars in all: 5 numbers each.
  std::size_t numbers = 0;
  const std::regex holds("\"holds\":\\[([^\\]]*)\\]");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), holds);
       it != std::sregex_iterator(); ++it)
    numbers += (*it)[1].length() ? std::count((*it)[1].first, (*it)[1].second, ',') + 1 : 0;
  EXPECT_LE(numbers, 5u * 100);
  EXPECT_GT(numbers, 0u);
}

// The page a run streams (TimelineBuilder fed event by event, as `semsim run`'s sink does) and the
// page of its history.csv.
struct BothPages {
  std::string streamed, from_file;
};
BothPages pages_of(const std::vector<Event>& events, const std::string& name, int max_clients,
                   std::size_t max_bars = 200'000) {
  const std::string dir = history_dir(events, name);
  const Summary s = analyze_history(dir + "/history.csv");
  write_timeline_html(dir + "/history.csv", dir + "/file.html", s, max_clients, max_bars);
  TimelineBuilder timeline(max_clients, dir + "/history.csv");  // as `semsim run`'s: it names the file it writes
  for (const Event& e : events) timeline.add(e);
  timeline.write(dir + "/streamed.html", s, max_bars);
  return {slurp(dir + "/streamed.html"), slurp(dir + "/file.html")};
}

TEST(Timeline, AStreamedRunDrawsThePageOfItsHistoryFile) {
  // Every kind of mark, a client's clock jump, and a fault whose detail has a line break (the
  // file holds a space there).
  std::vector<Event> marks = every_mark();
  HistoryBuilder h(1, 3, 100);
  h.events = marks;
  h.at(60, 1, Op::jump, Phase::ok).events.back().detail = "by_us=-5000";
  h.at(260, 0, Op::redis_pause, Phase::ok).events.back().detail = "length_us=1000\nwhy=test";
  marks = h.sorted();
  for (std::size_t i = 0; i < marks.size(); ++i) marks[i].seq = i;
  const BothPages marked = pages_of(marks, "timeline_stream_marks", 200);
  EXPECT_EQ(marked.streamed, marked.from_file);
  EXPECT_NE(marked.streamed.find("\"jumps\":[60000,-5000]"), std::string::npos);
  EXPECT_NE(marked.streamed.find("[\"redis_pause\",260000,261000,\"length_us=1000 why=test\"]"), std::string::npos);

  // Many clients, few rows, few bars: rows dropped while streaming, holds merged at write.
  std::vector<Event> synthetic;
  SyntheticOptions o;
  o.clients = 300;
  o.limit = 100;
  o.events = 60'000;
  o.info_per_mille = 5;
  generate_history(o, [&](const Event& e) { synthetic.push_back(e); });
  const BothPages capped = pages_of(synthetic, "timeline_stream_capped", /*max_clients=*/7, /*max_bars=*/20);
  EXPECT_EQ(capped.streamed, capped.from_file);
  // 7 rows, and beyond them the clients of the kept episodes' witnesses: the rest left out.
  std::smatch counts;
  ASSERT_TRUE(std::regex_search(capped.streamed, counts, std::regex("\"hidden\":(\\d+),\"witness_rows\":(\\d+),")));
  EXPECT_GT(std::stoi(counts[2]), 0);
  EXPECT_EQ(std::stoi(counts[1]) + std::stoi(counts[2]), 293);
  EXPECT_EQ(capped.streamed.find("\"merge_gap_us\":0,"), std::string::npos);
}

// Limit 1, rows for 3 clients: clients 1-4 hold one after the other, then 5 and 6 at once (the
// witness of the one over-admission). Their rows are on the page beyond the first 3, their holds
// outlined as the witness; client 4 alone is left out. The page a run streams has them too.
TEST(Timeline, EveryWitnessClientHasARowBeyondTheFirstClients) {
  HistoryBuilder h(/*limit=*/1, /*clients=*/6, /*timeout_ms=*/1000);
  for (int id = 1; id <= 4; ++id) h.hold(id, 10.0 * id, 10.0 * id + 1, 10.0 * id + 5, "p" + std::to_string(id));
  h.hold(5, 100, 101, 200, "p5").hold(6, 110, 111, 150, "p6").hold(4, 300, 301, 305, "q4");
  h.end(400);
  const std::vector<Event> events = h.sorted();
  const BothPages pages = pages_of(events, "timeline_witness_rows", /*max_clients=*/3);
  EXPECT_EQ(pages.streamed, pages.from_file);
  std::vector<std::string> ids;
  const std::regex row("\\{\"id\":(\\d+),");
  for (auto it = std::sregex_iterator(pages.streamed.begin(), pages.streamed.end(), row); it != std::sregex_iterator(); ++it)
    ids.push_back((*it)[1]);
  EXPECT_EQ(ids, (std::vector<std::string>{"1", "2", "3", "5", "6"}));
  EXPECT_NE(pages.streamed.find("{\"id\":5,\"offset_ms\":0.000,\"holds\":[101000,200000,1100000,2,1]"), std::string::npos);
  EXPECT_NE(pages.streamed.find("{\"id\":6,\"offset_ms\":0.000,\"holds\":[111000,150000,1110000,2,1]"), std::string::npos);
  EXPECT_NE(pages.streamed.find("\"hidden\":1,\"witness_rows\":2,"), std::string::npos);
  EXPECT_NE(pages.streamed.find("beyond them that a witness names"), std::string::npos);
}

TEST(Timeline, KeepsRowsOnlyForTheLowestClientsThatAcquire) {
  // 1,000 clients acquire from the highest id down, so the bound on the rows worth keeping falls
  // all along; client 2 pauses and crashes but never acquires (not a row), and client 1 acquires
  // only at the end (a row: it is among the 3 lowest that acquire).
  HistoryBuilder h(/*limit=*/5, /*clients=*/1000, /*timeout_ms=*/100);
  h.at(1, 2, Op::pause, Phase::ok).at(2, 2, Op::resume, Phase::ok).at(3, 2, Op::crash, Phase::ok);
  for (int id = 1000; id >= 3; --id) {
    const double t = 10.0 * (1001 - id);
    h.hold(id, t, t + 1, t + 5, "p" + std::to_string(id));
    h.at(t + 6, id, Op::release, Phase::ok, "p" + std::to_string(id));
  }
  h.hold(1, 20'000, 20'001, 20'005, "p1");
  h.end(20'010);
  const std::vector<Event> events = h.sorted();

  TimelineBuilder timeline(/*max_clients=*/3);
  std::size_t most = 0;
  for (const Event& e : events) {
    timeline.add(e);
    most = std::max(most, timeline.rows_held());
  }
  // Never more than the 3 lowest ids seen acquiring and client 2 below them (a newcomer below the
  // bound pushes the highest of the 3 out as it acquires).
  EXPECT_EQ(most, 4u);
  const std::string dir = dir_for("timeline_bounded_rows");
  const Summary s = h.check();
  timeline.write(dir + "/timeline.html", s);
  const std::string html = slurp(dir + "/timeline.html");
  std::vector<std::string> ids;
  const std::regex row("\\{\"id\":(\\d+),");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), row); it != std::sregex_iterator(); ++it)
    ids.push_back((*it)[1]);
  EXPECT_EQ(ids, (std::vector<std::string>{"1", "3", "4"}));
  EXPECT_NE(html.find("{\"id\":3,\"offset_ms\":0.000,\"holds\":[9981000,9985000,10080000,0,1],"), std::string::npos);
  EXPECT_NE(html.find("\"hidden\":996"), std::string::npos);  // 999 clients acquired, 3 drawn
}

}  // namespace
}  // namespace semsim

namespace semsim {
namespace {

// Client 1 holds "a" [1, 50) and "b" [2, 10) ms at once, limit 1: two bars on its row, each to its
// own release, each with its lease (invokes at 0 + 100 ms), both in the witness. (Before permits
// were counted: one bar, [1, 10), ended by the release of "b".)
TEST(Timeline, EachPermitOfAClientIsABarOfItsOwn) {
  HistoryBuilder h(/*limit=*/1, /*clients=*/1, /*timeout_ms=*/100);
  h.at(0, 1, Op::acquire, Phase::invoke).at(0, 1, Op::acquire, Phase::invoke);
  h.at(1, 1, Op::acquire, Phase::ok, "a").at(2, 1, Op::acquire, Phase::ok, "b");
  h.at(10, 1, Op::release, Phase::invoke, "b").at(50, 1, Op::release, Phase::invoke, "a").end(60);
  const std::string html = page_of(h.sorted(), "timeline_permits");
  EXPECT_NE(html.find("{\"id\":1,\"offset_ms\":0.000,\"holds\":[1000,50000,100000,2,1,2000,10000,100000,2,1],"),
            std::string::npos)
      << html.substr(html.find("\"id\":1,"), 200);
}

}  // namespace
}  // namespace semsim

namespace semsim {
namespace {

// Three masters, quorum 2 (Kleppmann's story, shortened): client 1 is cut from master 3 for 5 ms
// and holds on masters 1 and 2; master 2's clock jumps; it restarts, down 100 ms, without its
// writes; client 2 then holds on masters 2 and 3.
TEST(Timeline, EachMasterHasALaneWithItsFaultsCutsAndTheVotesOfEachGrant) {
  HistoryBuilder h(/*limit=*/1, /*clients=*/2, /*timeout_ms=*/1000);
  h.events[0].detail += " masters=3 quorum=2";
  h.at(0, 1, Op::partition, Phase::ok).events.back().detail = "masters=3 length_us=5000";
  h.at(0, 1, Op::acquire, Phase::invoke).at(1, 1, Op::acquire, Phase::ok, "a");
  h.events.back().detail = "votes=2/3 granted=1,2 no_answer=3";
  h.at(5, 1, Op::heal, Phase::ok).events.back().detail = "masters=3";
  h.at(10, 0, Op::server_jump, Phase::ok).events.back().detail = "master=2 by_us=900000";
  h.at(20, 0, Op::redis_restart, Phase::ok).events.back().detail = "master=2 persistence=none down_us=100000 lost_since_us=0";
  h.at(30, 2, Op::acquire, Phase::invoke).at(31, 2, Op::acquire, Phase::ok, "b");
  h.events.back().detail = "votes=2/3 granted=2,3";
  h.at(60, 1, Op::release, Phase::invoke, "a").at(70, 2, Op::release, Phase::invoke, "b").end(80);
  const std::string html = page_of(h.sorted(), "timeline_masters");
  EXPECT_NE(html.find("\"masters\":3,\"quorum\":2,\"master_marks\":[[3,\"cut\",0,5000,\"client 1\"],"
                      "[2,\"server_jump\",10000,10000,\"master=2 by_us=900000\"],"
                      "[2,\"redis_restart\",20000,120000,\"master=2 persistence=none down_us=100000 lost_since_us=0\"]]"),
            std::string::npos)
      << html.substr(html.find("\"masters\""), 300);
  // The votes above the hold flags: masters 1 and 2 (16 + 32) for client 1, 2 and 3 (32 + 64) for client 2.
  EXPECT_NE(html.find("{\"id\":1,\"offset_ms\":0.000,\"holds\":[1000,60000,1000000,50,1]"), std::string::npos);
  EXPECT_NE(html.find("{\"id\":2,\"offset_ms\":0.000,\"holds\":[31000,70000,1030000,98,1]"), std::string::npos);
  // A master's faults go on its lane, not across every client's row.
  EXPECT_NE(html.find("\"server\":[]"), std::string::npos);
}

TEST(Timeline, OneRedisHasNoMasterLanes) {
  const std::string html = page_of(every_mark(), "timeline_one_master");
  EXPECT_NE(html.find("\"masters\":0,\"quorum\":1,\"master_marks\":[]"), std::string::npos);
}

}  // namespace
}  // namespace semsim

namespace semsim {
namespace {

// 150 over-admissions, more than the checker describes (100): each is on the page, exactly,
// for "next" to reach (not the holders series' buckets past the hundredth).
TEST(Timeline, EveryOverAdmissionIsListedToJumpTo) {
  HistoryBuilder h(/*limit=*/1, /*clients=*/2, /*timeout_ms=*/1000);
  for (int i = 0; i < 150; ++i) {
    const double t = 10.0 * i;
    h.hold(1, t, t + 1, t + 5, "a" + std::to_string(i)).hold(2, t, t + 2, t + 4, "b" + std::to_string(i));
  }
  h.end(1500);
  const std::vector<Event> events = h.sorted();
  const std::string dir = history_dir(events, "timeline_all_episodes");
  const Summary s = analyze_history(dir + "/history.csv");
  ASSERT_EQ(s.episode_count, 150);
  EXPECT_EQ(s.episodes.size(), 100u);
  ASSERT_EQ(s.episode_spans.size(), 150u);
  EXPECT_EQ(s.episode_spans.back(), (EpisodeSpan{1492000, 1494000, 2}));
  write_timeline_html(dir + "/history.csv", dir + "/timeline.html", s);
  const std::string html = slurp(dir + "/timeline.html");
  const std::size_t at = html.find("\"episodes\":[");
  ASSERT_NE(at, std::string::npos);
  const std::string list = html.substr(at, html.find(']', at) - at);
  EXPECT_EQ(std::count(list.begin(), list.end(), ','), 150 * 3 - 1);
  EXPECT_NE(list.find("1482000,1484000,2,1492000,1494000,2"), std::string::npos);
}

// A 1,000-client run: every client has its row (label) on the page, none left out.
TEST(Timeline, AThousandClientsAreEachOnThePage) {
  HistoryBuilder h(/*limit=*/1, /*clients=*/1000, /*timeout_ms=*/1000);
  for (int c = 1; c <= 1000; ++c) h.hold(c, c, c + 0.5, c + 2, "p" + std::to_string(c));
  h.end(1100);
  const std::string dir = history_dir(h.sorted(), "timeline_thousand");
  const Summary s = analyze_history(dir + "/history.csv");
  write_timeline_html(dir + "/history.csv", dir + "/timeline.html", s);
  const std::string html = slurp(dir + "/timeline.html");
  EXPECT_NE(html.find("\"hidden\":0"), std::string::npos);
  EXPECT_NE(html.find("{\"id\":1000,"), std::string::npos);
}

}  // namespace
}  // namespace semsim

namespace semsim {
namespace {

// The run row's masters' clocks reach the page, one [skew_us, drift_ppm] per master; a value that
// is not a number reads as 0, a history without them (before issue 45) has none, as before.
TEST(Timeline, TheMastersClocksOfTheRunRowReachThePage) {
  const auto page = [](const std::string& skews, const std::string& drifts, const std::string& name) {
    HistoryBuilder h(1, 2, 1000);
    KeyValues kv = KeyValues::parse(h.events.front().detail);
    kv.set("masters", 3).set("quorum", 2);
    if (!skews.empty()) kv.set("master_skew_us", skews).set("master_drift_ppm", drifts);
    h.events.front() = run_start_event(0, 0, kv);
    h.hold(1, 0, 1, 5, "a").end(10);
    return page_of(h.sorted(), name);
  };
  EXPECT_NE(page("0,5000,-8000", "0,200,-0.5", "timeline_master_clocks").find("\"master_clocks\":[[0,0.000],[5000,200.000],[-8000,-0.500]]"),
            std::string::npos);
  EXPECT_NE(page("7,x", "1e99", "timeline_master_clocks_bad").find("\"master_clocks\":[[7,1000000.000],[0,0.000],[0,0.000]]"),
            std::string::npos);
  EXPECT_NE(page("", "", "timeline_master_clocks_none").find("\"master_clocks\":[],"), std::string::npos);
}

}  // namespace
}  // namespace semsim
