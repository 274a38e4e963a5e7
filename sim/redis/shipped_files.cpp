#include "sim/redis/shipped_files.h"

#include <system_error>

namespace semsim {

namespace fs = std::filesystem;

fs::path executable_dir() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : self.parent_path();
}

fs::path shipped_library(const std::string& file_name) {
  const fs::path exe = executable_dir();
  for (const fs::path& candidate : {exe / file_name, exe.parent_path() / file_name, exe.parent_path() / "lib" / "semsim" / file_name}) {
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec)) return candidate;
  }
  return {};
}

fs::path shipped_scenarios_dir() { return executable_dir().parent_path() / "share" / "semsim" / "scenarios"; }

std::string resolve_scenario_path(const std::string& argument) {
  std::error_code ec;
  const fs::path given(argument);
  if (fs::exists(given, ec) || given.has_parent_path()) return argument;
  const fs::path shipped = shipped_scenarios_dir() / given;
  return fs::is_regular_file(shipped, ec) ? shipped.string() : argument;
}

}  // namespace semsim
