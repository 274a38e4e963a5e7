// The clock library preloaded into the embedded redis-server: Redis's wall clock (TIME, key
// expiry, a script's TIME) reads what semsim sets, to the microsecond, and expiry is lazy.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace semsim
