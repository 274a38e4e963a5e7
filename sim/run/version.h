#pragma once
// What semsim is: its release (semantic versioning, set once in CMakeLists.txt) and the commit
// it was built from. Every run's first line and run.ini carry it.
#include <string>

namespace semsim {

std::string version();  // e.g. "0.2.0 (commit 1303931abcde)"

}  // namespace semsim
