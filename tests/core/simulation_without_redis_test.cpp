// The simulator core on its own: a whole run against an in-memory Redis double, linked without
// hiredis, Boost or RapidCheck (this executable links semsim_core alone). The double answers
// INCR, DECR and GET on integer keys; the semaphore is a plain counter, small enough to check by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "algorithms/api/semaphore.h"
#include "sim/core/connection.h"
#include "sim/core/simulation.h"

namespace semsim {
namespace {

class CounterRedis final : public Connection {
 public:
  void submit(std::vector<Command> commands, Done done) override {
    if (!pipeline_open_) ++round_trips_;
    pipeline_open_ = true;
    queue_.push_back({round_trips_, std::move(commands), std::move(done)});
  }
  // Pipelines written and not yet answered in full: more than one when the simulation goes on
  // without waiting for the last.
  void send_queued() override {
    pipeline_open_ = false;
    if (!queue_.empty()) most_in_flight_ = std::max(most_in_flight_, round_trips_ - queue_.front().pipeline + 1);
  }
  // Answers in order, one request at a time, until `answered` holds.
  void flush_until(const std::function<bool()>& answered, std::chrono::milliseconds, std::chrono::milliseconds,
                   const std::function<void()>&) override {
    send_queued();
    while (!queue_.empty() && !(answered && answered())) {
      Request r = std::move(queue_.front());
      queue_.pop_front();
      std::vector<Reply> replies;
      for (const Command& c : r.commands) replies.push_back(run(c));
      r.done(std::move(replies), nullptr);
    }
  }
  bool all_answered() const override { return queue_.empty(); }
  std::uint64_t commands_sent() const override { return sent_; }
  std::uint64_t round_trips() const override { return round_trips_; }
  std::uint64_t most_pipelines_in_flight() const { return most_in_flight_; }
  long long value(const std::string& key) const { return keys_.count(key) ? keys_.at(key) : 0; }

 private:
  Reply run(const Command& c) {
    ++sent_;
    if (c.at(0) == "INCR") return Reply::of_integer(++keys_[c.at(1)]);
    if (c.at(0) == "DECR") return Reply::of_integer(--keys_[c.at(1)]);
    if (c.at(0) == "GET") return Reply::of_string(std::to_string(value(c.at(1))));
    return Reply::of_error("ERR unknown command '" + c.at(0) + "'");
  }
  struct Request {
    std::uint64_t pipeline;
    std::vector<Command> commands;
    Done done;
  };
  std::deque<Request> queue_;
  std::map<std::string, long long> keys_;
  std::uint64_t sent_ = 0, round_trips_ = 0, most_in_flight_ = 0;
  bool pipeline_open_ = false;
};

std::vector<Command> counter(const std::string& verb) { return {Command{verb, "counter"}}; }

// INCR; over the limit: DECR and refuse. Release: DECR. No expiry: a crashed holder keeps its permit.
class CounterSemaphore final : public Semaphore {
 public:
  CounterSemaphore(int limit, int identifiers_per_acquire) : limit_(limit), draws_(identifiers_per_acquire) {}
  Task<std::optional<Grant>> acquire(Client& client) override {
    const std::string id = client.new_identifier();
    for (int i = 1; i < draws_; ++i) client.new_identifier();  // a variant that draws more
    auto replies = co_await client.redis().pipeline(counter("INCR"));
    if (integer_of(replies.at(0)) > limit_) {
      co_await client.redis().pipeline(counter("DECR"));
      co_return std::nullopt;
    }
    co_return Grant{id, 0};
  }
  Task<bool> release(Client& client, std::string) override {
    co_await client.redis().pipeline(counter("DECR"));
    co_return true;
  }
  Task<bool> refresh(Client&, std::string) override { co_return true; }

