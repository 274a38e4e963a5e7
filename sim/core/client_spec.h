// What a run's inputs say about single clients and about scripted moments: per-client settings
// (clients.csv) and scripted actions (actions.csv), as DESIGN.md defines them. Plain values; the
// readers are in sim/scenario/client_table.h.
#pragma once

#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "sim/core/distribution.h"
#include "sim/core/true_time.h"

namespace semsim {

// A file that cannot be used as given: exit 2. The message names file, line and field.
struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct ClientSpec {
  std::optional<Distribution> skew, drift_ppm, delay_out, delay_in;
};

struct ScriptedAction {
  enum class Kind { acquire, release, refresh, pause, crash, jump, server_jump, redis_restart, failover, disconnect, redis_pause };
  // Whether it acts on Redis (client 0) rather than on a client.
  bool on_server() const { return kind >= Kind::server_jump; }
  TrueTime at{};
  int client = 0;
  Kind kind = Kind::acquire;
  std::optional<Micros> arg;  // acquire: hold; pause, redis_pause: length; jump: signed clock jump; failover: lag
  int line = 0;               // where it came from, for messages
};

// What an action's `arg` is.
enum class ActionArg {
  optional,         // may be given (acquire: the hold; otherwise unused), never negative
  length,           // a duration that must be given, never negative (pause, redis_pause, failover's lag)
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
const ActionKind& action_kind(ScriptedAction::Kind kind);
std::optional<ScriptedAction::Kind> action_kind_named(std::string_view name);

// A run's per-client table and scripted actions (both empty: every client as the options say).
struct RunInputs {
  std::map<int, ClientSpec> clients;
  std::vector<ScriptedAction> actions;  // sorted by `at`, ties in file order
};

}  // namespace semsim
