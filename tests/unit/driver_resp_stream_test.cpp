// The proxy's bit of RESP (sim/drivers/resp_stream.h): whole commands read from a stream cut
// anywhere, with their bytes, what is not RESP refused, and the replies to its own AUTH/SELECT swallowed.
#include <gtest/gtest.h>

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
