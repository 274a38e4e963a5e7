// Typed reply parsing, where the seeds' code reads replies loosely.
#include <gtest/gtest.h>

#include "algorithms/api/protocol.h"
#include "algorithms/api/resp_command.h"

namespace semsim {
namespace {

TEST(Protocol, ARankIsThereOrExplicitlyMissing) {
  EXPECT_EQ(rank_of(Reply::of_integer(0)), 0);
  EXPECT_EQ(rank_of(Reply::of_integer(4)), 4);
  EXPECT_EQ(rank_of(Reply::nil()), std::nullopt);  // the member is not in the set
  EXPECT_THROW(rank_of(Reply::of_error("WRONGTYPE Operation against a key holding the wrong kind of value")),
               ReplyError);
}

TEST(Protocol, ATransactionIsMultiTheCommandsExec) {
  const std::vector<Command> wire = as_transaction({{"INCR", "k"}, {"GET", "k"}});
  ASSERT_EQ(wire.size(), 4u);
  EXPECT_EQ(wire.front(), Command{"MULTI"});
  EXPECT_EQ(wire.back(), Command{"EXEC"});
}

TEST(Protocol, AFailedOrAbortedExecThrowsAndASuccessfulOneGivesTheInnerReplies) {
  Reply exec;
  exec.kind = Reply::Kind::array;
  exec.elements = {Reply::of_integer(1), Reply::of_string("1")};
  const std::vector<Reply> inner =
      transaction_replies({Reply::of_status("OK"), Reply::of_status("QUEUED"), Reply::of_status("QUEUED"), exec});
  ASSERT_EQ(inner.size(), 2u);
  EXPECT_EQ(inner[0].integer, 1);
  EXPECT_THROW(transaction_replies({Reply::of_status("OK"), Reply::of_error("EXECABORT Transaction discarded")}),
               ReplyError);
  EXPECT_THROW(transaction_replies({Reply::of_status("OK"), Reply::nil()}), ReplyError);  // aborted (WATCH)
}

TEST(Protocol, ACommandGoesOnTheWireAsAnArrayOfBulkStringsWhateverItsBytes) {
  EXPECT_EQ(resp_command({"EVALSHA", "abc", "1", "k"}), "*4\r\n$7\r\nEVALSHA\r\n$3\r\nabc\r\n$1\r\n1\r\n$1\r\nk\r\n");
  EXPECT_EQ(resp_command({"SET", "k", std::string("a\r\n\0b", 5), ""}),
            std::string("*4\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\na\r\n\0b\r\n$0\r\n\r\n", 37));
  std::string out = "x";
  append_resp_command(out, {"PING"});
  EXPECT_EQ(out, "x*1\r\n$4\r\nPING\r\n");
}

}  // namespace
}  // namespace semsim
