// The generator's own promises, without Redis: every case it makes for a variant lies inside that
// variant's preconditions, clamping is idempotent (so shrinking stays inside), and the lease
// honesty check reads a history the way its comment says.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <filesystem>
#include <fstream>

#include "reports/history/history_writer.h"
#include "sim/search/property_search.h"
#include "sim/search/scenario_gen.h"

namespace semsim {
namespace {

namespace fs = std::filesystem;

GenSettings settings_for(const std::string& variant) {
  GenSettings g;
  g.pre = preconditions_for(variant);
  return g;
}

RC_GTEST_PROP(ScenarioGen, CasesMeetTheirVariantsPreconditions, ()) {
  const std::string variant = *rc::gen::element<std::string>("basic", "fair", "fair-locked", "lua", "ttl-key");
  const GenSettings g = settings_for(variant);
  const GenCase c = *gen_case(g);
  std::string why;
  RC_ASSERT(meets(c, g, &why));
  RC_ASSERT(normalize(c, g) == c);
  RC_ASSERT(int(c.per_client.size()) == c.clients);
  RC_ASSERT(c.limit >= 1);
  RC_ASSERT(c.clients == 1 || c.limit < c.clients);
  for (const auto& a : c.actions) RC_ASSERT(a.client >= 1 && a.client <= c.clients && a.at_us < c.duration_us);
}

RC_GTEST_PROP(ScenarioGen, FairCasesHaveNoDelayNorPauses, ()) {
  const GenCase c = *gen_case(settings_for("fair"));
  for (const auto& k : c.per_client) RC_ASSERT(k.delay_out.hi_us == 0 && k.delay_in.hi_us == 0);
  RC_ASSERT(c.spike_percent == 0 && c.pause_rate_per_10s == 0);
  for (const auto& a : c.actions) RC_ASSERT(a.kind != ScriptedAction::Kind::pause);
}

// A case made inside a variant's preconditions keeps them; one with network delay and a Redis
// fault, searched outside them, is told apart by each condition it breaks.
RC_GTEST_PROP(ScenarioGen, APreconditionVerdictNamesEachConditionBroken, ()) {
  GenCase c = *gen_case(settings_for("fair"));
  RC_ASSERT(broken_preconditions(c, preconditions_for("fair"), 10'000'000).empty());
  RC_ASSERT(preconditions_verdict(c, "fair", 10'000'000).starts_with("kept ("));
  c.per_client.front().delay_out = Span{1000, 3000};
  c.actions.push_back({0, 0, ScriptedAction::Kind::redis_restart, 0});
  const std::vector<std::string> broken = broken_preconditions(c, preconditions_for("fair"), 10'000'000);
  // (The delay may also push a case near its lease budget over it: that one is named too.)
  RC_ASSERT(!broken.empty() && broken.front() == "network delay: a round trip of up to " +
                                                     format_duration(Micros(3000 + c.per_client.front().delay_in.hi_us)) +
                                                     " where the promise allows none");
  RC_ASSERT(broken.back() == "a fault of Redis itself (redis_restart)");
  const std::string verdict = preconditions_verdict(c, "fair", 10'000'000);
  RC_ASSERT(verdict.starts_with("broken: " + broken.front() + "; "));
  RC_ASSERT(verdict.find("(outside the source articles' promise: ") != std::string::npos);
}

// basic is promised nothing: a case is never said to keep a promise it does not have.
TEST(ScenarioGen, AVariantPromisedNothingIsNeverSaidSafe) {
  const std::string verdict = preconditions_verdict(GenCase{}, "basic", 10'000'000);
  EXPECT_EQ(verdict, "none promised (" + preconditions_for("basic").text +
                         "): the source articles do not claim this variant is safe");
  EXPECT_EQ(verdict.find("promise safety"), std::string::npos);
}

// A library that takes whole seconds (timeout.step = 1s) is searched in whole seconds: every
// timeout a whole number of steps, the workload on that scale, the preconditions still kept.
RC_GTEST_PROP(ScenarioGen, ATimeoutStepScalesTheCaseAndKeepsItsTimeoutsWhole, ()) {
  GenSettings g = settings_for("lua");
  g.time_step_us = *rc::gen::element<std::int64_t>(1'000'000, 250'000, 5'000);
  const GenCase c = *gen_case(g);
  RC_ASSERT(c.timeout_us % g.time_step_us == 0 && c.timeout_us >= g.time_step_us);
  RC_ASSERT(meets(c, g));
  RC_ASSERT(normalize(c, g) == c);
  const std::int64_t scale = std::max<std::int64_t>(1, g.time_step_us / 20'000);  // 50, 12 or 1
  RC_ASSERT(c.duration_us >= 200'000 * scale);  // drawn from 200 ms up
  for (const auto& a : c.actions) RC_ASSERT(a.at_us < c.duration_us);
}

// Outside the lease promise the verdict names the broken rule with the case's figures.
TEST(ScenarioGenVerdict, ABrokenLeaseNamesItsFigures) {
  GenCase c;
  c.clients = 1;
  c.timeout_us = 20'000;
  c.hold = Span{1'000, 23'000};
  c.per_client.resize(1);
  EXPECT_EQ(broken_preconditions(c, lease_promise(), 10'000'000), std::vector<std::string>{"hold 23ms >= lease 20ms"});
  c.hold = Span{1'000, 10'000};
  c.per_client[0].delay_out = Span{0, 1'000};
  c.per_client[0].delay_in = Span{0, 3'000};
  c.actions.push_back({5'000, 1, ScriptedAction::Kind::pause, 15'000});
  EXPECT_EQ(preconditions_verdict(c, "lua", 10'000'000),
            "broken: hold 10ms + pauses 15ms + round trip 4ms = 29ms >= lease 20ms (outside the source articles' promise: " +
                lease_promise().text + ")");
  c.refresh_every_us = 25'000;
  c.actions.clear();
  EXPECT_EQ(broken_preconditions(c, lease_promise(), 10'000'000),
            std::vector<std::string>{"refresh period 25ms + round trip 4ms = 29ms >= lease 20ms"});
}

// A case written out reads back through the simulator's own CSV readers.
RC_GTEST_PROP(ScenarioGen, MaterializedFilesReadBack, ()) {
  const GenCase c = *gen_case(GenSettings{});
  const std::string dir = (fs::path(::testing::TempDir()) / "semsim-gen-readback").string();
  const RunOptions o = materialize(c, "basic", 10'000'000, dir);
  const auto table = read_clients_file(o.clients_file, c.clients);
  RC_ASSERT(int(table.size()) == c.clients);
  if (!c.actions.empty()) RC_ASSERT(read_actions_file(o.actions_file, c.clients).size() == c.actions.size());
  else RC_ASSERT(o.actions_file.empty());
}

// The search runs a case from memory and replays a counterexample from its files: both must be
// the same run, value for value.
RC_GTEST_PROP(ScenarioGen, ACaseInMemoryIsTheCaseItsFilesSay, ()) {
  GenSettings g = settings_for("lua");
  g.server_faults = *rc::gen::arbitrary<bool>();
  const GenCase c = *gen_case(g);
  const std::string dir = (fs::path(::testing::TempDir()) / "semsim-gen-in-memory").string();
  const CaseRun in_memory = case_run(c, "lua", 10'000'000, dir);
  const RunOptions from_files = materialize(c, "lua", 10'000'000, dir);
  const RunInputs read = read_run_inputs(from_files);

  RC_ASSERT(in_memory.inputs.clients.size() == read.clients.size());
  const auto text = [](const std::optional<Distribution>& d) { return d ? d->text() : std::string("-"); };
  for (const auto& [id, spec] : read.clients) {
    const ClientSpec& mine = in_memory.inputs.clients.at(id);
    RC_ASSERT(text(mine.skew) == text(spec.skew));
    RC_ASSERT(text(mine.drift_ppm) == text(spec.drift_ppm));
    RC_ASSERT(text(mine.delay_out) == text(spec.delay_out));
    RC_ASSERT(text(mine.delay_in) == text(spec.delay_in));
  }
  RC_ASSERT(in_memory.inputs.actions.size() == read.actions.size());
  for (std::size_t i = 0; i < read.actions.size(); ++i) {
    const ScriptedAction &mine = in_memory.inputs.actions[i], &theirs = read.actions[i];
    RC_ASSERT(mine.at == theirs.at && mine.client == theirs.client && mine.kind == theirs.kind &&
              mine.arg == theirs.arg && mine.line == theirs.line);
  }
  RC_ASSERT(in_memory.options.clients == from_files.clients && in_memory.options.seed == from_files.seed &&
            in_memory.options.server.replicas == from_files.server.replicas);
}

// With --server-faults, cases carry Redis faults on client 0 that read back as such, and one
// replica per failover to promote; without it, none.
RC_GTEST_PROP(ScenarioGen, ServerFaultsComeOnlyWhenAskedWithAReplicaPerFailover, ()) {
  GenSettings g = settings_for("lua");
  g.server_faults = *rc::gen::arbitrary<bool>();
  const GenCase c = *gen_case(g);
  int failovers = 0, faults = 0;
  for (const auto& a : c.actions) {
    const ScriptedAction action{at_us(a.at_us), a.client, a.kind, {}, 0, {}};
    if (!action.on_server()) continue;
    RC_ASSERT(a.client == 0);
    ++faults;
    failovers += a.kind == ScriptedAction::Kind::failover;
  }
  RC_ASSERT(g.server_faults || (faults == 0 && !c.aof_always));
  const std::string dir = (fs::path(::testing::TempDir()) / "semsim-gen-server-faults").string();
  const RunOptions o = materialize(c, "lua", 10'000'000, dir);
  RC_ASSERT(o.server.replicas == failovers);
  if (!c.actions.empty()) {
    int read_faults = 0;
    for (const auto& a : read_actions_file(o.actions_file, c.clients)) read_faults += a.on_server();
    RC_ASSERT(read_faults == faults);
  }
}

class LeaseHonesty : public ::testing::Test {
 protected:
  // Rows: true_us, client, op, phase, identifier.
  std::int64_t broken(const std::vector<std::tuple<std::int64_t, int, Op, Phase, std::string>>& rows) {
    // One file per test: ctest runs tests of this fixture in parallel processes.
    const std::string path = (fs::path(::testing::TempDir()) /
                              ("semsim-lease-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + ".csv"))
                                 .string();
    {
      HistoryWriter w(path);
      std::uint64_t seq = 0;
      for (const auto& [t, client, op, phase, id] : rows) w.write(Event{seq++, t, client, op, phase, t, id, ""});
      w.close();
    }
    return count_broken_promises(path, 1'000'000);
  }
};

TEST_F(LeaseHonesty, ReleaseFailingInsideTheLeaseIsBroken) {
  EXPECT_EQ(1, broken({{0, 1, Op::acquire, Phase::invoke, ""},
                       {100, 1, Op::acquire, Phase::ok, "a"},
                       {500'000, 1, Op::release, Phase::invoke, "a"},
                       {500'100, 1, Op::release, Phase::fail, "a"}}));
}

TEST_F(LeaseHonesty, ReleaseFailingAfterTheLeaseIsHonest) {
  EXPECT_EQ(0, broken({{0, 1, Op::acquire, Phase::invoke, ""},
                       {100, 1, Op::acquire, Phase::ok, "a"},
                       {1'500'000, 1, Op::release, Phase::invoke, "a"},
                       {1'500'100, 1, Op::release, Phase::fail, "a"}}));
}

TEST_F(LeaseHonesty, RefreshExtendsThePromise) {
  EXPECT_EQ(1, broken({{0, 1, Op::acquire, Phase::invoke, ""},
                       {100, 1, Op::acquire, Phase::ok, "a"},
                       {900'000, 1, Op::refresh, Phase::invoke, "a"},
                       {900'100, 1, Op::refresh, Phase::ok, "a"},
                       {1'500'000, 1, Op::release, Phase::invoke, "a"},
                       {1'500'100, 1, Op::release, Phase::fail, "a"}}));
}

TEST_F(LeaseHonesty, RefreshLosingToTheOwnReleaseIsHonest) {
  EXPECT_EQ(0, broken({{0, 1, Op::acquire, Phase::invoke, ""},
                       {100, 1, Op::acquire, Phase::ok, "a"},
                       {200, 1, Op::refresh, Phase::invoke, "a"},
                       {300, 1, Op::release, Phase::invoke, "a"},
                       {400, 1, Op::release, Phase::ok, "a"},
                       {500, 1, Op::refresh, Phase::fail, "a"}}));
}

}  // namespace
}  // namespace semsim
