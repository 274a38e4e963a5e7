// Readers of clients.csv and actions.csv (sim/core/client_spec.h) with the fast C++ CSV parser;
// errors name the file, the line and the field.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/client_spec.h"
#include "sim/core/run_options.h"

namespace semsim {

// client,skew,drift_ppm,delay_out,delay_in — every column but client optional.
std::map<int, ClientSpec> read_clients_file(const std::string& path, int clients);

// at,client,action,arg — sorted by `at`, ties in file order. Server actions (server_jump and the
// server faults redis_restart, failover, disconnect, redis_pause) are on client 0.
std::vector<ScriptedAction> read_actions_file(const std::string& path, int clients);

// The same tables from bytes already read; `path` names them in messages.
std::map<int, ClientSpec> read_clients_table(const std::string& path, std::string_view bytes, int clients);
std::vector<ScriptedAction> read_actions_table(const std::string& path, std::string_view bytes, int clients);

// A file's bytes, whole; throws InputError ("PATH: cannot open the file").
std::string read_table_bytes(const std::string& path);

// The bytes of the files a run read, exactly as parsed ("" for a file not named): run.ini keeps
// them beside it (run_execution.h), so that a replay replays what ran even after the files changed.
struct InputBytes {
  std::string clients, actions;
};

// The files that `options` names (--clients-file, --actions-file), each read once; throws
// InputError. `bytes` (if given) gets what was read.
RunInputs read_run_inputs(const RunOptions& options, InputBytes* bytes = nullptr);

}  // namespace semsim
