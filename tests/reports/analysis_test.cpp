// The file path (writer -> analyze_history) agrees with the live Checker, quickly, at scale; and
// what a summary becomes: summary.csv, the printed table and the values `--expect` judges.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string_view>
#include <vector>

#include <unistd.h>

#include "reports/checks/expectations.h"
#include "reports/checks/summary_csv.h"
#include "reports/history/text_format.h"
#include "reports/outputs/analysis.h"
#include "tests/reports/synthetic_history.h"

namespace semsim {
namespace {

std::string temp_path(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / "semsim_reports_tests";
  std::filesystem::create_directories(dir);
  return (dir / (name + "_" + std::to_string(::getpid()))).string();
}

SyntheticOptions synthetic(int clients, int limit, std::uint64_t seed, std::int64_t events) {
  SyntheticOptions o;
  o.clients = clients;
  o.limit = limit;
  o.seed = seed;
  o.events = events;
  return o;
}

TEST(Analysis, AnalyzingTheWrittenFileGivesTheSameSummaryAsTheLiveChecker) {
  std::string path = temp_path("live") + ".csv";
  Checker live;
  {
    HistoryWriter writer(path);
    generate_history(synthetic(20, 3, 11, 20'000),
                     [&](const Event& e) {
                       writer.write(e);
                       live.add(e);
                     });
  }
  Summary a = live.finish();
  Summary b = analyze_history(path);
  EXPECT_EQ(a, b);
  EXPECT_EQ(summary_csv_row(a), summary_csv_row(b));
  // The synthetic semaphore over-admits now and then, and reports unknown outcomes.
  EXPECT_GT(a.over_admission, 0);
  EXPECT_GT(a.unknown, 0);
  EXPECT_EQ(a.status, "complete");
  EXPECT_TRUE(a.commands);
}

TEST(Analysis, HundredThousandEventsAreCheckedQuickly) {
  std::string path = temp_path("big") + ".csv";
  {
    HistoryWriter writer(path);
    generate_history(synthetic(100, 10, 3, 100'000),
                     [&](const Event& e) { writer.write(e); });
  }
  auto t0 = std::chrono::steady_clock::now();
  Summary s = analyze_history(path);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(s.events, 100'000);
  EXPECT_LT(seconds, 2.0);  // about 0.1 s on one core; generous for a loaded CI machine
  EXPECT_LE(s.holders.size(), 4000u);
}

TEST(Analysis, OutOfOrderRowIsReportedWithItsLine) {
  std::string path = temp_path("order") + ".csv";
  {
    HistoryWriter w(path);
    KeyValues kv;
    kv.set("limit", 1);
    w.write(run_start_event(0, 0, kv));
    Event e;
    e.seq = 1;
    e.true_us = 10;
    w.write(e);
    e.seq = 2;
    e.true_us = 5;
    w.write(e);
  }
  try {
    analyze_history(path);
    FAIL() << "no error";
  } catch (const HistoryError& e) {
    EXPECT_NE(std::string(e.what()).find(path + ":4:"), std::string::npos) << e.what();
  }
}

std::string error_of_analyzing(const std::string& text) {
  const std::string path = temp_path("refused") + ".csv";
  std::ofstream(path) << text;
  try {
    const Summary s = analyze_history(path);
    write_timeline_html(path, path + ".html", s);
    return "";
  } catch (const HistoryError& e) {
    return e.what();
  }
}

// A header alone, or only the run's last row, is no run's history: it read "SAFETY valid, limit
// 0", exit 0. Refused, as a zero-byte file is.
TEST(Analysis, AHistoryWithoutItsRunRowIsRefused) {
  const std::string header = std::string(kHistoryHeader) + "\n";
  EXPECT_NE(error_of_analyzing(header).find("no run row"), std::string::npos);
  EXPECT_NE(error_of_analyzing(header + "0,5,0,run,ok,5,,commands=3\n").find("no run row"), std::string::npos);
  EXPECT_NE(error_of_analyzing("").find("bad header"), std::string::npos);
  EXPECT_EQ(error_of_analyzing(header + "0,0,0,run,info,0,,limit=1\n"), "");
}

// true_us and client_us within +-2^61 us, so that differences and a timeout added stay in 64 bits
// (the timeline's x position overflowed, UBSan, timeline.cpp:72).
TEST(Analysis, InstantsBeyondTwoToTheSixtyOneMicrosecondsAreRefused) {
  const std::string start = std::string(kHistoryHeader) + "\n0,0,0,run,info,0,,limit=1\n";
  EXPECT_NE(error_of_analyzing(start + "1,2305843009213693953,1,acquire,invoke,0,,\n").find(":3: column 2 (true_us)"),
            std::string::npos);
  EXPECT_NE(error_of_analyzing(start + "1,5,1,acquire,invoke,-2305843009213693953,,\n").find("column 6 (client_us)"),
            std::string::npos);
  // The bound itself is a history, and its timeline is drawn.
  EXPECT_EQ(error_of_analyzing(start + "1,1,1,acquire,invoke,1,,\n2,1,1,acquire,ok,1,a,\n"
                                       "3,2305843009213693952,1,crash,ok,2305843009213693952,,\n"),
            "");
}

TEST(Analysis, SummaryCsvStartsWithTheDesignColumnsAndHasFixedDecimals) {
  std::string h = summary_csv_header();
  EXPECT_EQ(h.rfind("variant,mode,seed,clients,limit,duration_ms,acquires,granted,rejected,"
                    "max_holders,over_admission,over_limit_ms,fifo_inversions,jain_index,"
                    "acquire_p50_ms,acquire_p99_ms,commands,commands_per_s,wall_s,",
                    0),
            0u);
  Summary s;
  s.variant = "basic";
  s.over_limit_us = 20'000;
  s.jain_index = 36.0 / 56.0;
  s.commands = 1000;
  s.wall_s = 0.5;
  s.commands_per_s = 2000;
  std::string row = summary_csv_row(s);
  EXPECT_EQ(row.rfind("basic,,0,0,0,0,0,0,0,0,0,20.000,0,0.642857,,,1000,2000.0,0.500,", 0), 0u) << row;
  // Same number of columns in header and row.
  EXPECT_EQ(std::count(h.begin(), h.end(), ','), std::count(row.begin(), row.end(), ','));
}

TEST(Analysis, PrintedSummaryShowsVerdictsAndTheWitness) {
  Summary s;
  s.limit = 1;
  s.max_holders = 2;
  s.safety = Verdict::invalid;
  s.episode_count = 1;
  s.episodes.push_back({30'000, 50'000, false, 2, {{1, "a", 10'000}, {2, "b", 30'000}}});
  std::ostringstream out;
  print_summary(out, s);
  std::string text = out.str();
  EXPECT_NE(text.find("SAFETY   invalid"), std::string::npos) << text;
  EXPECT_NE(text.find("client 1 (clock +0.000 ms) holds a since 10.000 ms"), std::string::npos) << text;
  EXPECT_NE(text.find("client 2 (clock +0.000 ms) holds b since 30.000 ms"), std::string::npos) << text;
  EXPECT_NE(text.find("LIVENESS valid"), std::string::npos) << text;
}

// Every field set to a value that prints unlike the default, and a variant that summary.csv
// must quote.
Summary every_field_set() {
  Summary s;
  s.variant = "fair, \"quoted\"";
  s.mode = "virtual";
  s.seed = 7;
  s.clients = 5;
  s.limit = 2;
  s.duration_ms = 1000;
  s.timeout_ms = 500;
  s.status = "failed";
  s.reason = "redis went away";
  s.events = 123;
  s.start_us = 1'000;
  s.end_us = 1'001'500;
  s.acquires = 40;
  s.granted = 30;
  s.rejected = 8;
  s.acquire_unknown = 2;
  s.unknown = 3;
  s.max_holders = 3;
  s.max_possible_holders = 4;
  s.over_admission = 1;
  s.over_limit_us = 12'345;
  s.possible_over_limit_us = 23'456;
  s.steals = 2;
  s.episode_count = 2;
  s.episodes.push_back({30'000, 50'000, true, 3, {{1, "a", 10'000, 0}, {2, "", 20'000, -10'000}, {4, "c", 30'000, 2'500}}});
  s.fifo_inversions = 4;
  s.jain_index = 0.875;
  s.skew_success_correlation = -0.5;
  s.skew_success_slope = -0.0125;
  s.longest_wait_us = 400'000;
  s.longest_wait_client = 3;
  s.longest_wait_open = true;
  s.acquire_p50_us = 1'500;
  s.acquire_p99_us = 9'999;
  s.liveness_bound_us = 1'500'250;
  s.liveness_gaps = 1;
  s.longest_no_grant_us = 1'600'000;
  s.samples = 10;
  s.stale_samples = 2;
  s.max_stale = 1;
  s.server_faults = 1;
  s.lost_permits = 1;
  s.broken_leases = 1;
  s.exercised = true;
  s.first_unknown = "error: ERR boom";
  s.commands = 900;
  s.wall_s = 0.25;
  s.commands_per_s = 3600;
  s.operations = 70;
  s.operations_per_s = 280;
  s.round_trips = 50;
  s.round_trips_per_s = 200;
  s.speed_x = 4;
  s.safety = Verdict::invalid;
  s.liveness = Verdict::invalid;
  return s;
}

std::string printed(const Summary& s) {
  std::ostringstream out;
  print_summary(out, s);
  return out.str();
}

// DEFINITIONS.md's headings by their anchors as GitHub renders them, since docs link to them so
// (lower case, spaces to hyphens, punctuation but '-' and '_' dropped), each with its section's text.
std::map<std::string, std::string> definitions_sections() {
  std::ifstream in(std::string(SEMSIM_SOURCE_DIR) + "/reports/DEFINITIONS.md");
  EXPECT_TRUE(in) << "reports/DEFINITIONS.md";
  std::map<std::string, std::string> sections;
  std::string line, anchor;
  while (std::getline(in, line)) {
    if (line.starts_with('#')) {
      const std::size_t text = line.find_first_not_of('#');
      anchor.clear();
      for (char c : line.substr(line.find_first_not_of(' ', text))) {
        const auto u = static_cast<unsigned char>(c);
        if (std::isalnum(u)) anchor += static_cast<char>(std::tolower(u));
        else if (c == ' ' || c == '-') anchor += '-';
        else if (c == '_' || u >= 0x80) anchor += c;
      }
      sections[anchor];
    } else if (!anchor.empty()) {
      sections[anchor] += line + '\n';
    }
  }
  return sections;
}

bool names_word(const std::string& text, std::string_view word) {
  const auto part_of_name = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (std::size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1))
    if ((at == 0 || !part_of_name(text[at - 1])) &&
        (at + word.size() == text.size() || !part_of_name(text[at + word.size()])))
      return true;
  return false;
}

constexpr std::string_view kDefinitions = "reports/DEFINITIONS.md#";

TEST(SummaryColumns, TheHeaderIsTheTablesNamesJoinedByCommas) {
  std::string names;
  for (const SummaryColumn& c : summary_columns()) names += (names.empty() ? "" : ",") + std::string(c.name);
  EXPECT_EQ(summary_csv_header(), names);
}

TEST(SummaryColumns, TheFirstNineteenAreTheColumnsDesignMdPromisesInOrder) {
  const std::vector<std::string_view> design = {
      "variant",        "mode",          "seed",           "clients",         "limit",
      "duration_ms",    "acquires",      "granted",        "rejected",        "max_holders",
      "over_admission", "over_limit_ms", "fifo_inversions", "jain_index",     "acquire_p50_ms",
      "acquire_p99_ms", "commands",      "commands_per_s", "wall_s"};
  ASSERT_GE(summary_columns().size(), design.size());
  for (std::size_t i = 0; i < design.size(); ++i) EXPECT_EQ(summary_columns()[i].name, design[i]) << "column " << i;
  EXPECT_TRUE(summary_csv_header().starts_with(
      "variant,mode,seed,clients,limit,duration_ms,acquires,granted,rejected,max_holders,over_admission,"
      "over_limit_ms,fifo_inversions,jain_index,acquire_p50_ms,acquire_p99_ms,commands,commands_per_s,wall_s,"));
}

TEST(SummaryColumns, NamesAreUniqueAndEachIsFoundByItsName) {
  std::set<std::string_view> seen;
  for (const SummaryColumn& c : summary_columns()) {
    EXPECT_TRUE(seen.insert(c.name).second) << c.name << " twice";
    EXPECT_EQ(find_summary_column(c.name), &c) << c.name;
    EXPECT_NE(c.format, nullptr) << c.name;
  }
  EXPECT_EQ(find_summary_column("happiness"), nullptr);
  EXPECT_EQ(find_summary_column("over_admission_max"), nullptr);  // a suffix is the expectation's
  EXPECT_EQ(find_summary_column("speed_x"), nullptr);  // throughput.csv's, not summary.csv's
}

TEST(SummaryColumns, EveryDefinitionReferenceIsAHeadingOfDefinitionsMd) {
  const auto sections = definitions_sections();
  ASSERT_TRUE(sections.contains("safety"));  // the anchors are read as the test means them
  for (const SummaryColumn& c : summary_columns()) {
    ASSERT_TRUE(c.defined_in.starts_with(kDefinitions)) << c.name << ": " << c.defined_in;
    EXPECT_TRUE(sections.contains(std::string(c.defined_in.substr(kDefinitions.size()))))
        << c.name << ": no heading of reports/DEFINITIONS.md has the anchor of " << c.defined_in;
  }
}

TEST(SummaryColumns, EveryColumnIsNamedInTheSectionItPointsAt) {
  const auto sections = definitions_sections();
  for (const SummaryColumn& c : summary_columns()) {
    const auto it = sections.find(std::string(c.defined_in.substr(kDefinitions.size())));
    if (it == sections.end()) continue;  // the test above says so
    EXPECT_TRUE(names_word(it->second, c.name)) << c.name << " is not named in " << c.defined_in;
  }
}

TEST(SummaryColumns, ARowIsEachColumnsFormatterInOrderAndUndefinedIsEmpty) {
  const Summary s = every_field_set();
  std::string row;
  for (const SummaryColumn& c : summary_columns()) row += (row.empty() ? "" : ",") + csv_field(c.format(s));
  EXPECT_EQ(summary_csv_row(s), row);
  EXPECT_EQ(find_summary_column("jain_index")->format(Summary{}), "");
  EXPECT_EQ(find_summary_column("acquire_p99_ms")->format(Summary{}), "");
  EXPECT_EQ(find_summary_column("longest_wait_client")->format(Summary{}), "");
}

TEST(SummaryColumns, ARowWithEmptyLeadingFieldsIsAsWideAsTheHeader) {
  const std::string header = summary_csv_header();
  for (Summary s : {Summary{}, every_field_set()}) {
    s.variant.clear();
    const std::string row = summary_csv_row(s);
    EXPECT_EQ(std::count(row.begin(), row.end(), ','), std::count(header.begin(), header.end(), ',')) << row;
    EXPECT_TRUE(row.starts_with(",")) << row;
  }
}

TEST(SummaryColumns, ExpectationValuesAreTheFormattersOutputUnquoted) {
  const Summary s = every_field_set();
  const auto values = summary_values(s);
  ASSERT_EQ(values.size(), summary_columns().size());
  for (const SummaryColumn& c : summary_columns()) EXPECT_EQ(values.at(std::string(c.name)), c.format(s)) << c.name;
  EXPECT_EQ(values.at("variant"), "fair, \"quoted\"");
  EXPECT_TRUE(judge(parse_expectation("variant", "fair, \"quoted\""), values).met);
  EXPECT_TRUE(judge(parse_expectation("over_limit_ms_max", "12.345"), values).met);
  EXPECT_FALSE(judge(parse_expectation("over_limit_ms_max", "12.344"), values).met);
}

TEST(SummaryColumns, AnExpectationOnEveryColumnIsAccepted) {
  for (const SummaryColumn& c : summary_columns()) {
    const std::string name(c.name);
    const std::string value = c.kind == ColumnKind::word ? "valid" : "1";
    EXPECT_NO_THROW({
      const Expectation e = parse_expectation(name, value);
      EXPECT_EQ(e.metric, name);
      EXPECT_EQ(e.kind, Expectation::Kind::equal);
    }) << name;
    EXPECT_EQ(parse_expectation(name + "_min", "1").kind, Expectation::Kind::at_least) << name;
    EXPECT_EQ(parse_expectation(name + "_max", "1").kind, Expectation::Kind::at_most) << name;
    EXPECT_EQ(parse_expectation(name + "_trend", "constant").kind, Expectation::Kind::trend) << name;
  }
}

std::string expectation_error(const std::string& key, const std::string& value) {
  try {
    parse_expectation(key, value);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(SummaryColumns, OnlyAWordColumnEqualsAWordAndBoundsNeedNumbers) {
  EXPECT_EQ(expectation_error("safety", "invalid"), "");
  EXPECT_EQ(expectation_error("variant", "basic"), "");
  EXPECT_EQ(expectation_error("over_admission", "abc"), "'abc' is not a number (over_admission is a number)");
  // A bound on a word column needs a number, as it always did (and so is never met).
  EXPECT_EQ(expectation_error("safety_max", "valid"), "'valid' is not a number (safety is a number)");
  EXPECT_EQ(expectation_error("happiness", "1"),
            "unknown metric 'happiness' (any summary.csv column, with _min, _max or _trend)");
  EXPECT_EQ(expectation_error("happiness_min", "1"),
            "unknown metric 'happiness' (any summary.csv column, with _min, _max or _trend)");
}

// Valid only just: within a tenth of the bound is said; a tenth and more below it, or past it, is not.
TEST(Analysis, PrintedSummaryMarksALongestNoGrantStretchNearTheBound) {
  Summary s = every_field_set();
  s.liveness_bound_us = 11'000'000;
  const auto note = [&](std::int64_t longest_us) {
    s.longest_no_grant_us = longest_us;
    return printed(s).find("longest_no_grant_ms") != std::string::npos &&
           printed(s).find("NEAR THE BOUND: within a tenth of 11000.000 ms") != std::string::npos;
  };
  EXPECT_TRUE(note(10'070'000));
  EXPECT_TRUE(note(9'900'000));
  EXPECT_TRUE(note(11'000'000));
  EXPECT_FALSE(note(9'899'999));
  EXPECT_FALSE(note(11'000'001));
}

TEST(Analysis, SummaryCsvRowWritesEveryFieldInItsPublishedFormat) {
  EXPECT_EQ(summary_csv_row(every_field_set()),
            "\"fair, \"\"quoted\"\"\",virtual,7,5,2,1000,40,30,8,3,1,12.345,4,0.875000,1.500,9.999,900,3600.0,0.250,"
            "3,2,4,23.456,2,2,400.000,3,-0.500000,-0.012500,1,1600.000,1500.250,123,1000.500,failed,invalid,invalid,10,2,1,"
            "1,1,70,yes,1");
  EXPECT_EQ(summary_csv_row(Summary{}),
            ",,0,0,0,0,0,0,0,0,0,0.000,0,,,,,,,0,0,0,0.000,0,0,0.000,,,,0,0.000,0.000,0,0.000,incomplete,valid,valid,0,0,0,"
            "0,0,0,no,0");
}

TEST(Analysis, PrintedSummaryOfEveryFieldKeepsItsLayoutAndNotes) {
  EXPECT_EQ(printed(every_field_set()),
            "run      fair, \"quoted\", virtual mode, seed 7, 5 clients, limit 2, 1000 ms; history failed (redis went away), 123 events over 1000.500 ms\n"
            "SAFETY   invalid\n"
            "  max_holders               3   (limit 2)\n"
            "  over_admission            1\n"
            "  over_limit_ms             12.345\n"
            "  episodes                  2\n"
            "  steals                    2\n"
            "  max_possible_holders      4   (counting info acquires)\n"
            "  broken_leases             1   (ok'd leases gone before invoke + timeout)\n"
            "  first over-admission: 30.000 .. 50.000 ms (open at end), peak 3 holders; witness:\n"
            "    client 1 (clock +0.000 ms) holds a since 10.000 ms\n"
            "    client 2 (clock -10.000 ms) holds - since 20.000 ms\n"
            "    client 4 (clock +2.500 ms) holds c since 30.000 ms\n"
            "FAIRNESS\n"
            "  acquires                  40   (30 granted, 8 rejected, 2 unknown)\n"
            "  fifo_inversions           4\n"
            "  jain_index                0.875000\n"
            "  skew_success_correlation  -0.500000   (negative: slow clocks win)\n"
            "  longest_wait_ms           400.000   (client 3, still waiting)\n"
            "  acquire_p50_ms            1.500\n"
            "  acquire_p99_ms            9.999\n"
            "LIVENESS invalid\n"
            "  liveness_gaps             1   (no grant for > 1500.250 ms while a permit was free)\n"
            "  longest_no_grant_ms       1600.000\n"
            "  unknown outcomes          3\n"
            "BELIEF VS REDIS\n"
            "  stale_samples             2 of 10   (samples where a client believed in a permit Redis no longer counted)\n"
            "  max_stale                 1\n"
            "REDIS FAULTS\n"
            "  server_faults             1   (restarts, failovers, dropped connections, pauses)\n"
            "  lost_permits              1   (held permits whose grant Redis lost in a fault)\n"
            "THROUGHPUT\n"
            "  commands                  900\n"
            "  commands_per_s            3600.0\n"
            "  wall_s                    0.250\n"
            "  operations                70   (acquire, release and refresh outcomes)\n"
            "  operations_per_s          280.0\n"
            "  round_trips               50   (pipelines sent to Redis and answered)\n"
            "  round_trips_per_s         200.0\n"
            "  speed_x                   4.00   (simulated seconds per wall-clock second)\n");
}

TEST(Analysis, PrintedSummaryShowsNaForUndefinedValues) {
  EXPECT_EQ(printed(Summary{}),
            "run      ,  mode, seed 0, 0 clients, limit 0, 0 ms; history incomplete, 0 events over 0.000 ms\n"
            "NOT EXERCISED: no acquire was invoked in this history; its verdicts say nothing about the variant\n"
            "SAFETY   valid\n"
            "  max_holders               0   (limit 0)\n"
            "  over_admission            0\n"
            "  over_limit_ms             0.000\n"
            "  episodes                  0\n"
            "  steals                    0\n"
            "FAIRNESS\n"
            "  acquires                  0   (0 granted, 0 rejected, 0 unknown)\n"
            "  fifo_inversions           0\n"
            "  jain_index                n/a\n"
            "  skew_success_correlation  n/a   (undefined: fewer than two clients had an acquire granted or refused)\n"
            "  longest_wait_ms           0.000\n"
            "  acquire_p50_ms            n/a\n"
            "  acquire_p99_ms            n/a\n"
            "LIVENESS valid\n"
            "  liveness_gaps             0   (no grant for > 0.000 ms while a permit was free)\n"
            "  longest_no_grant_ms       0.000\n"
            "  unknown outcomes          0\n"
            "THROUGHPUT\n"
            "  commands                  n/a\n"
            "  commands_per_s            n/a\n"
            "  wall_s                    n/a\n"
            "  operations                0   (acquire, release and refresh outcomes)\n"
            "  operations_per_s          n/a\n"
            "  round_trips               n/a   (pipelines sent to Redis and answered)\n"
            "  round_trips_per_s         n/a\n"
            "  speed_x                   n/a   (simulated seconds per wall-clock second)\n");
}

}  // namespace
}  // namespace semsim
