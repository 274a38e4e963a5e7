// The driver line protocol (sim/drivers/driver_protocol.h): what a line is, and every way one is not.
#include <gtest/gtest.h>

#include "sim/drivers/driver_protocol.h"

namespace semsim {
namespace {

TEST(DriverProtocol, ReadsEveryFieldAndTheDetailToTheEndOfTheLine) {
  const DriverLine l = parse_driver_line("123456789 1700000000123 acquire ok c4-7 a library id  with spaces \r");
  EXPECT_EQ(l.mono_ns, 123456789);
  EXPECT_EQ(l.wall_ms, 1700000000123);
  EXPECT_EQ(l.op, DriverOp::acquire);
  EXPECT_EQ(l.phase, Phase::ok);
  EXPECT_EQ(l.id, "c4-7");
  EXPECT_EQ(l.detail, "a library id  with spaces");
}

TEST(DriverProtocol, AnEmptyDetailAndTabsAreFine) {
  const DriverLine l = parse_driver_line("1\t-5\trelease\tfail\tx");
  EXPECT_EQ(l.wall_ms, -5);
  EXPECT_EQ(l.op, DriverOp::release);
  EXPECT_EQ(l.phase, Phase::fail);
  EXPECT_EQ(l.detail, "");
  EXPECT_EQ(parse_driver_line("7 8 refresh info x error: boom ").detail, "error: boom");
}

TEST(DriverProtocol, ReadyIsTheOneDriverLine) {
  EXPECT_TRUE(parse_driver_line("1 2 driver ok - ready").is_ready());
  EXPECT_THROW(parse_driver_line("1 2 driver ok - steady"), ProtocolError);
  EXPECT_THROW(parse_driver_line("1 2 driver fail - ready"), ProtocolError);
}

TEST(DriverProtocol, ReadyMayNameTheLibraryItWraps) {
  const DriverLine named = parse_driver_line("1 2 driver ok - ready library=redis-lock@1.0.0");
  EXPECT_TRUE(named.is_ready());
  EXPECT_EQ(named.library, "redis-lock@1.0.0");
  EXPECT_EQ(parse_driver_line("1 2 driver ok - ready").library, "");
  EXPECT_THROW(parse_driver_line("1 2 driver ok - ready library="), ProtocolError);
  EXPECT_THROW(parse_driver_line("1 2 driver ok - ready library=a b"), ProtocolError);
  EXPECT_THROW(parse_driver_line("1 2 driver ok - ready name=a"), ProtocolError);
}

TEST(DriverProtocol, RefusesWhatIsNotTheProtocolSayingWhy) {
  const auto why = [](const char* line) {
    try {
      parse_driver_line(line);
    } catch (const ProtocolError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(why("this is not a protocol line").find("not a protocol line"), std::string::npos);
  EXPECT_NE(why("1 2 acquire ok").find("4 of at least 5 fields"), std::string::npos);
  EXPECT_NE(why("1.5 2 acquire ok x").find("MONO_NS '1.5' is not a whole number"), std::string::npos);
  EXPECT_NE(why("1 2x acquire ok x").find("WALL_MS"), std::string::npos);
  EXPECT_NE(why("-1 2 acquire ok x").find("negative"), std::string::npos);
  EXPECT_NE(why("1 2 lock ok x").find("unknown OP 'lock'"), std::string::npos);
  EXPECT_NE(why("1 2 acquire granted x").find("unknown PHASE 'granted'"), std::string::npos);
  EXPECT_EQ(why(""), "not a protocol line: 0 of at least 5 fields (a line is MONO_NS WALL_MS OP PHASE ID [DETAIL])");
}

TEST(DriverProtocol, CommandsAreOneLineEach) {
  EXPECT_EQ(command_line(DriverOp::acquire, "c1-1"), "acquire c1-1\n");
  EXPECT_EQ(command_line(DriverOp::refresh, "c2-9"), "refresh c2-9\n");
  EXPECT_EQ(kQuitLine, "quit\n");
}

TEST(DriverProtocol, QuotedLinesArePrintableAndShort) {
  EXPECT_EQ(quoted_line("a\tb\x01"), "a?b?");
  EXPECT_EQ(quoted_line(std::string(200, 'x')).size(), 123u);
}

}  // namespace
}  // namespace semsim
