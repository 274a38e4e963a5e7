// The simulator core over several masters, against in-memory doubles (no hiredis): each master
// is a connection of its own; a client sends to every master at once (all_settled), waits for
// each answer or the master timeout, and a partition, a pause and the lookahead pipelining all
// act per master. The variant is a majority lock small enough to check by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "algorithms/api/all_settled.h"
#include "algorithms/api/semaphore.h"
#include "sim/core/connection.h"
#include "marks/coverage_marks.h"
#include "sim/core/simulation.h"

namespace semsim {
namespace {

// SET key value NX (OK or nil), DELIFEQ key value (1 or 0), GET key: one master's keys.
class LockRedis final : public Connection {
 public:
  void submit(std::vector<Command> commands, Done done) override {
    if (!open_) ++round_trips_;
    open_ = true;
    queue_.push_back({std::move(commands), std::move(done)});
  }
  void send_queued() override { open_ = false; }
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

 private:
  Reply run(const Command& c) {
    ++sent_;
    if (c.at(0) == "SET") {
      if (keys_.count(c.at(1))) return Reply::nil();
      keys_[c.at(1)] = c.at(2);
      return Reply::of_status("OK");
    }
    if (c.at(0) == "DELIFEQ") {
      const auto it = keys_.find(c.at(1));
      if (it == keys_.end() || it->second != c.at(2)) return Reply::of_integer(0);
      keys_.erase(it);
      return Reply::of_integer(1);
    }
    if (c.at(0) == "MGET") return Reply{Reply::Kind::array, 0, {}, {keys_.count(c.at(1)) ? Reply::of_string(keys_[c.at(1)]) : Reply::nil()}};
    return Reply::of_error("ERR unknown command '" + c.at(0) + "'");
  }
  struct Request {
    std::vector<Command> commands;
    Done done;
  };
  std::deque<Request> queue_;
  std::map<std::string, std::string> keys_;
  std::uint64_t sent_ = 0, round_trips_ = 0;
  bool open_ = false;
};

// Held where a majority said OK; refused otherwise, and released everywhere. The outcome row says
// votes=K/N and which masters answered nothing.
// With `decide_at_quorum`, it goes on as soon as a majority said OK (npm redlock 5's way).
class MajorityLock final : public Semaphore {
 public:
  explicit MajorityLock(bool decide_at_quorum = false) : decide_at_quorum_(decide_at_quorum) {}
  Task<std::optional<Grant>> acquire(Client& client) override {
    std::string id = client.new_identifier();
    std::vector<Task<Reply>> sets;
    for (int m = 0; m < client.masters(); ++m) sets.push_back(client.redis(m).call(Command{"SET", "lock", id, "NX"}));
    Enough<Reply> enough;
    const int q = quorum(client.masters());
    if (decide_at_quorum_)
      enough = [q](const std::vector<Settled<Reply>>& so_far) {
        return std::count_if(so_far.begin(), so_far.end(), [](const auto& v) { return v.ok() && v.value->text == "OK"; }) >= q;
      };
    const std::vector<Settled<Reply>> votes = co_await all_settled(std::move(sets), enough);
    int yes = 0;
    std::string silent;
    for (int m = 0; m < client.masters(); ++m) {
      const Settled<Reply>& v = votes[static_cast<std::size_t>(m)];
      if (v.ok() && v.value->text == "OK") ++yes;
      if (v.settled && !v.ok()) {
        try {
          std::rethrow_exception(v.error);
        } catch (const NoAnswer&) {
          silent += (silent.empty() ? "" : ",") + std::to_string(m + 1);
        }
      }
    }
    client.note("votes=" + std::to_string(yes) + "/" + std::to_string(client.masters()) +
                (silent.empty() ? "" : " no_answer=" + silent));
    if (yes >= quorum(client.masters())) co_return Grant{id, 0};
    co_await release(client, id);
    co_return std::nullopt;
  }
  Task<bool> release(Client& client, std::string identifier) override {
    std::vector<Task<Reply>> dels;
    for (int m = 0; m < client.masters(); ++m) dels.push_back(client.redis(m).call(Command{"DELIFEQ", "lock", identifier}));
    co_await all_settled(std::move(dels));
    co_return true;
  }
  Task<bool> refresh(Client&, std::string) override { co_return true; }
  std::vector<std::string> holder_keys() const override { return {"lock"}; }

