// Running gnuplot as a child process on a script file (no shell involved, so no quoting games).
#pragma once

#include <iosfwd>
#include <string>

namespace semsim {

struct Gnuplot {
  bool available = false;
  std::string png_terminal = "png";  // "pngcairo" when this gnuplot has it
};

// Probes gnuplot once (in `scratch_dir`); prints one warning line to `warn` if it is missing.
Gnuplot find_gnuplot(const std::string& scratch_dir, std::ostream& warn);

// Runs `gnuplot script_path`; returns whether it exited with status 0.
bool run_gnuplot(const std::string& script_path);

// A path or title as a gnuplot single-quoted string ('' stands for ').
std::string gnuplot_quote(const std::string& s);

}  // namespace semsim
