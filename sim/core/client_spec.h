// What a run's inputs say about single clients and about scripted moments: per-client settings
// (clients.csv) and scripted actions (actions.csv), as DESIGN.md defines them. Plain values; the
// readers are in sim/scenario/client_table.h.
#pragma once

#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/core/distribution.h"
#include "sim/core/server_setup.h"
#include "sim/core/true_time.h"

namespace semsim {

// A file that cannot be used as given: exit 2. The message names file, line and field.
struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct ClientSpec {
  std::optional<Distribution> skew, drift_ppm, delay_out, delay_in;
};

// One master of a multi-master run (masters.csv): what is not given takes the run's --server-skew,
// --server-drift and --persistence.
struct MasterSpec {
  std::optional<Micros> skew;
  std::optional<double> drift_ppm;
  std::optional<Persistence> persistence;
};

// The link from one client to one master (links.csv): what is not given takes the client's delays.
struct LinkSpec {
  std::optional<Distribution> delay_out, delay_in;
};

struct ScriptedAction {
  enum class Kind {
    acquire, release, refresh, pause, crash, jump, partition,
    server_jump, redis_restart, failover, disconnect, redis_pause
  };
  // Whether it acts on Redis (client 0) rather than on a client.
  bool on_server() const { return kind >= Kind::server_jump; }
  TrueTime at{};
  int client = 0;
  Kind kind = Kind::acquire;
  std::optional<Micros> arg;  // acquire: hold; pause, redis_pause, partition: length; jump: signed clock jump;
                              // failover: lag; redis_restart: downtime
  int line = 0;               // where it came from, for messages
  // 0-based masters it acts on (the `masters` column): server actions, and a partition's cut
  // links. Empty: master 0, the only one of a one-master run.
  std::vector<int> masters;
};

// What an action's `arg` is.
enum class ActionArg {
  optional,         // may be given (acquire: the hold; redis_restart: the downtime; otherwise unused), never negative
  length,           // a duration that must be given, never negative (pause, redis_pause, partition, failover's lag)
  signed_duration,  // a clock jump that must be given, either way (jump, server_jump)
};

// Every action kind, once: its name in actions.csv and its argument. The actions reader, the
// search's case writer and their messages all read this table.
struct ActionKind {
  ScriptedAction::Kind kind;
  std::string_view name;
  ActionArg arg;
};
std::span<const ActionKind> action_kinds();
// 0-based masters as rows and files number them: {0, 3, 4} -> "1,4,5".
std::string master_list(const std::vector<int>& masters);
const ActionKind& action_kind(ScriptedAction::Kind kind);
std::optional<ScriptedAction::Kind> action_kind_named(std::string_view name);

// A run's per-client table and scripted actions (both empty: every client as the options say).
struct RunInputs {
  std::map<int, ClientSpec> clients;
  std::vector<ScriptedAction> actions;  // sorted by `at`, ties in file order
  std::map<int, MasterSpec> masters;               // by master, 1-based (masters.csv)
  std::map<std::pair<int, int>, LinkSpec> links;   // by (client, master), 1-based (links.csv)

  // Master m's row of masters.csv (1-based), or an empty one: the run's options then.
  MasterSpec master(int m) const {
    const auto row = masters.find(m);
    return row == masters.end() ? MasterSpec{} : row->second;
  }
};

}  // namespace semsim
