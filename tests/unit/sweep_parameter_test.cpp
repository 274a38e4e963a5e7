// What `semsim compare --sweep NAME=V1,V2,...` varies, and how a value becomes run options.
#include <gtest/gtest.h>

#include <stdexcept>

#include "sim/scenario/sweep_parameter.h"

namespace semsim {
namespace {

std::string error_of(const std::string& name, const std::string& values) {
  try {
    parse_sweep(name, values, "--sweep " + name + "=" + values);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(SweepParameter, DurationsAreInMillisecondsOnTheAxis) {
  const Sweep s = parse_sweep("timeout", "100ms,1.5s", "--sweep timeout=100ms,1.5s");
  ASSERT_EQ(s.values.size(), 2u);
  EXPECT_TRUE(s.in_ms());
  EXPECT_DOUBLE_EQ(s.values[1].x, 1500);
  RunOptions o;
  s.apply(s.values[1], o);
  EXPECT_EQ(o.timeout, Micros(1'500'000));
}

TEST(SweepParameter, SkewAndDelayAreSpreadsAroundZero) {
  RunOptions o;
  const Sweep skew = parse_sweep("skew", "0,5ms", "--skews 0,5ms");
  skew.apply(skew.values[1], o);
  EXPECT_EQ(o.skew.text(), "uniform:-5ms..5ms");
  skew.apply(skew.values[0], o);
  EXPECT_EQ(o.skew.text(), "fixed:0ms");
  const Sweep delay = parse_sweep("delay", "2ms", "--delays 2ms");
  delay.apply(delay.values[0], o);
  EXPECT_EQ(o.delay.text(), "uniform:0ms..2ms");
}

TEST(SweepParameter, CountsAreWholeNumbers) {
  const Sweep s = parse_sweep("limit", "1,3", "--sweep limit=1,3");
  EXPECT_FALSE(s.in_ms());
  RunOptions o;
  s.apply(s.values[1], o);
  EXPECT_EQ(o.limit, 3);
  EXPECT_EQ(error_of("clients", "0"), "--sweep clients=0: '0': must be between 1 and 1000000");
}

TEST(SweepParameter, OnlyServerSkewMayBeNegative) {
  RunOptions o;
  const Sweep s = parse_sweep("server-skew", "-5ms", "--sweep server-skew=-5ms");
  s.apply(s.values[0], o);
  EXPECT_EQ(o.server_skew, Micros(-5000));
  EXPECT_EQ(error_of("hold", "-5ms"), "--sweep hold=-5ms: '-5ms': must not be negative");
}

TEST(SweepParameter, AValueGivenTwiceIsRefused) {
  EXPECT_EQ(error_of("skew", "5ms,1ms,5000us"), "--sweep skew=5ms,1ms,5000us: '5000us': the same value as '5ms'");
}

TEST(SweepParameter, UnknownNamesAndEmptyListsSayWhatToWrite) {
  EXPECT_EQ(error_of("think", "1ms"), "--sweep think=1ms: cannot sweep 'think'; one of " + sweep_parameter_names());
  EXPECT_EQ(error_of("hold", ""), "--sweep hold=: no value to sweep");
}

}  // namespace
}  // namespace semsim
