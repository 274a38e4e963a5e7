// What may run on Redis from a script variant or a driver (algorithms/api/command_policy.h): admin,
// dangerous, keyless and other-database commands refused by name; the connection commands
// libraries send allowed; and the key words found as Redis finds them, the commands whose keys
// move with their arguments included.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "algorithms/api/command_policy.h"

namespace semsim {
namespace {

using Words = std::vector<std::string>;
using Keys = std::vector<std::size_t>;

TEST(CommandPolicy, AdminAndDangerousCommandsAreRefusedByName) {
  for (const Words& w : {Words{"REPLICAOF", "k", "6379"}, Words{"config", "get", "requirepass"}, Words{"CONFIG", "SET", "x", "y"},
                         Words{"SHUTDOWN"}, Words{"DEBUG", "SLEEP", "1"}, Words{"MODULE", "LOAD", "/x.so"},
                         Words{"CLIENT", "KILL", "ID", "1"}, Words{"CLIENT", "LIST"}, Words{"ACL", "SETUSER", "x"},
                         Words{"MONITOR"}, Words{"SLAVEOF", "NO", "ONE"}, Words{"BGSAVE"}, Words{"ROLE"}}) {
    const CommandCheck c = check_command(w);
    EXPECT_NE(c.refused.find("is an admin command (@admin)"), std::string::npos) << w[0] << ": " << c.refused;
    EXPECT_TRUE(c.keys.empty());
  }
  for (const Words& w : {Words{"FLUSHALL"}, Words{"flushdb", "async"}, Words{"KEYS", "*"}, Words{"SORT", "k", "STORE", "app:z"},
                         Words{"RESTORE", "k", "0", "x"}, Words{"SWAPDB", "0", "1"}}) {
    const CommandCheck c = check_command(w);
    EXPECT_FALSE(c.refused.empty()) << w[0];
  }
  EXPECT_EQ(check_command({"config", "get", "requirepass"}).refused, "CONFIG GET is an admin command (@admin)");
  EXPECT_EQ(check_command({"FLUSHALL"}).refused, "FLUSHALL is a dangerous command (@dangerous)");
}

TEST(CommandPolicy, CommandsThatLeaveTheRunsDatabaseOrActOnEveryScriptAreRefused) {
  EXPECT_EQ(check_command({"SELECT", "1"}).refused, "SELECT reaches another database or server: a run keeps to its own keys");
  EXPECT_EQ(check_command({"MOVE", "k", "1"}).refused, "MOVE reaches another database or server: a run keeps to its own keys");
  EXPECT_EQ(check_command({"COPY", "k", "k2", "db", "1"}).refused,
            "COPY reaches another database or server: a run keeps to its own keys");
  EXPECT_EQ(check_command({"COPY", "k", "k2", "REPLACE"}).keys, (Keys{1, 2}));
  EXPECT_EQ(check_command({"SCRIPT", "FLUSH"}).refused, "SCRIPT FLUSH acts on every script or function of the server");
  EXPECT_EQ(check_command({"SCRIPT", "KILL"}).refused, "SCRIPT KILL acts on every script or function of the server");
  EXPECT_EQ(check_command({"FUNCTION", "FLUSH"}).refused, "FUNCTION FLUSH acts on every script or function of the server");
  EXPECT_FALSE(check_command({"AUTH", "user", "pass"}).refused.empty());
  EXPECT_FALSE(check_command({"RESET"}).refused.empty());
  EXPECT_FALSE(check_command({"PSUBSCRIBE", "*"}).refused.empty());
  EXPECT_FALSE(check_command({"PUBSUB", "CHANNELS"}).refused.empty());
}

TEST(CommandPolicy, CommandsThatNameNoKeyAreRefusedUnlessLibrariesSendThem) {
  for (const char* name : {"SCAN", "RANDOMKEY", "DBSIZE", "LOLWUT"})
    EXPECT_NE(check_command({name, "0"}).refused.find("names no key"), std::string::npos) << name;
  EXPECT_NE(check_command({"MEMORY", "STATS"}).refused.find("names no key"), std::string::npos);
  for (const Words& w : {Words{"PING"}, Words{"ECHO", "x"}, Words{"HELLO", "3"}, Words{"INFO"}, Words{"info", "server"},
                         Words{"TIME"}, Words{"QUIT"}, Words{"WAIT", "1", "0"}, Words{"COMMAND"}, Words{"COMMAND", "DOCS"},
                         Words{"CLIENT", "SETNAME", "x"}, Words{"CLIENT", "SETINFO", "LIB-NAME", "ioredis"},
                         Words{"CLIENT", "GETNAME"}, Words{"CLIENT", "ID"}, Words{"SCRIPT", "LOAD", "return 1"},
                         Words{"SCRIPT", "EXISTS", "abc"}, Words{"MULTI"}, Words{"EXEC"}, Words{"DISCARD"},
                         Words{"UNWATCH"}, Words{"READONLY"}}) {
    const CommandCheck c = check_command(w);
    EXPECT_EQ(c.refused, "") << w[0];
    EXPECT_TRUE(c.keys.empty()) << w[0];
  }
}

TEST(CommandPolicy, UnknownCommandsAndSubcommandsAreRefused) {
  EXPECT_NE(check_command({"HEXPIRE", "k", "1"}).refused.find("is not a command of Redis 7.0"), std::string::npos);
  EXPECT_NE(check_command({"CLIENT", "NO-TOUCH", "on"}).refused.find("is not a subcommand of Redis 7.0"), std::string::npos);
  EXPECT_NE(check_command({"CONFIG"}).refused.find("without a subcommand"), std::string::npos);
  EXPECT_FALSE(check_command({}).refused.empty());
}

TEST(CommandPolicy, KeysAreTheWordsRedisTakesAsKeys) {
  EXPECT_EQ(check_command({"SET", "k", "v", "NX", "PX", "10"}).keys, (Keys{1}));
  EXPECT_EQ(check_command({"MSET", "a", "1", "b", "2"}).keys, (Keys{1, 3}));
  EXPECT_EQ(check_command({"DEL", "a", "b", "c"}).keys, (Keys{1, 2, 3}));
  EXPECT_EQ(check_command({"RENAME", "a", "b"}).keys, (Keys{1, 2}));
  EXPECT_EQ(check_command({"OBJECT", "ENCODING", "k"}).keys, (Keys{2}));
  EXPECT_EQ(check_command({"WATCH", "a", "b"}).keys, (Keys{1, 2}));
  EXPECT_EQ(check_command({"BLPOP", "a", "b", "0"}).keys, (Keys{1, 2}));
  // Pub/sub channels count as keys.
  EXPECT_EQ(check_command({"PUBLISH", "ch", "hi"}).keys, (Keys{1}));
  EXPECT_EQ(check_command({"SUBSCRIBE", "a", "b"}).keys, (Keys{1, 2}));
  EXPECT_EQ(check_command({"SPUBLISH", "ch", "hi"}).keys, (Keys{1}));
}

TEST(CommandPolicy, KeysThatMoveWithTheArgumentsAreReadAsRedisReadsThem) {
  EXPECT_EQ(check_command({"EVALSHA", "abc", "2", "a", "b", "arg"}).keys, (Keys{3, 4}));
  EXPECT_EQ(check_command({"EVAL", "return 1", "0", "arg"}).keys, (Keys{}));
  EXPECT_EQ(check_command({"FCALL_RO", "f", "1", "a", "arg"}).keys, (Keys{3}));
  EXPECT_EQ(check_command({"ZUNIONSTORE", "d", "2", "a", "b", "WEIGHTS", "1", "0"}).keys, (Keys{1, 3, 4}));
  EXPECT_EQ(check_command({"ZINTERSTORE", "d", "1", "a"}).keys, (Keys{1, 3}));
  EXPECT_EQ(check_command({"ZDIFF", "2", "a", "b", "WITHSCORES"}).keys, (Keys{2, 3}));
  EXPECT_EQ(check_command({"SINTERCARD", "1", "a", "LIMIT", "1"}).keys, (Keys{2}));
  EXPECT_EQ(check_command({"LMPOP", "2", "a", "b", "LEFT"}).keys, (Keys{2, 3}));
  EXPECT_EQ(check_command({"BZMPOP", "0", "1", "a", "MIN"}).keys, (Keys{3}));
  EXPECT_EQ(check_command({"XREAD", "COUNT", "2", "BLOCK", "0", "STREAMS", "a", "b", "0", "$"}).keys, (Keys{6, 7}));
  // A group named STREAMS is no keyword, as Redis reads it.
  EXPECT_EQ(check_command({"XREADGROUP", "GROUP", "streams", "c", "STREAMS", "a", ">"}).keys, (Keys{5}));
  EXPECT_EQ(check_command({"GEORADIUS", "k", "0", "0", "1", "km", "STORE", "d"}).keys, (Keys{1, 7}));
  EXPECT_EQ(check_command({"GEORADIUSBYMEMBER", "k", "m", "1", "km", "storedist", "d"}).keys, (Keys{1, 6}));
  // A count of keys that is none, or more than the words hold: refused, not guessed.
  EXPECT_FALSE(check_command({"EVALSHA", "abc", "x", "a"}).refused.empty());
  EXPECT_FALSE(check_command({"EVALSHA", "abc", "3", "a"}).refused.empty());
  EXPECT_FALSE(check_command({"ZUNION", "-1", "a"}).refused.empty());
  EXPECT_FALSE(check_command({"XREAD", "STREAMS", "a", "b", "0"}).refused.empty());
}

}  // namespace
}  // namespace semsim
