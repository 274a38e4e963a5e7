#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <functional>
#include <string>

#include "sim/scenario/client_table.h"

namespace semsim {
namespace {

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(ClientsFile, ReadsOptionalColumnsPerClient) {
  const auto path = write_temp("clients_ok.csv", "client,skew,delay_in\n2,-10ms,fixed:5ms\n1,,\n");
  const auto table = read_clients_file(path, 3);
  ASSERT_EQ(table.size(), 2u);
  EXPECT_EQ(table.at(2).skew->text(), "fixed:-10ms");
  EXPECT_EQ(table.at(2).delay_in->text(), "fixed:5ms");
  EXPECT_FALSE(table.at(2).drift_ppm);
  EXPECT_FALSE(table.at(1).skew);
}

TEST(ClientsFile, ErrorsNameFileLineAndField) {
  const auto bad_skew = write_temp("clients_bad.csv", "client,skew\n1,0ms\n2,ten\n");
  const std::string e = error_of([&] { read_clients_file(bad_skew, 3); });
  EXPECT_NE(e.find(bad_skew + ":3"), std::string::npos) << e;
  EXPECT_NE(e.find("skew"), std::string::npos) << e;
  const auto no_such = write_temp("clients_bad2.csv", "client,skew\n7,0ms\n");
  EXPECT_NE(error_of([&] { read_clients_file(no_such, 3); }).find(":2: field 'client'"), std::string::npos);
  EXPECT_NE(error_of([&] { read_clients_file("/nonexistent/c.csv", 3); }).find("cannot open"), std::string::npos);
}

TEST(ActionsFile, SortsByTimeAndKeepsFileOrderForTies) {
  const auto path = write_temp("actions_ok.csv", "at,client,action,arg\n5ms,2,acquire,1s\n0ms,1,acquire,\n5ms,1,pause,2s\n");
  const auto actions = read_actions_file(path, 2);
  ASSERT_EQ(actions.size(), 3u);
  EXPECT_EQ(actions[0].client, 1);
  EXPECT_FALSE(actions[0].arg);
  EXPECT_EQ(actions[1].kind, ScriptedAction::Kind::acquire);
  EXPECT_EQ(actions[1].arg, Micros(1'000'000));
  EXPECT_EQ(actions[2].kind, ScriptedAction::Kind::pause);
}

TEST(ActionsFile, ErrorsNameFileLineAndField) {
  const auto unknown = write_temp("actions_bad.csv", "at,client,action,arg\n0ms,1,acquire,\n1ms,1,explode,\n");
  const std::string e = error_of([&] { read_actions_file(unknown, 2); });
  EXPECT_NE(e.find(unknown + ":3: field 'action'"), std::string::npos) << e;
  const auto no_arg = write_temp("actions_bad2.csv", "at,client,action,arg\n0ms,1,pause,\n");
  EXPECT_NE(error_of([&] { read_actions_file(no_arg, 2); }).find(":2: field 'arg'"), std::string::npos);
  const auto bad_at = write_temp("actions_bad3.csv", "at,client,action,arg\nsoon,1,crash,\n");
  EXPECT_NE(error_of([&] { read_actions_file(bad_at, 2); }).find(":2: field 'at'"), std::string::npos);
}

TEST(ClientsFile, AnUnknownColumnIsAnErrorNotIgnored) {
  // `skwe` misspelt: ignoring it would run every client with the default skew.
  const auto path = write_temp("clients_typo.csv", "client,skwe\n1,-10ms\n");
  EXPECT_EQ(error_of([&] { read_clients_file(path, 2); }), path + ":1: field 'skwe': unknown column");
  const auto actions = write_temp("actions_typo.csv", "at,client,action,arg,extra\n");
  EXPECT_EQ(error_of([&] { read_actions_file(actions, 2); }), actions + ":1: field 'extra': unknown column");
}

TEST(ClientsFile, ANegativeDelayIsAnError) {
  const auto path = write_temp("clients_negative.csv", "client,delay_out\n1,fixed:-5ms\n");
  EXPECT_EQ(error_of([&] { read_clients_file(path, 2); }), path + ":2: field 'delay_out': a delay must not be negative");
}

}  // namespace
}  // namespace semsim

namespace semsim {
namespace {

TEST(ActionsFile, ServerFaultsAreActionsOfClientZero) {
  const auto path = write_temp("server_faults.csv",
                               "at,client,action,arg\n0ms,0,redis_restart,\n1ms,0,failover,250ms\n"
                               "2ms,0,disconnect,\n3ms,0,redis_pause,500ms\n");
  const auto actions = read_actions_file(path, 2);
  ASSERT_EQ(actions.size(), 4u);
  using K = ScriptedAction::Kind;
  EXPECT_EQ(actions[0].kind, K::redis_restart);
  EXPECT_EQ(actions[1].kind, K::failover);
  EXPECT_EQ(actions[1].arg, Micros(250'000));
  EXPECT_EQ(actions[2].kind, K::disconnect);
  EXPECT_EQ(actions[3].kind, K::redis_pause);
  EXPECT_EQ(actions[3].arg, Micros(500'000));
  for (const auto& a : actions) {
    EXPECT_EQ(a.client, 0);
    EXPECT_TRUE(a.on_server());
  }
}

TEST(ActionsFile, ServerFaultErrorsNameFileLineAndField) {
  const auto on_a_client = write_temp("restart_client.csv", "at,client,action,arg\n0ms,1,redis_restart,\n");
  EXPECT_NE(error_of([&] { read_actions_file(on_a_client, 2); }).find("restart_client.csv:2: field 'client'"),
            std::string::npos);
  const auto no_lag = write_temp("failover_nolag.csv", "at,client,action,arg\n0ms,0,failover,\n");
  EXPECT_NE(error_of([&] { read_actions_file(no_lag, 2); }).find("failover_nolag.csv:2: field 'arg': failover needs a duration"),
            std::string::npos);
  const auto negative = write_temp("pause_negative.csv", "at,client,action,arg\n0ms,0,redis_pause,-1s\n");
  EXPECT_NE(error_of([&] { read_actions_file(negative, 2); }).find("pause_negative.csv:2: field 'arg'"), std::string::npos);
  const auto unknown = write_temp("unknown_fault.csv", "at,client,action,arg\n0ms,0,redis_reboot,\n");
  EXPECT_NE(error_of([&] { read_actions_file(unknown, 2); }).find("is not one of acquire, release, refresh, pause, crash, "
                                                                  "jump, partition, server_jump, redis_restart, failover, "
                                                                  "disconnect, "
                                                                  "redis_pause"),
            std::string::npos);
}

}  // namespace
}  // namespace semsim
