#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "reports/history/history_reader.h"
#include "reports/history/history_writer.h"
#include "reports/history/key_values.h"
#include "reports/history/run_rows.h"

namespace semsim {
namespace {

std::string csv_path(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / "semsim_reports_tests";
  std::filesystem::create_directories(dir);
  return (dir / (name + "_" + std::to_string(::getpid()) + ".csv")).string();
}

std::string write_text(const std::string& name, const std::string& text) {
  std::string path = csv_path(name);
  std::ofstream(path) << text;
  return path;
}

std::string error_of(const std::string& path) {
  try {
    read_history(path);
  } catch (const HistoryError& e) {
    return e.what();
  }
  return "no error";
}

const std::string kHeader = "seq,true_us,client,op,phase,client_us,identifier,detail\n";

TEST(HistoryIo, WriterThenReaderGivesBackTheSameEvents) {
  std::vector<Event> events;
  KeyValues kv;
  kv.set("variant", "basic").set("limit", 5).set("reason", "two words, \"quoted\"");
  events.push_back(run_start_event(0, 0, kv));
  Event e;
  e.seq = 1;
  e.true_us = 1500;
  e.client = 3;
  e.op = Op::acquire;
  e.phase = Phase::ok;
  e.client_us = -20;  // a clock behind true time by more than the time itself
  e.identifier = "id,with,commas";
  e.detail = " leading space and \"quotes\"";
  events.push_back(e);
  e.seq = 2;
  e.op = Op::crash;
  e.identifier.clear();
  e.detail.clear();
  events.push_back(e);
  events.push_back(run_end_event(3, 2000, 42, std::string("interrupted"), 1.25));

  std::string path = csv_path("roundtrip");
  {
    HistoryWriter w(path);
    for (const Event& ev : events) w.write(ev);
  }
  std::vector<Event> back = read_history(path);
  ASSERT_EQ(back.size(), events.size());
  for (std::size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(back[i].seq, events[i].seq);
    EXPECT_EQ(back[i].true_us, events[i].true_us);
    EXPECT_EQ(back[i].client, events[i].client);
    EXPECT_EQ(back[i].op, events[i].op);
    EXPECT_EQ(back[i].phase, events[i].phase);
    EXPECT_EQ(back[i].client_us, events[i].client_us);
    EXPECT_EQ(back[i].identifier, events[i].identifier);
    EXPECT_EQ(back[i].detail, events[i].detail);
  }
  EXPECT_EQ(KeyValues::parse(back[0].detail), kv);
  EXPECT_EQ(back[3].phase, Phase::fail);
  EXPECT_EQ(KeyValues::parse(back[3].detail).get("reason"), "interrupted");
  EXPECT_EQ(KeyValues::parse(back[3].detail).get_int("commands"), 42);
}

TEST(HistoryIo, NewlinesInADetailBecomeSpacesSoEveryRowIsOneLine) {
  Event e;
  e.detail = "a\nb\r\nc";
  EXPECT_EQ(history_row(e), "0,0,0,acquire,invoke,0,,a b  c");
}

TEST(HistoryIo, WriterFlushesWholeRowsSoAnUnclosedFileIsAValidPrefix) {
  std::string path = csv_path("prefix");
  HistoryWriter w(path, /*flush_rows=*/2);
  Event e;
  for (int i = 0; i < 5; ++i) {
    e.seq = static_cast<std::uint64_t>(i);
    w.write(e);
  }
  // Not closed: rows 0..3 were flushed in pairs, row 4 is still buffered.
  EXPECT_EQ(read_history(path).size(), 4u);
  w.close();
  EXPECT_EQ(read_history(path).size(), 5u);
}

TEST(HistoryIo, MalformedNumberNamesLineAndColumn) {
  std::string path = write_text("badnum", kHeader + "0,0,0,run,info,0,,limit=1\n1,12x,2,acquire,invoke,5,,\n");
  std::string err = error_of(path);
  EXPECT_NE(err.find(path + ":3:"), std::string::npos) << err;
  EXPECT_NE(err.find("column 2 (true_us)"), std::string::npos) << err;
  EXPECT_NE(err.find("\"12x\""), std::string::npos) << err;
}

TEST(HistoryIo, UnknownOpNamesLineAndColumn) {
  std::string path = write_text("badop", kHeader + "1,5,2,grab,invoke,5,,\n");
  std::string err = error_of(path);
  EXPECT_NE(err.find(":2:"), std::string::npos) << err;
  EXPECT_NE(err.find("column 4 (op)"), std::string::npos) << err;
  EXPECT_NE(err.find("grab"), std::string::npos) << err;
}

TEST(HistoryIo, WrongColumnCountNamesTheLine) {
  std::string few = write_text("few", kHeader + "1,5,2,acquire,invoke,5,,\n2,6,2\n");
  std::string err = error_of(few);
  EXPECT_NE(err.find(":3:"), std::string::npos) << err;
  EXPECT_NE(err.find("too few columns"), std::string::npos) << err;

  std::string many = write_text("many", kHeader + "1,5,2,acquire,invoke,5,,,extra\n");
  err = error_of(many);
  EXPECT_NE(err.find(":2:"), std::string::npos) << err;
  EXPECT_NE(err.find("column 9"), std::string::npos) << err;
}

TEST(HistoryIo, ColumnNumbersFollowTheFilesOwnHeaderOrder) {
  std::string path = write_text(
      "reordered", "true_us,seq,client,op,phase,client_us,identifier,detail\n5,1,2,acquire,nope,5,,\n");
  std::string err = error_of(path);
  EXPECT_NE(err.find("column 5 (phase)"), std::string::npos) << err;
}

TEST(HistoryIo, MissingHeaderColumnIsAnError) {
  std::string path = write_text("header", "seq,true_us,client,op,phase,client_us,identifier\n");
  std::string err = error_of(path);
  EXPECT_NE(err.find(":1:"), std::string::npos) << err;
  EXPECT_NE(err.find("detail"), std::string::npos) << err;
}

TEST(KeyValues, QuotedValuesRoundTrip) {
  KeyValues kv;
  kv.set("reason", "redis said \"no\" = bad").set("path", "C:\\x").set("empty", "").set("n", 3);
  EXPECT_EQ(KeyValues::parse(kv.str()), kv);
  EXPECT_EQ(KeyValues::parse("a=1  b=two").get("b"), "two");
  EXPECT_THROW(KeyValues::parse("a=1 oops"), std::invalid_argument);
  EXPECT_THROW(KeyValues::parse("a=\"open"), std::invalid_argument);
  EXPECT_THROW(KeyValues::parse("n=x").get_int("n"), std::invalid_argument);
}

}  // namespace
}  // namespace semsim
