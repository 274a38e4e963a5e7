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

// at,client,action,arg[,masters] — sorted by `at`, ties in file order. Server actions (server_jump
// and the server faults redis_restart, failover, disconnect, redis_pause) are on client 0; with
// several masters they name the masters they act on (`3`, `4 5`, `all`), as a partition names the
// masters its client cannot reach.
std::vector<ScriptedAction> read_actions_file(const std::string& path, int clients, int masters = 1);

// master,skew,drift_ppm,persistence — every column but master optional (masters 1..N).
std::map<int, MasterSpec> read_masters_file(const std::string& path, int masters);

// client,master,delay_out,delay_in — the delays of one client's link to one master.
std::map<std::pair<int, int>, LinkSpec> read_links_file(const std::string& path, int clients, int masters);

// The files that `options` names (--clients-file, --actions-file, --masters-file, --links-file),
// read; throws InputError.
RunInputs read_run_inputs(const RunOptions& options);

}  // namespace semsim
