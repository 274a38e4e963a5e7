// Scenario files (INI): options, sweeps and expectations, and the clients/actions files they name.
#include "fuzz_input.h"
#include "sim/scenario/client_table.h"
#include "sim/scenario/scenario.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    semsim::load_scenario(semsim::fuzz::as_file(data, size, "scenario.ini"));
  } catch (const semsim::InputError&) {
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
