// The proxy's bit of RESP (sim/drivers/resp_stream.h): commands counted in a stream cut anywhere,
// and the replies to its own AUTH/SELECT swallowed.
#include <gtest/gtest.h>

#include "algorithms/api/resp_command.h"
#include "sim/drivers/resp_stream.h"

namespace semsim {
namespace {

TEST(DriverRespStream, CountsCommandsHoweverTheStreamIsCut) {
  const std::string stream = resp_command({"SET", "k", "a\r\nb", "PX", "500"}) + "PING\r\n" +
                             resp_command({"EVALSHA", "abc", "1", "k"}) + resp_command({"MULTI"}) + "*0\r\n";
  for (std::size_t piece = 1; piece <= stream.size(); ++piece) {
    CommandCounter counter;
    for (std::size_t i = 0; i < stream.size(); i += piece) counter.feed(std::string_view(stream).substr(i, piece));
    EXPECT_EQ(counter.commands(), 5u) << "pieces of " << piece;
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
