// Readers of clients.csv and actions.csv (sim/core/client_spec.h) with the fast C++ CSV parser;
// errors name the file, the line and the field.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/client_spec.h"
#include "sim/core/run_options.h"

namespace semsim {

// client,skew,drift_ppm,delay_out,delay_in — every column but client optional.
std::map<int, ClientSpec> read_clients_file(const std::string& path, int clients);

// at,client,action,arg — sorted by `at`, ties in file order. Server actions (server_jump and the
// server faults redis_restart, failover, disconnect, redis_pause) are on client 0.
std::vector<ScriptedAction> read_actions_file(const std::string& path, int clients);

// The files that `options` names (--clients-file, --actions-file), read; throws InputError.
RunInputs read_run_inputs(const RunOptions& options);

}  // namespace semsim
