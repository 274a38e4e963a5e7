// The Redis link against a real (embedded) redis-server, and the --redis URL parser.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "sim/core/interrupt.h"
#include "sim/redis/embedded_redis.h"
#include "sim/redis/redis_link.h"
#include "sim/redis/redis_target.h"

namespace semsim {
namespace {

using namespace std::chrono_literals;

// One server for the whole suite: starting one per test would dominate the run time.
class RedisLinkTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = new EmbeddedRedis(); }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override {
    link_ = RedisLink::connect(server_->target());
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    prefix_ = std::string("semsim-test:") + info->name() + ":";
  }
  // Keys under the per-test prefix go away even when the test fails.
  void TearDown() override {
    if (link_) delete_keys_with_prefix(*link_, prefix_);
  }
  std::string key(const std::string& name) const { return prefix_ + name; }

  static EmbeddedRedis* server_;
  std::unique_ptr<RedisLink> link_;
  std::string prefix_;
};

EmbeddedRedis* RedisLinkTest::server_ = nullptr;

TEST_F(RedisLinkTest, ReportsTheServerVersion) {
  std::string version = server_version(*link_);
  EXPECT_FALSE(version.empty());
  EXPECT_NE(version, "unknown");
  EXPECT_NE(version.find('.'), std::string::npos) << version;
}

TEST_F(RedisLinkTest, RepliesOfEveryKindComeBackAsValues) {
  auto replies = link_->execute({{"INCR", key("n")},
                                 {"SET", key("s"), std::string("a\0b", 3)},
                                 {"GET", key("s")},
                                 {"GET", key("missing")},
                                 {"INCR", key("s")},
                                 {"LRANGE", key("missing"), "0", "-1"}});
  ASSERT_EQ(replies.size(), 6u);
  EXPECT_EQ(replies[0].kind, Reply::Kind::integer);
  EXPECT_EQ(replies[0].integer, 1);
  EXPECT_EQ(replies[1].kind, Reply::Kind::status);
  EXPECT_EQ(replies[1].text, "OK");
  EXPECT_EQ(replies[2].kind, Reply::Kind::string);
  EXPECT_EQ(replies[2].text, std::string("a\0b", 3));  // binary-safe
  EXPECT_TRUE(replies[3].is_nil());
  EXPECT_TRUE(replies[4].is_error());
  EXPECT_NE(replies[4].text.find("not an integer"), std::string::npos) << replies[4].text;
  EXPECT_EQ(replies[5].kind, Reply::Kind::array);
  EXPECT_TRUE(replies[5].elements.empty());
}

TEST_F(RedisLinkTest, AnErrorReplyDoesNotBreakTheLink) {
  auto bad = link_->execute({{"NO-SUCH-COMMAND"}});
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_TRUE(bad[0].is_error());
  auto good = link_->execute({{"PING"}});
  EXPECT_EQ(good.at(0).text, "PONG");
}

TEST_F(RedisLinkTest, TransactionComesBackAsAnArrayReply) {
  auto replies = link_->execute({{"MULTI"},
                                 {"ZADD", key("z"), "5", "early"},
                                 {"ZADD", key("z"), "7", "late"},
                                 {"ZRANK", key("z"), "late"},
                                 {"EXEC"}});
  ASSERT_EQ(replies.size(), 5u);
  EXPECT_EQ(replies[0].text, "OK");
  EXPECT_EQ(replies[1].text, "QUEUED");
  const Reply& exec = replies[4];
  ASSERT_EQ(exec.kind, Reply::Kind::array);
  ASSERT_EQ(exec.elements.size(), 3u);
  EXPECT_EQ(exec.elements[0].integer, 1);
  EXPECT_EQ(exec.elements[1].integer, 1);
  EXPECT_EQ(exec.elements[2].kind, Reply::Kind::integer);
  EXPECT_EQ(exec.elements[2].integer, 1);
}

