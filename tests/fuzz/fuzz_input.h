// libFuzzer targets read files, as semsim does: each input is written to a scratch file of this
// process first. Anything a reader throws as a documented error (bad input, exit 2) is fine;
// a crash, a hang, a sanitizer report or any other exception is a finding.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

namespace semsim::fuzz {

// The input as a file named `name` in this process's scratch folder; returns its path.
inline std::string as_file(const std::uint8_t* data, std::size_t size, const std::string& name) {
  const std::string dir = "/tmp/semsim-fuzz-" + std::to_string(::getpid());
  static const bool made = (::mkdir(dir.c_str(), 0700), true);
  (void)made;
  const std::string path = dir + "/" + name;
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data),
                                                                 static_cast<std::streamsize>(size));
  return path;
}

}  // namespace semsim::fuzz
