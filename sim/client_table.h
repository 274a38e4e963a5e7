// Per-client settings (clients.csv) and scripted actions (actions.csv), as DESIGN.md defines them.
// Read with the fast C++ CSV parser; errors name the file, the line and the field.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/distribution.h"

namespace semsim {

// A file that cannot be used as given: exit 2. The message names file, line and field.
struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct ClientSpec {
  std::optional<Distribution> skew, drift_ppm, delay_out, delay_in;
};

// client,skew,drift_ppm,delay_out,delay_in — every column but client optional.
std::map<int, ClientSpec> read_clients_file(const std::string& path, int clients);

struct ScriptedAction {
  enum class Kind { acquire, release, refresh, pause, crash, jump, server_jump, redis_restart, failover, disconnect, redis_pause };
  // Whether it acts on Redis (client 0) rather than on a client.
  bool on_server() const { return kind >= Kind::server_jump; }
  Micros at{0};
  int client = 0;
  Kind kind = Kind::acquire;
  std::optional<Micros> arg;  // acquire: hold; pause, redis_pause: length; jump: signed clock jump; failover: lag
  int line = 0;               // where it came from, for messages
};

// at,client,action,arg — sorted by `at`, ties in file order. Server actions (server_jump and the
// server faults redis_restart, failover, disconnect, redis_pause) are on client 0.
std::vector<ScriptedAction> read_actions_file(const std::string& path, int clients);

}  // namespace semsim
