// The proxy's bit of RESP (sim/drivers/resp_stream.h): whole commands read from a stream cut
// anywhere, with their bytes, what is not RESP refused, and the replies to its own AUTH/SELECT swallowed.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "algorithms/api/resp_command.h"
#include "sim/drivers/resp_stream.h"

namespace semsim {
namespace {

TEST(DriverRespStream, SplitsWholeCommandsHoweverTheStreamIsCut) {
  const std::string set = resp_command({"SET", "k", "a\r\nb", "PX", "500"});
  const std::string evalsha = resp_command({"EVALSHA", "abc", "1", "k"});
  const std::string stream = set + "PING  x\r\n" + evalsha + "\r\n" + resp_command({"MULTI"}) + "*0\r\n";
  for (std::size_t piece = 1; piece <= stream.size(); ++piece) {
    CommandReader reader;
    std::vector<WireCommand> got;
    for (std::size_t i = 0; i < stream.size(); i += piece)
      ASSERT_TRUE(reader.feed(std::string_view(stream).substr(i, piece), got)) << reader.error();
    ASSERT_EQ(got.size(), 4u) << "pieces of " << piece;  // the blank line and *0 are nothing, as for Redis
    EXPECT_EQ(got[0].words, (std::vector<std::string>{"SET", "k", "a\r\nb", "PX", "500"}));
    EXPECT_EQ(got[0].bytes, set);
    EXPECT_EQ(got[1].words, (std::vector<std::string>{"PING", "x"}));
    EXPECT_EQ(got[1].bytes, "PING  x\r\n");
    EXPECT_EQ(got[2].bytes, evalsha);
    EXPECT_EQ(got[3].words, (std::vector<std::string>{"MULTI"}));
  }
}

TEST(DriverRespStream, APartCommandIsHeldUntilItIsWhole) {
  const std::string set = resp_command({"SET", "k", "v"});
  CommandReader reader;
  std::vector<WireCommand> got;
  ASSERT_TRUE(reader.feed(std::string_view(set).substr(0, set.size() - 1), got));
  EXPECT_TRUE(got.empty());
  ASSERT_TRUE(reader.feed(std::string_view(set).substr(set.size() - 1), got));
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].bytes, set);
}

TEST(DriverRespStream, WhatIsNotRespIsAnErrorAndEndsTheReading) {
  for (const char* bad : {"*1\r\n:5\r\n", "*1\r\n$-1\r\n", "*x\r\n", "*1\r\n$3\r\nabcd\r\n", "SET \"a b\" c\r\n",
                          "*1\n$4\r\nPING\r\n"}) {
    CommandReader reader;
    std::vector<WireCommand> got;
    EXPECT_FALSE(reader.feed(bad, got)) << bad;
    EXPECT_FALSE(reader.error().empty()) << bad;
    EXPECT_TRUE(got.empty()) << bad;
    EXPECT_FALSE(reader.feed("PING\r\n", got)) << bad;  // nothing after it is read
  }
}

TEST(DriverRespStream, SwallowsTheProxysOwnRepliesAndNoMore) {
  int left = 2;
  std::string error;
  const std::string bytes = "+OK\r\n+OK\r\n$1\r\nx\r\n";
  EXPECT_EQ(swallow_replies(bytes, left, error), 10u);
  EXPECT_EQ(left, 0);
  EXPECT_EQ(error, "");
  left = 2;
  EXPECT_EQ(swallow_replies("+OK\r\n+O", left, error), 5u);  // the rest has not arrived
  EXPECT_EQ(left, 1);
  left = 1;
  swallow_replies("-WRONGPASS invalid username-password pair\r\n", left, error);
  EXPECT_EQ(error, "WRONGPASS invalid username-password pair");
}

}  // namespace
}  // namespace semsim

namespace {

// Warp's proxy counts Redis's replies, one per command it passed on: each kind of RESP2 and RESP3
// reply is whole only when all its bytes (and its items') are there.
TEST(ReplySize, EveryKindOfReplyIsWholeOnlyWithAllItsBytes) {
  const std::vector<std::string> replies = {
      "+OK\r\n", "-ERR no\r\n", ":42\r\n", "$5\r\nhello\r\n", "$-1\r\n", "*-1\r\n", "*0\r\n",
      "*2\r\n$1\r\na\r\n:1\r\n", "*2\r\n*1\r\n+x\r\n$0\r\n\r\n", "%1\r\n+k\r\n:1\r\n", "_\r\n", "#t\r\n",
      ",1.5\r\n", "(12345\r\n", "=7\r\ntxt:abc\r\n", "~1\r\n+m\r\n", ">2\r\n+message\r\n$1\r\nx\r\n"};
  for (const std::string& r : replies) {
    EXPECT_EQ(semsim::reply_size(r), r.size()) << r;
    EXPECT_EQ(semsim::reply_size(r + "+NEXT\r\n"), r.size()) << r;
    for (std::size_t cut = 0; cut < r.size(); ++cut) EXPECT_EQ(semsim::reply_size(r.substr(0, cut)), 0u) << r << " cut at " << cut;
  }
}

TEST(ReplySize, WhatIsNotRedisProtocolIsAnError) {
  EXPECT_THROW(semsim::reply_size("hello\r\n"), std::runtime_error);
  EXPECT_THROW(semsim::reply_size("$x\r\n"), std::runtime_error);
}

}  // namespace
