// Every file semsim writes is checked: a full disk or an unwritable path is an error, never a
// silently truncated result.
#pragma once

#include <ostream>
#include <stdexcept>
#include <string>

namespace semsim {

// Flushes `out` and throws std::runtime_error naming `path` if anything written to it was lost.
inline void check_written(std::ostream& out, const std::string& path) {
  if (!out.flush()) throw std::runtime_error("cannot write " + path + " (disk full, or not writable)");
}

}  // namespace semsim
