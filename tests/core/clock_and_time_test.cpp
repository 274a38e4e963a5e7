#include <gtest/gtest.h>

#include "sim/core/client_clock.h"
#include "sim/core/distribution.h"
#include "sim/core/duration.h"
#include "sim/core/network.h"
#include "sim/core/random.h"

namespace semsim {
namespace {

using namespace std::chrono_literals;

TEST(ClientClock, AddsOffsetToTrueTime) {
  ClientClock clock(Micros(-10'000), 0);
  EXPECT_EQ(clock.read(at_us(0)), Micros(-10'000));
  EXPECT_EQ(clock.read(at_us(5'000)), Micros(-5'000));
}

TEST(ClientClock, DriftAccumulatesInPartsPerMillion) {
  ClientClock fast(Micros(0), 100);  // 100 ppm: 100 µs per second
  EXPECT_EQ(fast.read(at_us(1'000'000)), Micros(1'000'100));
  EXPECT_EQ(fast.read(at_us(10'000'000)), Micros(10'001'000));
  ClientClock slow(Micros(0), -250);
  EXPECT_EQ(slow.read(at_us(2'000'000)), Micros(1'999'500));
}

TEST(ClientClock, JumpsApplyFromTheirTrueTimeOn) {
  ClientClock clock(Micros(1'000), 0);
  clock.jump(at_us(5'000), Micros(-3'000));
  EXPECT_EQ(clock.read(at_us(4'999)), Micros(5'999));
  EXPECT_EQ(clock.read(at_us(5'000)), Micros(3'000));
  clock.jump(at_us(8'000), Micros(10'000));
  EXPECT_EQ(clock.read(at_us(9'000)), Micros(17'000));
}

TEST(Duration, ParsesUnitsAndSigns) {
  EXPECT_EQ(parse_duration("10ms"), Micros(10'000));
  EXPECT_EQ(parse_duration("-10ms"), Micros(-10'000));
  EXPECT_EQ(parse_duration("1.5s"), Micros(1'500'000));
  EXPECT_EQ(parse_duration("2m"), Micros(120'000'000));
  EXPECT_EQ(parse_duration("250us"), Micros(250));
  EXPECT_EQ(parse_duration("0"), Micros(0));
  EXPECT_THROW(parse_duration("10"), std::invalid_argument);
  EXPECT_THROW(parse_duration("10 parsecs"), std::invalid_argument);
  EXPECT_THROW(parse_duration(""), std::invalid_argument);
  EXPECT_EQ(format_duration(Micros(10'000)), "10ms");
  EXPECT_EQ(format_duration(Micros(-1'500)), "-1500us");
}

TEST(Distribution, ParsesEveryKindAndRejectsNonsense) {
  EXPECT_EQ(Distribution::parse("fixed:5ms").text(), "fixed:5ms");
  EXPECT_EQ(Distribution::parse("5ms").text(), "fixed:5ms");
  EXPECT_EQ(Distribution::parse("uniform:-10ms..10ms").text(), "uniform:-10ms..10ms");
  EXPECT_EQ(Distribution::parse("normal:5ms,1ms").text(), "normal:5ms,1ms");
  EXPECT_EQ(Distribution::parse("exp:50ms").text(), "exp:50ms");
  EXPECT_EQ(Distribution::parse("uniform:-100..100", Distribution::Unit::number).text(), "uniform:-100..100");
  EXPECT_THROW(Distribution::parse("uniform:10ms..1ms"), std::invalid_argument);
  EXPECT_THROW(Distribution::parse("gauss:1ms"), std::invalid_argument);
  EXPECT_THROW(Distribution::parse("uniform:1ms"), std::invalid_argument);
}

TEST(Distribution, UniformStaysWithinBoundsAndCoversThem) {
  Rng rng(42);
  const auto d = Distribution::parse("uniform:-3us..3us");
  bool seen_lo = false, seen_hi = false;
  for (int i = 0; i < 1000; ++i) {
    const long long v = d.sample(rng);
    ASSERT_GE(v, -3);
    ASSERT_LE(v, 3);
    seen_lo |= v == -3;
    seen_hi |= v == 3;
  }
  EXPECT_TRUE(seen_lo && seen_hi);
}

TEST(Distribution, ExponentialMeanIsClose) {
  Rng rng(7);
  const auto d = Distribution::parse("exp:1000us");
  double sum = 0;
  for (int i = 0; i < 20000; ++i) sum += static_cast<double>(d.sample(rng));
  EXPECT_NEAR(sum / 20000, 1000, 50);
}

TEST(Random, SameSeedSameStreamAndDerivedStreamsDiffer) {
  Rng a(derive_seed(1, client_stream(3))), b(derive_seed(1, client_stream(3))), c(derive_seed(1, client_stream(4)));
  const auto x = a.next();
  EXPECT_EQ(x, b.next());
  EXPECT_NE(x, c.next());
  // A fixed engine (xoshiro256**, after 0.3.0): the first draw of a known seed is the same with
  // every library, and changes only with a release note (docs/contract.md).
  EXPECT_EQ(Rng(5489).next(), 3019114808320050196ULL);
}

TEST(Network, DeliversInOrderEvenWhenALaterMessageDrawsAShorterDelay) {
  ClientNetwork net(LinkModel{Distribution::parse("uniform:0ms..10ms"), Distribution::parse("fixed:0ms"), 0,
                              Distribution::fixed(Micros(0))},
                    1);
  TrueTime last = kRunStart;
  for (int i = 0; i < 200; ++i) {
    const TrueTime arrival = net.outbound(at_us(i * 100));
    ASSERT_GE(arrival, last);
    ASSERT_GE(arrival, at_us(i * 100));
    last = arrival;
  }
}

TEST(Network, SpikesAddTheirDelay) {
  ClientNetwork net(LinkModel{Distribution::parse("fixed:1ms"), Distribution::parse("fixed:1ms"), 1.0,
                              Distribution::parse("fixed:100ms")},
                    1);
  EXPECT_EQ(net.outbound(kRunStart), at_us(101'000));
}

}  // namespace
}  // namespace semsim
