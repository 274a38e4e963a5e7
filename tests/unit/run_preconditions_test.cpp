// The source articles' promise judged on a run's options (what compare marks on report.html), by
// `semsim check`'s own definition (sim/search/scenario_gen.h: broken_preconditions).
#include <gtest/gtest.h>

#include "sim/core/client_spec.h"
#include "sim/search/run_preconditions.h"

namespace semsim {
namespace {

RunOptions options(const std::string& variant, const std::string& timeout, const std::string& hold) {
  RunOptions o;
  o.variant = variant;
  o.timeout = parse_duration(timeout);
  o.hold = Distribution::parse(hold);
  return o;
}

TEST(RunPreconditions, LuaWithAHoldAsLongAsItsTimeoutIsOutsideItsPromise) {
  const RunPromise outside = run_preconditions(options("lua", "50ms", "fixed:50ms"), {});
  EXPECT_TRUE(outside.promised);
  EXPECT_EQ(outside.text, "hold (or refresh period) + pauses + round trip < timeout");
  EXPECT_EQ(outside.broken, std::vector<std::string>{"hold 50ms >= lease 50ms"});
  EXPECT_TRUE(run_preconditions(options("lua", "1s", "fixed:50ms"), {}).broken.empty());
  // A delay counts in the round trip, as in `check`.
  RunOptions delayed = options("lua", "100ms", "fixed:50ms");
  delayed.delay = Distribution::parse("uniform:0ms..30ms");
  EXPECT_EQ(run_preconditions(delayed, {}).broken,
            std::vector<std::string>{"hold 50ms + round trip 60ms = 110ms >= lease 100ms"});
}

TEST(RunPreconditions, ClocksStandAtBothEndsOfTheirSpread) {
  // fair: clients' clocks uniform in [-10, +10] ms: a spread of 20 ms, at a 20 ms timeout.
  RunOptions o = options("fair", "20ms", "fixed:1ms");
  o.skew = Distribution::parse("uniform:-10ms..10ms");
  const RunPromise judged = run_preconditions(o, {});
  ASSERT_FALSE(judged.broken.empty());
  EXPECT_EQ(judged.broken.front(), "clock spread 20ms >= timeout 20ms");
  // One client in clients.csv 30 ms ahead, the others on time.
  RunOptions listed = options("fair", "20ms", "fixed:1ms");
  RunInputs inputs;
  inputs.clients[2].skew = Distribution::parse("fixed:30ms");
  EXPECT_EQ(run_preconditions(listed, inputs).broken.front(), "clock spread 30ms >= timeout 20ms");
}

TEST(RunPreconditions, ADrawWithoutALargestValueIsNamedWhereThePromiseBoundsIt) {
  EXPECT_EQ(run_preconditions(options("lua", "1s", "exp:50ms"), {}).broken,
            std::vector<std::string>{"hold exp:50ms has no largest draw"});
  RunOptions skewed = options("lua", "1s", "fixed:50ms");  // lua's promise does not bound clocks
  skewed.skew = Distribution::parse("normal:0ms,10ms");
  EXPECT_TRUE(run_preconditions(skewed, {}).broken.empty());
}

TEST(RunPreconditions, BasicPromisesNothing) {
  const RunPromise judged = run_preconditions(options("basic", "10s", "fixed:50ms"), {});
  EXPECT_FALSE(judged.promised);
  EXPECT_TRUE(judged.broken.empty());
}

TEST(RunPreconditions, RandomPausesAndFaultsOfRedisAreOutside) {
  RunOptions paused = options("lua", "1s", "fixed:50ms");
  paused.pause_rate = 0.5;
  EXPECT_EQ(run_preconditions(paused, {}).broken,
            std::vector<std::string>{"random pauses (5 per 10 s per client), which no lease can bound"});
  RunOptions restarts = options("ttl-key", "1s", "fixed:50ms");
  restarts.restart_rate = 0.1;
  EXPECT_EQ(run_preconditions(restarts, {}).broken, std::vector<std::string>{"a fault of Redis itself (redis_restart)"});
}

TEST(RunPreconditions, APointOfASweepIsNotedWithEveryReason) {
  VariantPromise p{.variant = "lua", .text = {}, .outside = {}};
  note_point(p, 50, RunPromise{true, "text", {"a", "b"}});
  note_point(p, 10, RunPromise{true, "text", {}});
  EXPECT_TRUE(p.promised);
  EXPECT_EQ(p.outside, (std::map<double, std::string>{{50, "a; b"}}));
}

}  // namespace
}  // namespace semsim
