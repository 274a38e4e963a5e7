#include "reports/outputs/gnuplot.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <stdexcept>
#include <vector>

extern char** environ;

namespace semsim {

namespace {

// 0: ran and exited 0; 1: ran and failed; -1: could not be started (not on PATH). gnuplot runs
// in `dir` (empty: ours) with `args`; its messages go to `stderr_path` (relative to `dir`),
// never to the user's terminal.
int spawn_gnuplot(const std::string& dir, std::vector<std::string> args, const std::string& stderr_path) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (!dir.empty()) posix_spawn_file_actions_addchdir_np(&actions, dir.c_str());
  posix_spawn_file_actions_addopen(&actions, 2, stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  args.insert(args.begin(), "gnuplot");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, "gnuplot", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return -1;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return 1;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127) return -1;  // exec failed in the child
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

bool plain_name(const std::string& name) {
  return !name.empty() && name.front() != '-' && name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                                        "0123456789_-.") == std::string::npos;
}

// The last `n` bytes of a file ("" if it is shorter or cannot be read).
std::string tail_of(const std::string& path, std::size_t n) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return {};
  const std::streamoff size = in.tellg();
  if (size < static_cast<std::streamoff>(n)) return {};
  in.seekg(size - static_cast<std::streamoff>(n));
  std::string out(n, '\0');
  if (!in.read(out.data(), static_cast<std::streamsize>(n))) return {};
  return out;
}

}  // namespace

std::string gnuplot_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) c = ' ';
    if (c == '\'') out.push_back('\'');
    out.push_back(c);
  }
  out.push_back('\'');
  return out;
}

bool run_gnuplot(const std::string& dir, const std::string& script) {
  if (!plain_name(script)) throw std::logic_error("run_gnuplot: not a plain file name: " + script);
  // Warnings such as "empty x range" are gnuplot's business: kept beside the script only when
  // the drawing failed, for whoever looks into why.
  const std::string log = script + ".log";
  const bool ok = spawn_gnuplot(dir, {script}, log) == 0;
  std::error_code ignored;
  if (ok) std::filesystem::remove(std::filesystem::path(dir) / log, ignored);
  return ok;
}

Gnuplot find_gnuplot(std::ostream& warn) {
  Gnuplot g;
  const int rc = spawn_gnuplot("", {"-e", "set terminal pngcairo"}, "/dev/null");
  if (rc < 0) {
    warn << "warning: gnuplot not found on PATH; charts skipped\n";
    return g;
  }
  g.available = true;
  if (rc == 0) g.png_terminal = "pngcairo";
  return g;
}

std::string name_svg_series(const std::string& svg) {
  static const std::string open = "<title>gnuplot_plot_", text = "<text>", close = "</title>";
  std::string out;
  std::size_t from = 0;
  for (std::size_t at; (at = svg.find(open, from)) != std::string::npos;) {
    const std::size_t end = svg.find(close, at);
    if (end == std::string::npos) break;
    out.append(svg, from, at - from);
    // The plot's key entry comes first in its group, before any of its lines or points.
    const std::size_t t = svg.find(text, end), path = svg.find("<path", end), next = svg.find(open, end);
    const std::size_t t_end = t == std::string::npos ? t : svg.find("</text>", t);
    if (t != std::string::npos && t_end != std::string::npos && t < std::min(path, next))
      out += "<title>" + svg.substr(t + text.size(), t_end - t - text.size()) + close;
    from = end + close.size();
  }
  out.append(svg, from, std::string::npos);
  return out;
}

bool chart_file_complete(const std::string& path) {
  if (path.ends_with(".png")) {
    static const std::string iend("\0\0\0\0IEND\xae\x42\x60\x82", 12);
    return tail_of(path, iend.size()) == iend;
  }
  std::string end = tail_of(path, 16);
  end.erase(std::find_if(end.rbegin(), end.rend(), [](char c) { return c != '\n' && c != ' ' && c != '\r'; }).base(),
            end.end());
  return end.ends_with("</svg>");
}

}  // namespace semsim
