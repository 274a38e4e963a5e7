// clients.csv and actions.csv; the actions' server_jump rows against what Redis's virtual clock
// can show (a run refuses them before it starts).
#include "fuzz_input.h"
#include "sim/core/simulation.h"
#include "sim/redis/redis_clock.h"
#include "sim/scenario/client_table.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = semsim::fuzz::as_file(data, size, "table.csv");
  try {
    semsim::read_clients_file(path, 8);
  } catch (const semsim::InputError&) {
  }
  try {
    const auto actions = semsim::read_actions_file(path, 8);
    semsim::RunOptions options;
    options.duration = semsim::kMaxDuration;
    options.actions_file = path;
    semsim::check_server_clock_range(options, actions, semsim::kVirtualClockRange);
  } catch (const semsim::InputError&) {
  }
  return 0;
}
