// The clock library preloaded into the embedded redis-server: Redis's wall clock (TIME, key
// expiry, a script's TIME) reads what semsim sets, to the microsecond, and expiry is lazy.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/redis/embedded_redis.h"
#include "sim/redis/redis_clock.h"
#include "sim/redis/redis_link.h"

namespace semsim {
namespace {

class RedisClockTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NE(redis_.clock(), nullptr) << "the clock library was not found beside the test program";
    link_ = RedisLink::connect(redis_.target());
  }
  Reply call(Command c) { return link_->execute({std::move(c)}).at(0); }

  EmbeddedRedis redis_;
  std::unique_ptr<RedisLink> link_;
};

TEST_F(RedisClockTest, TimeAnswersTheVirtualInstant) {
  redis_.clock()->set(Micros(1'234'567));
  const Reply t = call({"TIME"});
  ASSERT_EQ(t.elements.size(), 2u);
  EXPECT_EQ(t.elements[0].text, std::to_string(kVirtualEpochUs / 1'000'000 + 1));
  EXPECT_EQ(t.elements[1].text, "234567");
}

TEST_F(RedisClockTest, AKeyExpiresExactlyAtItsVirtualMillisecond) {
  redis_.clock()->set(Micros(0));
  EXPECT_EQ(call({"SET", "k", "v", "PX", "100"}).text, "OK");
  redis_.clock()->set(Micros(99'000));
  EXPECT_EQ(call({"GET", "k"}).text, "v");
  EXPECT_EQ(call({"PTTL", "k"}).integer, 1);
  // Redis keeps milliseconds and expires a key once its clock is past the expiry millisecond.
  redis_.clock()->set(Micros(100'999));
  EXPECT_EQ(call({"GET", "k"}).text, "v");
  redis_.clock()->set(Micros(101'000));
  EXPECT_EQ(call({"GET", "k"}).kind, Reply::Kind::nil);
}

TEST_F(RedisClockTest, NothingExpiresWhileVirtualTimeStandsStill) {
  // Active expiry is off: however long the wall clock runs, the key lives until virtual time moves.
  redis_.clock()->set(Micros(0));
  call({"SET", "k", "v", "PX", "1"});
  for (int i = 0; i < 3; ++i) call({"PING"});
  EXPECT_EQ(call({"EXISTS", "k"}).integer, 1);
}

TEST_F(RedisClockTest, AScriptReadsTheVirtualTime) {
  redis_.clock()->set(Micros(5'000'042));
  const Reply t = call({"EVAL", "return redis.call('TIME')", "0"});
  ASSERT_EQ(t.elements.size(), 2u);
  EXPECT_EQ(t.elements[0].text, std::to_string(kVirtualEpochUs / 1'000'000 + 5));
  EXPECT_EQ(t.elements[1].text, "42");
}

TEST_F(RedisClockTest, ReleasedItReadsTheRealClockAgain) {
  redis_.clock()->set(Micros(0));
  redis_.clock()->release();
  const long long now_s = std::stoll(call({"TIME"}).elements.at(0).text);
  EXPECT_GT(now_s, kVirtualEpochUs / 1'000'000 + 1'000) << "not the real clock";  // today is after the epoch
}

// SEMSIM.AT (the library loaded as a module) moves the clock between the commands of one
// pipeline, each prefixed command then running at its own instant, as itself: the prefix is gone
// before Redis looks the command up. The page's next write wins again.
TEST_F(RedisClockTest, InsideAPipelineEachCommandRunsAtTheInstantItsPrefixSets) {
  redis_.clock()->set(Micros(1'000'000));
  const RedisClock& clock = *redis_.clock();
  const std::vector<Reply> replies = link_->execute({{"TIME"},
                                                     clock.at(Micros(2'000'007), {"TIME"}),
                                                     {"TIME"},
                                                     clock.at(Micros(3'500'000), {"SET", "k", "v", "PX", "1"}),
                                                     {"PTTL", "k"}});
  const auto seconds = [](const Reply& time) { return std::stoll(time.elements.at(0).text) - kVirtualEpochUs / 1'000'000; };
  EXPECT_EQ(1, seconds(replies[0]));
  EXPECT_EQ(2, seconds(replies[1]));
  EXPECT_EQ("7", replies[1].elements.at(1).text);
  EXPECT_EQ(2, seconds(replies[2]));  // until the next prefix
  EXPECT_EQ("OK", replies[3].text);
  EXPECT_EQ(1, replies[4].integer);
  EXPECT_EQ(3, seconds(call({"TIME"})));  // until the page is written
  redis_.clock()->set(Micros(3'502'000));  // past the expiry millisecond (3,501)
  EXPECT_EQ(Reply::Kind::nil, call({"GET", "k"}).kind);
  EXPECT_EQ(3, seconds(call({"TIME"})));
  redis_.clock()->set(Micros(9'000'000));
  EXPECT_EQ(9, seconds(call({"TIME"})));
}

// Redis sees the command without its prefix: in a transaction, in its statistics, in what it
// propagates. The clock costs it no command of its own.
TEST_F(RedisClockTest, APrefixedCommandIsTheCommandItselfToRedis) {
  redis_.clock()->set(Micros(0));
  const RedisClock& clock = *redis_.clock();
  call({"CONFIG", "RESETSTAT"});
  const std::vector<Reply> replies =
      link_->execute({clock.at(Micros(1'000'000), {"MULTI"}), {"SET", "k", "v"}, {"TIME"}, {"EXEC"}});
  ASSERT_EQ(replies.size(), 4u);
  EXPECT_EQ("OK", replies[0].text);
  ASSERT_EQ(replies[3].elements.size(), 2u);
  EXPECT_EQ(std::to_string(kVirtualEpochUs / 1'000'000 + 1), replies[3].elements[1].elements.at(0).text);
  const std::string stats = call({"INFO", "commandstats"}).text;
  EXPECT_NE(std::string::npos, stats.find("cmdstat_multi:calls=1")) << stats;
  EXPECT_EQ(std::string::npos, stats.find("semsim")) << stats;
}

// A prefix that cannot be applied runs nothing (not at another instant) and says why.
TEST_F(RedisClockTest, ARefusedPrefixRunsNothingAndSaysWhy) {
  redis_.clock()->set(Micros(0));
  const auto refused = [&](Command c) {
    const Reply r = call(std::move(c));
    EXPECT_TRUE(r.is_error());
    return r.text;
  };
  for (const char* instant : {"soon", "-5", "", "9223372036854775808", "12345678901234567890"})
    EXPECT_NE(std::string::npos, refused({"SEMSIM.AT", instant, "SET", "k", "v"}).find("nanoseconds")) << instant;
  EXPECT_NE(std::string::npos, refused({"SEMSIM.AT", "5"}).find("a command")) << "a command to run";
  redis_.clock()->release();
  const std::string why = refused(redis_.clock()->at(Micros(0), {"SET", "k", "v"}));
  EXPECT_NE(std::string::npos, why.find("not virtual")) << why;
  EXPECT_NE(std::string::npos, why.find("SEMSIM.AT")) << why;  // how a run tells it from the command's own error
  EXPECT_EQ(0, call({"EXISTS", "k"}).integer);
}

}  // namespace
}  // namespace semsim