TEST_F(RedisLinkTest, ManySubmitsThenOneFlushAnswerEachInOrder) {
  constexpr int requests = 2000;
  const auto sent_before = link_->commands_sent();
  std::vector<int> order;
  std::vector<long long> lengths;
  for (int i = 0; i < requests; ++i)
    link_->submit({{"RPUSH", key("list"), std::to_string(i)}, {"LINDEX", key("list"), "-1"}},
                  [&, i](std::vector<Reply> replies, std::exception_ptr error) {
                    ASSERT_FALSE(error);
                    ASSERT_EQ(replies.size(), 2u);
                    order.push_back(i);
                    lengths.push_back(replies[0].integer);
                    EXPECT_EQ(replies[1].text, std::to_string(i));
                  });
  EXPECT_EQ(link_->pending(), static_cast<std::size_t>(requests));
  link_->flush();
  EXPECT_EQ(link_->pending(), 0u);
  ASSERT_EQ(order.size(), static_cast<std::size_t>(requests));
  for (int i = 0; i < requests; ++i) {
    EXPECT_EQ(order[i], i);
    EXPECT_EQ(lengths[i], i + 1);
  }
  EXPECT_EQ(link_->commands_sent() - sent_before, 2u * requests);
}

// What the lookahead relies on: a pipeline written with send_queued runs on Redis while the
// caller goes on, and flush_until returns once the reply it needs is in, later ones still out.
TEST_F(RedisLinkTest, SentRequestsRunWithoutAFlushAndFlushUntilStopsAtTheReplyItNeeds) {
  const auto trips_before = link_->round_trips();
  bool first = false, second = false;
  link_->submit({{"INCR", key("n")}}, [&](std::vector<Reply> r, std::exception_ptr) { first = r.at(0).integer == 1; });
  link_->submit({{"BLPOP", key("list"), "5"}}, [&](std::vector<Reply> r, std::exception_ptr) { second = !r.empty(); });
  link_->send_queued();
  auto other = RedisLink::connect(server_->target());
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (other->execute({{"GET", key("n")}}).at(0).text != "1" && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(1ms);
  EXPECT_EQ(other->execute({{"GET", key("n")}}).at(0).text, "1") << "the INCR did not run without a flush";

  link_->flush_until([&] { return first; }, 5s, 5s, {});  // the BLPOP still blocks on Redis
  EXPECT_TRUE(first);
  EXPECT_FALSE(second);
  EXPECT_EQ(link_->pending(), 1u);
  other->execute({{"RPUSH", key("list"), "x"}});
  link_->flush(5s);
  EXPECT_TRUE(second);
  EXPECT_EQ(link_->round_trips() - trips_before, 1u);  // one pipeline: both written together
  link_->execute({{"PING"}});
  EXPECT_EQ(link_->round_trips() - trips_before, 2u);
}

// Several blocked commands in flight (WAITs of several pipelines): `slow` comes again each time
// nothing is answered for `slow_after`, not once per flush.
TEST_F(RedisLinkTest, SlowIsCalledAgainForEachStallOfOneFlush) {
  auto other = RedisLink::connect(server_->target());
  int answered = 0, calls = 0;
  for (const char* list : {"first", "second"})
    link_->submit({{"BLPOP", key(list), "0"}}, [&](std::vector<Reply> r, std::exception_ptr) { answered += !r.empty(); });
  link_->send_queued();
  link_->flush(5s, 50ms, [&] { other->execute({{"RPUSH", key(++calls == 1 ? "first" : "second"), "x"}}); });
  EXPECT_EQ(answered, 2);
  EXPECT_EQ(calls, 2);
}

TEST_F(RedisLinkTest, ADoneMaySubmitTheNextRequest) {
  int answered = 0;
  std::function<void(std::vector<Reply>, std::exception_ptr)> next =
      [&](std::vector<Reply> replies, std::exception_ptr error) {
        ASSERT_FALSE(error);
        ++answered;
        EXPECT_EQ(replies.at(0).integer, answered);
        if (answered < 10) link_->submit({{"INCR", key("chain")}}, next);
      };
  link_->submit({{"INCR", key("chain")}}, next);
  link_->flush();
  EXPECT_EQ(answered, 10);
}

TEST_F(RedisLinkTest, DeleteKeysWithPrefixDeletesOnlyThoseKeysEvenWithGlobCharacters) {
  // Every glob character, so that an unescaped pattern would also match the decoys below.
  const std::string tricky = key("a*b?[c]\\:");
  constexpr int keys = 2500;  // more than one SCAN page and one UNLINK batch
  std::vector<Command> writes;
  for (int i = 0; i < keys; ++i) writes.push_back({"SET", tricky + std::to_string(i), "x"});
  writes.push_back({"SET", tricky, "the prefix itself"});
  const std::vector<std::string> decoys = {
      key("aXXb?[c]\\:1"),  // would match if * were a wildcard
      key("a*bZ[c]\\:1"),   // ... if ? were
      key("a*b?c\\:1"),     // ... if [c] were a class
      key("a*b?[c]:1"),     // ... if \ escaped the ':'
      key("a*b?[c"),        // shorter than the prefix
      "semsim-test-other:" + std::to_string(::getpid()),
  };
  for (const auto& decoy : decoys) writes.push_back({"SET", decoy, "keep"});
  link_->execute(std::move(writes));

  EXPECT_EQ(delete_keys_with_prefix(*link_, tricky), static_cast<std::uint64_t>(keys + 1));

  for (const auto& decoy : decoys)
    EXPECT_EQ(link_->execute({{"GET", decoy}}).at(0).text, "keep") << decoy;
  EXPECT_EQ(link_->execute({{"EXISTS", tricky + "0", tricky}}).at(0).integer, 0);
  link_->execute({{"DEL", decoys.back()}});
}

TEST_F(RedisLinkTest, KeysExistWithPrefixSeesOnlyItsOwnPrefix) {
  EXPECT_FALSE(keys_exist_with_prefix(*link_, key("run:")));
  link_->execute({{"SET", key("runner"), "x"}});  // shares the text, not the prefix
  EXPECT_FALSE(keys_exist_with_prefix(*link_, key("run:")));
  link_->execute({{"SET", key("run:sem"), "x"}});
  EXPECT_TRUE(keys_exist_with_prefix(*link_, key("run:")));
}

TEST_F(RedisLinkTest, SelectsTheTargetDatabase) {
  RedisTarget db3 = server_->target();
  db3.db = 3;
  auto other = RedisLink::connect(db3);
  other->execute({{"SET", key("in-db-3"), "1"}});
  EXPECT_TRUE(link_->execute({{"GET", key("in-db-3")}}).at(0).is_nil());
  EXPECT_EQ(other->execute({{"GET", key("in-db-3")}}).at(0).text, "1");
  delete_keys_with_prefix(*other, prefix_);
}

TEST_F(RedisLinkTest, AuthenticatesAsTheTargetUserAndRefusesAWrongPassword) {
  const std::string user = "semsim-test-user";
  ASSERT_FALSE(link_->execute({{"ACL", "SETUSER", user, "reset", "on", ">right-pass", "~*", "+@all"}})
                   .at(0)
                   .is_error());
  RedisTarget target = server_->target();
  target.user = user;
  target.password = "right-pass";
  auto authed = RedisLink::connect(target);
  EXPECT_EQ(authed->execute({{"ACL", "WHOAMI"}}).at(0).text, user);

  target.password = "wrong-pass";
  try {
    RedisLink::connect(target);
    ADD_FAILURE() << "connected with a wrong password";
  } catch (const LinkError& e) {
    EXPECT_NE(std::string(e.what()).find("AUTH"), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find("wrong-pass"), std::string::npos) << e.what();
  }
  link_->execute({{"ACL", "DELUSER", user}});
}

TEST_F(RedisLinkTest, ATimeoutClosesTheLinkAndFailsWhatWasPending) {
  auto blocked = RedisLink::connect(server_->target());
  std::exception_ptr seen;
  blocked->submit({{"BLPOP", key("never"), "0"}},
                  [&](std::vector<Reply>, std::exception_ptr error) { seen = error; });
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THROW(blocked->flush(100ms), LinkError);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
  EXPECT_TRUE(seen);
  EXPECT_EQ(blocked->pending(), 0u);
  // Later replies could not be matched to requests any more: the link stays closed.
  EXPECT_THROW(blocked->execute({{"PING"}}), LinkError);
}

TEST_F(RedisLinkTest, ADroppedConnectionFailsPendingRequestsWithLinkError) {
  auto victim = RedisLink::connect(server_->target());
  const long long id = victim->execute({{"CLIENT", "ID"}}).at(0).integer;
  EXPECT_EQ(link_->execute({{"CLIENT", "KILL", "ID", std::to_string(id)}}).at(0).integer, 1);
  std::exception_ptr seen;
  victim->submit({{"PING"}}, [&](std::vector<Reply>, std::exception_ptr error) { seen = error; });
  try {
    victim->flush(5s);
    ADD_FAILURE() << "flush succeeded on a killed connection";
  } catch (const LinkError& e) {
    EXPECT_NE(std::string(e.what()).find(server_->target().describe()), std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(seen);
  EXPECT_THROW(victim->execute({{"PING"}}), LinkError);
}

TEST_F(RedisLinkTest, CtrlCStopsABlockedFlushPromptly) {
  // In a child process: the interrupt flag is process-wide and stays set.
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const RedisTarget target = server_->target();
  const std::string never = key("never");
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(ready[0]);
    install_interrupt_handlers();
    int code = 1;
    try {
      auto link = RedisLink::connect(target);
      link->submit({{"BLPOP", never, "0"}}, nullptr);
      if (::write(ready[1], "r", 1) != 1) ::_exit(3);
      const auto start = std::chrono::steady_clock::now();
      try {
        link->flush(20s);
      } catch (const LinkError& e) {
        const bool prompt = std::chrono::steady_clock::now() - start < 5s;
        const bool says_why = std::string(e.what()).find("interrupted") != std::string::npos;
        code = prompt && says_why && interrupt_signal() == SIGINT ? 0 : 2;
      }
    } catch (...) {
      code = 4;
    }
    ::_exit(code);
  }
  ::close(ready[1]);
  char byte = 0;
  ASSERT_EQ(::read(ready[0], &byte, 1), 1);
  ::close(ready[0]);
  // Repeated, in case one lands between the flag check and poll().
  int status = 0;
  pid_t reaped = 0;
  for (int tries = 0; tries < 100 && (reaped = ::waitpid(child, &status, WNOHANG)) == 0; ++tries) {
    ::kill(child, SIGINT);
    std::this_thread::sleep_for(50ms);
  }
  if (reaped == 0) {
    ::kill(child, SIGKILL);
    ::waitpid(child, &status, 0);
    FAIL() << "flush ignored SIGINT";
  }
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "2: wrong error or too slow, 4: setup failed";
}

TEST(RedisLinkConnect, FailsQuicklyOnAUnixPathNobodyListensOn) {
  const std::string missing = "/tmp/semsim-test-no-such-dir-" + std::to_string(::getpid()) + "/redis.sock";
  RedisTarget target;
  target.unix_path = missing;
  const auto start = std::chrono::steady_clock::now();
  try {
    RedisLink::connect(target, 2s);
    ADD_FAILURE() << "connected to " << missing;
  } catch (const LinkError& e) {
    EXPECT_NE(std::string(e.what()).find(missing), std::string::npos) << e.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
}

TEST(RedisLinkConnect, FailsQuicklyOnAClosedUnixSocket) {
  // A socket file whose listener is gone: connect(2) gets ECONNREFUSED.
  const std::string path = "/tmp/semsim-test-closed-" + std::to_string(::getpid()) + ".sock";
  int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::snprintf(address.sun_path, sizeof address.sun_path, "%s", path.c_str());
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ::close(fd);
  RedisTarget target;
  target.unix_path = path;
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THROW(RedisLink::connect(target, 2s), LinkError);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
  std::filesystem::remove(path);
}

TEST(RedisUrl, ParsesAUnixSocketPath) {
  auto t = parse_redis_url("unix:///run/redis/redis.sock", std::nullopt);
  EXPECT_EQ(t.unix_path, "/run/redis/redis.sock");
  EXPECT_TRUE(t.host.empty());
  EXPECT_EQ(t.db, 0);
  EXPECT_EQ(t.describe(), "unix:///run/redis/redis.sock");
}

// 107 bytes is the kernel's limit: a longer path cut short would reach whatever listens at the prefix.
TEST(RedisUrl, AUnixPathPastTheKernelsLimitIsRefusedNamingIt) {
  const std::string fits = "/" + std::string(106, 's');
  EXPECT_EQ(parse_redis_url("unix://" + fits, std::nullopt).unix_path, fits);
  try {
    parse_redis_url("unix://" + fits + "xyz", std::nullopt);
    FAIL() << "a 110-byte unix path was taken";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("110 bytes"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("limit is 107"), std::string::npos) << e.what();
  }
}

TEST(RedisUrl, ParsesHostPortAndDatabase) {
  auto t = parse_redis_url("redis://cache.local:7000/2", std::nullopt);
  EXPECT_EQ(t.host, "cache.local");
  EXPECT_EQ(t.port, 7000);
  EXPECT_EQ(t.db, 2);
  EXPECT_EQ(t.describe(), "redis://cache.local:7000/2");
}

TEST(RedisUrl, DefaultsToPort6379AndDatabase0) {
  auto t = parse_redis_url("redis://localhost", std::nullopt);
  EXPECT_EQ(t.host, "localhost");
  EXPECT_EQ(t.port, 6379);
  EXPECT_EQ(t.db, 0);
  EXPECT_EQ(parse_redis_url("redis://localhost/", std::nullopt).db, 0);
}

TEST(RedisUrl, ParsesAnIpv6Literal) {
  auto t = parse_redis_url("redis://[::1]:6380", std::nullopt);
  EXPECT_EQ(t.host, "::1");
  EXPECT_EQ(t.port, 6380);
  EXPECT_EQ(t.describe(), "redis://[::1]:6380");
}

TEST(RedisUrl, TakesTheUserFromTheUrlAndThePasswordOnlyFromTheArgument) {
  auto t = parse_redis_url("redis://alice@h:1234", std::string("s3cret"));
  EXPECT_EQ(t.user, "alice");
  EXPECT_EQ(t.host, "h");
  ASSERT_TRUE(t.password.has_value());
  EXPECT_EQ(*t.password, "s3cret");
  EXPECT_EQ(t.describe().find("s3cret"), std::string::npos);
  EXPECT_FALSE(parse_redis_url("redis://h", std::string()).password.has_value());
}

TEST(RedisUrl, RefusesAPasswordInTheUrlAndPointsToTheEnvironmentVariable) {
  try {
    parse_redis_url("redis://alice:hunter2@h:6379", std::nullopt);
    ADD_FAILURE() << "accepted a password in the URL";
  } catch (const std::invalid_argument& e) {
    std::string message = e.what();
    EXPECT_NE(message.find("SEMSIM_REDIS_PASSWORD"), std::string::npos) << message;
    EXPECT_EQ(message.find("hunter2"), std::string::npos) << message;
  }
  EXPECT_THROW(parse_redis_url("redis://:hunter2@h", std::nullopt), std::invalid_argument);
  // Even when something after it is wrong too, or the password holds a '/': never repeated.
  for (const char* url : {"redis://u:hunter2@h/x", "redis://u:hun/ter2@h", "redis://u:hunter2@h:notaport"}) {
    try {
      parse_redis_url(url, std::nullopt);
      ADD_FAILURE() << "accepted " << url;
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()).find("ter2"), std::string::npos) << e.what();
    }
  }
}

TEST(RedisUrl, RefusesGarbageWithAClearMessage) {
  for (const char* url : {"", "localhost:6379", "http://h", "redis://", "redis://:6379",
                          "redis://h:", "redis://h:0", "redis://h:65536", "redis://h:12ab",
                          "redis://h/x", "redis://h/-1", "redis://@h", "redis://[::1", "unix://",
                          "unix://relative.sock"}) {
    try {
      parse_redis_url(url, std::nullopt);
      ADD_FAILURE() << "accepted '" << url << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(url), std::string::npos)
          << "message should quote the URL: " << e.what();
    }
  }
}

}  // namespace
}  // namespace semsim
