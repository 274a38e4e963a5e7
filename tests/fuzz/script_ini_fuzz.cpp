// A script variant's INI file (keys, placeholders, reply matchers); the scripts it names exist.
#include "algorithms/scripts/script_variant.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string ini = semsim::fuzz::as_file(data, size, "semaphore.ini");
  static const bool scripts = [] {
    const std::string lua = "return 1\n";
    semsim::fuzz::as_file(reinterpret_cast<const std::uint8_t*>(lua.data()), lua.size(), "acquire.lua");
    semsim::fuzz::as_file(reinterpret_cast<const std::uint8_t*>(lua.data()), lua.size(), "release.lua");
    return true;
  }();
  (void)scripts;
  semsim::SemaphoreConfig config;
  config.name = "semsim:fuzz:sem";
  try {
    semsim::make_script_semaphore(ini, config);
  } catch (const semsim::SetupError&) {
  }
  return 0;
}
