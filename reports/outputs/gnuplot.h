// Running gnuplot as a child process on a script file (no shell involved, so no quoting games).
//
// No path ever reaches a gnuplot script: gnuplot runs with the chart's folder as its working
// directory and reads and writes fixed plain names there (holders.dat, holders.svg, ...), so that a
// folder name holding a newline or a quote (an --out path, a scenario file's name) cannot become a
// gnuplot command. Text that does reach a script (titles, a variant's name) goes through
// gnuplot_quote.
#pragma once

#include <iosfwd>
#include <string>

namespace semsim {

struct Gnuplot {
  bool available = false;
  std::string png_terminal = "png";  // "pngcairo" when this gnuplot has it
};

// Probes gnuplot once; prints one warning line to `warn` if it is missing.
Gnuplot find_gnuplot(std::ostream& warn);

// Runs `gnuplot SCRIPT` with `dir` as its working directory; `script` is a plain file name in
// `dir` (letters, digits, '_', '-', '.'). Returns whether it exited with status 0; its messages
// go to SCRIPT.log in `dir`, kept only when it failed.
bool run_gnuplot(const std::string& dir, const std::string& script);

// `s` as one gnuplot single-quoted string on one line: ' doubled (gnuplot's '' stands for '), and
// every control character (a newline would end the command) replaced by a space. Inside single
// quotes gnuplot substitutes nothing (no `backquotes`, no @macros), so the result is text and
// nothing else, whatever `s` holds.
std::string gnuplot_quote(const std::string& s);

// An SVG gnuplot wrote, its plots' hover texts (<title>gnuplot_plot_N</title>) naming their series:
// the key's text of the plot (as gnuplot escaped it), or no hover text for a plot without a key
// entry (an error bar's or a shading's). Everything else unchanged.
std::string name_svg_series(const std::string& svg);

// Whether a chart file gnuplot wrote is whole: an SVG ends with </svg>, a PNG with its IEND chunk.
// gnuplot exits 0 even when the disk filled up under it.
bool chart_file_complete(const std::string& path);

}  // namespace semsim
