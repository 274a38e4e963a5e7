#pragma once
// Where an installed semsim finds the files it ships: relative to its own executable
// (PREFIX/bin/semsim -> PREFIX/share/semsim/...), never through the build folder or an
// environment variable, so that a copy installed under any prefix works from any directory.
#include <filesystem>
#include <string>

namespace semsim {

// The folder holding the running semsim executable.
std::filesystem::path executable_dir();

// A library semsim builds beside itself (the clock libraries): in the build folder (test programs
// live one folder below) or PREFIX/lib/semsim of an installed semsim; empty if it is not there.
std::filesystem::path shipped_library(const std::string& file_name);

// PREFIX/share/semsim/scenarios for an installed semsim.
std::filesystem::path shipped_scenarios_dir();

// A scenario argument as given when it names an existing file; otherwise, when it is a bare file
// name, the shipped scenario of that name if there is one (`semsim scenario steal-10ms.ini`).
std::string resolve_scenario_path(const std::string& argument);

}  // namespace semsim