 private:
  int limit_;
  int draws_;
};

struct SimulationOutcome {
  std::vector<std::string> rows;  // time, client, op, phase
  std::vector<std::string> identifiers;
  RunResult result;
  long long counter_at_end = 0;
  std::uint64_t most_pipelines_in_flight = 0;
};

SimulationOutcome run_once(std::uint64_t seed, int identifiers_per_acquire = 1, bool pipeline = true) {
  RunOptions o;
  o.pipeline = pipeline;
  o.variant = "counter";
  o.clients = 6;
  o.limit = 2;
  o.duration = Micros(2'000'000);
  o.delay = Distribution::parse("uniform:1ms..3ms");
  o.sample_every = Micros(0);
  o.seed = seed;
  CounterRedis redis;
  CounterSemaphore semaphore(o.limit, identifiers_per_acquire);
  SimulationOutcome out;
  Simulation simulation(o, RunInputs{}, semaphore, redis, [&](const Event& e) {
    out.rows.push_back(std::to_string(e.true_us) + " " + std::to_string(e.client) + " " + std::string(to_string(e.op)) +
                       " " + std::string(to_string(e.phase)));
    out.identifiers.push_back(e.identifier);
  });
  out.result = simulation.run();
  out.counter_at_end = redis.value("counter");
  out.most_pipelines_in_flight = redis.most_pipelines_in_flight();
  return out;
}

TEST(SimulationWithoutRedis, ARunAgainstADoubleCompletesAndCountsEveryCommand) {
  const SimulationOutcome out = run_once(1);
  EXPECT_TRUE(out.result.completed) << out.result.stop_reason;
  EXPECT_GT(out.result.commands, 10u);
  EXPECT_GE(out.result.round_trips, 1u);
  EXPECT_EQ(out.result.events, out.rows.size());
  int grants = 0;
  for (const auto& row : out.rows) grants += row.ends_with(" acquire ok");
  EXPECT_GT(grants, 2);
  // At the end at most `limit` permits are out: the counter never exceeds it after a refusal's DECR.
  EXPECT_GE(out.counter_at_end, 0);
  EXPECT_LE(out.counter_at_end, 2);
}

TEST(SimulationWithoutRedis, TheSameSeedGivesTheSameHistoryAndAnotherSeedAnother) {
  EXPECT_EQ(run_once(7).rows, run_once(7).rows);
  EXPECT_EQ(run_once(7).identifiers, run_once(7).identifiers);
  EXPECT_NE(run_once(7).rows, run_once(8).rows);
}

// The lookahead sends the next pipeline while replies to the last are still out, reads each reply
// when its client resumes, and changes nothing that happens.
TEST(SimulationWithoutRedis, PipelinesOverlapAndTheHistoryStaysTheSame) {
  const SimulationOutcome pipelined = run_once(7), serial = run_once(7, 1, false);
  EXPECT_GE(pipelined.most_pipelines_in_flight, 2u);
  EXPECT_EQ(serial.most_pipelines_in_flight, 1u);
  EXPECT_LT(pipelined.result.round_trips, serial.result.round_trips);
  EXPECT_EQ(pipelined.rows, serial.rows);
  EXPECT_EQ(pipelined.counter_at_end, serial.counter_at_end);
}

TEST(SimulationWithoutRedis, DrawingMoreIdentifiersChangesNoWorkload) {
  // Identifiers come from a stream of their own: the same times, clients and outcomes, other ids.
  const SimulationOutcome one = run_once(7, 1), three = run_once(7, 3);
  EXPECT_EQ(one.rows, three.rows);
  EXPECT_NE(one.identifiers, three.identifiers);
}

// Redis's clock as server_jump rows move it, against what it can be set to (the clock library:
// 1970..2262 in nanoseconds; here a small range, so that a few rows reach its edges). A jump that
// takes it outside, at the jump or by the next one (or the run's end), is refused before the run,
// naming the actions file, line and field.
ScriptedAction server_jump(std::int64_t at_us, std::int64_t by_us, int line) {
  ScriptedAction a;
  a.at = kRunStart + Micros(at_us);
  a.kind = ScriptedAction::Kind::server_jump;
  a.arg = Micros(by_us);
  a.line = line;
  return a;
}

TEST(ServerClockRange, AJumpThatLeavesWhatTheClockCanShowIsRefusedNamingItsRow) {
  RunOptions o;
  o.duration = Micros(1'000);
  o.actions_file = "actions.csv";
  const ServerClock::Range range{Micros(-500), Micros(5'000)};
  const auto error = [&](std::vector<ScriptedAction> actions) -> std::string {
    try {
      check_server_clock_range(o, actions, range);
      return "";
    } catch (const InputError& e) {
      return e.what();
    }
  };
  EXPECT_EQ(error({server_jump(100, -400, 2), server_jump(200, 3'000, 3)}), "");
  // Before the range's start: at 100 us the clock reads 100 - 700.
  EXPECT_TRUE(error({server_jump(100, -700, 2)}).starts_with("actions.csv:2: field 'arg': server_jump -700us at 100us"));
  // Past its end, by the end of the run: 4'200 + 1'000 us of true time later reads 5'200.
  EXPECT_TRUE(error({server_jump(0, 1'000, 2), server_jump(10, 3'200, 3)}).starts_with("actions.csv:3:"));
  // Many rows whose sum leaves 64 bits are summed without overflow (and refused).
  std::vector<ScriptedAction> many;
  for (int i = 0; i < 30; ++i) many.push_back(server_jump(i, std::numeric_limits<std::int64_t>::max() / 4, i + 2));
  EXPECT_TRUE(error(many).starts_with("actions.csv:2:"));
  // A jump after the run's end changes nothing the run reads.
  EXPECT_EQ(error({server_jump(2'000, 1'000'000, 2)}), "");
}

// The same check before a run starts, when the run has a Redis clock to move (virtual mode).
class NarrowClock final : public ServerClock {
 public:
  void set(Micros) override {}
  void release() override {}
  Command at(Micros, Command command) const override { return command; }
  Range settable() const override { return {Micros(0), Micros(10'000)}; }
};

TEST(ServerClockRange, ARunRefusesItBeforeAnythingRuns) {
  RunOptions o;
  o.variant = "counter";
  o.clients = 1;
  o.limit = 1;
  o.duration = Micros(100'000);
  o.actions_file = "actions.csv";
  CounterRedis redis;
  CounterSemaphore semaphore(1, 1);
  int events = 0;
  RunInputs inputs;
  inputs.actions.push_back(server_jump(50'000, -60'000, 7));
  Simulation simulation(o, std::move(inputs), semaphore, redis, [&](const Event&) { ++events; });
  NarrowClock clock;
  simulation.set_redis_clock(&clock);
  EXPECT_THROW(simulation.check_inputs(), InputError);
  EXPECT_THROW(simulation.run(), InputError);
  EXPECT_EQ(events, 0);
}

}  // namespace
}  // namespace semsim
