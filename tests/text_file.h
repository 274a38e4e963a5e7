// The whole text of a file a test reads back (what semsim wrote); "" when it cannot be opened.
// One definition for every test file: the test binaries compile as unity sources, where each
// file's own copy would clash.
#pragma once

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace semsim {

inline std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), {}};
}

}  // namespace semsim
