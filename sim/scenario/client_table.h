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

// at,client,action,arg[,masters] — sorted by `at`, ties in file order. Server actions (server_jump
// and the server faults redis_restart, failover, disconnect, redis_pause) are on client 0; with
// several masters they name the masters they act on (`3`, `4 5`, `all`), as a partition names the
// masters its client cannot reach.
std::vector<ScriptedAction> read_actions_file(const std::string& path, int clients, int masters = 1);

// master,skew,drift_ppm,persistence — every column but master optional (masters 1..N).
std::map<int, MasterSpec> read_masters_file(const std::string& path, int masters);

// client,master,delay_out,delay_in — the delays of one client's link to one master.
std::map<std::pair<int, int>, LinkSpec> read_links_file(const std::string& path, int clients, int masters);

// The same tables from bytes already read; `path` names them in messages.
std::map<int, ClientSpec> read_clients_table(const std::string& path, std::string_view bytes, int clients);
std::vector<ScriptedAction> read_actions_table(const std::string& path, std::string_view bytes, int clients,
                                               int masters = 1);
std::map<int, MasterSpec> read_masters_table(const std::string& path, std::string_view bytes, int masters);
std::map<std::pair<int, int>, LinkSpec> read_links_table(const std::string& path, std::string_view bytes, int clients,
                                                         int masters);

// A file's bytes, whole; throws InputError ("PATH: cannot open the file").
std::string read_table_bytes(const std::string& path);

// The bytes of the files a run read, exactly as parsed ("" for a file not named): run.ini keeps
// them beside it (run_execution.h), so that a replay replays what ran even after the files changed.
struct InputBytes {
  std::string clients, actions, masters, links;
};

// The files that `options` names (--clients-file, --actions-file, --masters-file, --links-file),
// each read once; throws InputError. `bytes` (if given) gets what was read.
RunInputs read_run_inputs(const RunOptions& options, InputBytes* bytes = nullptr);

}  // namespace semsim
