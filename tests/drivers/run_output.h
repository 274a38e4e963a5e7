// What the driver-run tests read of a `semsim run`: its exit code and output, and a column of a
// one-row CSV it wrote (summary.csv, realtime.csv).
#pragma once

#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace semsim::testing {

// Runs `command` (a shell command line) with its stdout and stderr into `log`: its exit code (256 +
// the signal if one killed it), and what it printed in `output`.
inline int run_logged(const std::string& command, const std::filesystem::path& log, std::string& output) {
  const int status = std::system((command + " > " + log.string() + " 2>&1").c_str());
  std::ifstream in(log);
  output = std::string((std::istreambuf_iterator<char>(in)), {});
  return WIFEXITED(status) ? WEXITSTATUS(status) : 256 + WTERMSIG(status);
}

// The value of `column` in the first row of the CSV `file`; "?" when there is none.
inline std::string csv_column(const std::filesystem::path& file, const std::string& column) {
  std::ifstream in(file);
  std::string header, row;
  std::getline(in, header);
  std::getline(in, row);
  std::vector<std::string> names, values;
  std::stringstream h(header), r(row);
  for (std::string f; std::getline(h, f, ',');) names.push_back(f);
  for (std::string f; std::getline(r, f, ',');) values.push_back(f);
  const auto at = std::find(names.begin(), names.end(), column);
  return at == names.end() || static_cast<std::size_t>(at - names.begin()) >= values.size() ? "?" : values[at - names.begin()];
}

}  // namespace semsim::testing
