// clients.csv and actions.csv.
#include "fuzz_input.h"
#include "sim/scenario/client_table.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = semsim::fuzz::as_file(data, size, "table.csv");
  try {
    semsim::read_clients_file(path, 8);
  } catch (const semsim::InputError&) {
  }
  try {
    semsim::read_actions_file(path, 8);
  } catch (const semsim::InputError&) {
  }
  return 0;
}
