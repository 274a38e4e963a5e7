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

std::string shipped_scenarios_help() {
  std::error_code ec;
  return fs::is_directory(shipped_scenarios_dir(), ec)
             ? shipped_scenarios_dir().string()
             : "/usr/share/semsim/scenarios (for a semsim installed elsewhere: share/semsim/scenarios beside its bin/)";
}

fs::path shipped_conformance_dir() {
  std::error_code ec;
  const fs::path installed = shipped_scenarios_dir() / "conformance";
  if (fs::is_directory(installed, ec)) return installed;
  const fs::path source = executable_dir().parent_path() / "scenarios" / "conformance";
  return fs::is_directory(source, ec) ? source : installed;
}

fs::path docs_dir() {
  std::error_code ec;
  const fs::path installed = executable_dir().parent_path() / "share" / "doc" / "semsim";
  if (fs::is_directory(installed, ec)) return installed;
  // A build folder in the source tree (build/semsim): the tree's own README.md and docs/.
  const fs::path source = executable_dir().parent_path();
  if (fs::is_regular_file(source / "README.md", ec) && fs::is_regular_file(source / "reports" / "DEFINITIONS.md", ec))
    return source;
  return "/usr/share/doc/semsim";
}

fs::path doc_path(const std::string& relative) { return docs_dir() / relative; }

std::string resolve_scenario_path(const std::string& argument) {
  std::error_code ec;
  const fs::path given(argument);
  if (fs::exists(given, ec) || given.has_parent_path()) return argument;
  const fs::path shipped = shipped_scenarios_dir() / given;
  return fs::is_regular_file(shipped, ec) ? shipped.string() : argument;
}

}  // namespace semsim
