// Every file semsim writes is checked: a full disk, a file-size limit, no file descriptor left or
// an unwritable path is an error that names the path and the system's reason, never a silently
// truncated result.
#pragma once

#include <ostream>
#include <stdexcept>
#include <string>

namespace semsim {

// An output that could not be written (exit 2: the run's outputs are not a result).
struct OutputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Writes `text` as the whole content of `path` (created or truncated) and closes it; throws
// OutputError "cannot write PATH: REASON" (REASON: strerror of the failing call) if any of it
// could not be written.
void write_output_file(const std::string& path, const std::string& text);

// Flushes `out` and throws OutputError naming `path` if anything written to it was lost. (A
// stream does not keep the reason: prefer write_output_file, which does.)
void check_written(std::ostream& out, const std::string& path);

}  // namespace semsim
