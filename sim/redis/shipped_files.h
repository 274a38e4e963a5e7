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
// That folder for --help: the real one when installed, else where the Debian package puts it.
std::string shipped_scenarios_help();

// The conformance card's situations: PREFIX/share/semsim/scenarios/conformance of an installed
// semsim, else scenarios/conformance of the source tree beside a build folder (build/semsim).
std::filesystem::path shipped_conformance_dir();

// Where the user documentation is (README.md, docs/, reports/DEFINITIONS.md, scenarios/README.md):
// PREFIX/share/doc/semsim beside an installed semsim; the source tree of a build folder inside it
// (build/semsim -> the tree's README.md); else where the Debian package puts it, /usr/share/doc/semsim.
// `--help` prints it. The man page, made from `--help` at build time, is made from a copy of semsim
// outside both (cmake/install.cmake), so that it names the Debian package's paths.
std::filesystem::path docs_dir();

// One document (a path relative to the docs folder, e.g. "reports/DEFINITIONS.md") under docs_dir().
// For links in report pages.
std::filesystem::path doc_path(const std::string& relative);

// A scenario argument as given when it names an existing file; otherwise, when it is a bare file
// name, the shipped scenario of that name if there is one (`semsim scenario steal-10ms.ini`).
std::string resolve_scenario_path(const std::string& argument);

}  // namespace semsim