 private:
  bool decide_at_quorum_;
};

struct Outcome {
  std::vector<std::string> rows;  // true_us client op phase detail
  RunResult result;
};

std::string row_of(const Event& e) {
  return std::to_string(e.true_us) + " " + std::to_string(e.client) + " " + std::string(to_string(e.op)) + " " +
         std::string(to_string(e.phase)) + (e.detail.empty() ? "" : " " + e.detail);
}

Outcome run_masters(int masters, std::vector<ScriptedAction> actions, std::uint64_t seed = 1, bool pipeline = true,
                    int clients = 3, bool decide_at_quorum = false) {
  RunOptions o;
  o.variant = "majority";
  o.clients = clients;
  o.limit = 1;
  o.masters = masters;
  o.duration = Micros(1'000'000);
  o.delay = Distribution::parse("uniform:1ms..3ms");
  o.sample_every = Micros(100'000);
  o.pipeline = pipeline;
  o.seed = seed;
  std::vector<std::unique_ptr<LockRedis>> redis;
  std::vector<MasterPorts> ports;
  for (int m = 0; m < masters; ++m) {
    redis.push_back(std::make_unique<LockRedis>());
    ports.push_back({redis.back().get(), nullptr, nullptr});
  }
  MajorityLock lock(decide_at_quorum);
  Outcome out;
  RunInputs inputs;
  inputs.actions = std::move(actions);
  Simulation simulation(o, std::move(inputs), lock, *redis.front(), [&](const Event& e) { out.rows.push_back(row_of(e)); });
  simulation.set_masters(std::move(ports), false);
  out.result = simulation.run();
  return out;
}

ScriptedAction action(std::int64_t at, int client, ScriptedAction::Kind kind, std::optional<Micros> arg,
                      std::vector<int> masters = {}) {
  return {at_us(at), client, kind, arg, 0, std::move(masters)};
}

std::vector<std::string> rows_with(const Outcome& out, const std::string& part) {
  std::vector<std::string> found;
  for (const auto& r : out.rows)
    if (r.find(part) != std::string::npos) found.push_back(r);
  return found;
}

TEST(MastersWithoutRedis, ThreeMastersRunToTheEndAndTheSameSeedGivesTheSameHistory) {
  const Outcome a = run_masters(3, {}), b = run_masters(3, {});
  ASSERT_TRUE(a.result.completed) << a.result.stop_reason;
  EXPECT_EQ(a.rows, b.rows);
  EXPECT_NE(a.rows, run_masters(3, {}, 2).rows);
  EXPECT_FALSE(rows_with(a, "acquire ok").empty());
  EXPECT_TRUE(a.rows.front().ends_with(" masters=3 quorum=2")) << a.rows.front();
  for (const auto& r : rows_with(a, "acquire ok")) EXPECT_NE(r.find("votes="), std::string::npos) << r;
}

TEST(MastersWithoutRedis, PipelinedOrNotTheHistoryIsTheSame) {
  EXPECT_EQ(run_masters(3, {}, 5).rows, run_masters(3, {}, 5, false).rows);
  EXPECT_EQ(run_masters(5, {}, 6).rows, run_masters(5, {}, 6, false).rows);
}

// Client 1 cannot reach masters 2 and 3: its requests are lost, each a failed vote once the master
// timeout (50 ms) has passed; master 1 alone is no majority. The refusal then releases on every
// master, and masters 2 and 3 (still cut) time out again: the outcome row comes at 100 ms.
TEST(MastersWithoutRedis, APartitionedLinkIsAFailedVoteAtTheMasterTimeout) {
  using K = ScriptedAction::Kind;
  const MarkWatch timed_out(Mark::master_no_answer);
  const Outcome out = run_masters(3, {action(0, 1, K::partition, Micros(100'000), {1, 2}),
                                      action(0, 1, K::acquire, Micros(10'000))}, 1, true, 1);
  ASSERT_TRUE(out.result.completed) << out.result.stop_reason;
  const auto partition = rows_with(out, "1 partition ok");
  ASSERT_EQ(partition.size(), 1u);
  EXPECT_NE(partition[0].find("masters=2,3 length_us=100000"), std::string::npos) << partition[0];
  const auto refused = rows_with(out, "1 acquire fail");
  ASSERT_FALSE(refused.empty());
  EXPECT_EQ(refused[0], "100000 1 acquire fail votes=1/3 no_answer=2,3");
  EXPECT_EQ(rows_with(out, "1 heal ok").at(0), "100000 1 heal ok masters=2,3");
  EXPECT_TRUE(timed_out.hit());
}

// Client 1's replies reach it at 2 ms, while it is paused (0.5 ms to 300 ms): they were in within
// the master timeout, so they count, and the client reads them when it resumes.
TEST(MastersWithoutRedis, RepliesInWithinTheTimeoutCountWhenAPausedClientResumes) {
  using K = ScriptedAction::Kind;
  const Outcome out = run_masters(3, {action(0, 1, K::acquire, Micros(10'000)), action(500, 1, K::pause, Micros(299'500))},
                                  1, true, 1);
  const auto granted = rows_with(out, "1 acquire ok");
  ASSERT_EQ(granted.size(), 1u);
  EXPECT_EQ(granted[0].substr(0, granted[0].find(' ')), "300000");
  EXPECT_NE(granted[0].find("votes=3/3"), std::string::npos) << granted[0];
}

// Deciding at a quorum: client 1 cannot reach master 3, and goes on once masters 1 and 2 said OK
// (by 6 ms), without waiting for master 3's timeout; its request to master 3 is abandoned.
TEST(MastersWithoutRedis, ALockThatDecidesAtAQuorumAbandonsTheRequestsStillOut) {
  using K = ScriptedAction::Kind;
  const MarkWatch abandoned(Mark::request_abandoned);
  const Outcome out = run_masters(3, {action(0, 1, K::partition, Micros(100'000), {2}),
                                      action(0, 1, K::acquire, Micros(10'000))}, 1, true, 1, true);
  const auto granted = rows_with(out, "1 acquire ok");
  ASSERT_EQ(granted.size(), 1u);
  EXPECT_LE(std::stoll(granted[0].substr(0, granted[0].find(' '))), 6000) << granted[0];
  EXPECT_NE(granted[0].find("votes=2/3"), std::string::npos) << granted[0];
  EXPECT_TRUE(abandoned.hit());
  EXPECT_TRUE(out.result.completed) << out.result.stop_reason;
}

}  // namespace
}  // namespace semsim
