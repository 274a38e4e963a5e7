#include "reports/outputs/gnuplot.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <ostream>

extern char** environ;

namespace semsim {

namespace {

// 0: ran and exited 0; 1: ran and failed; -1: could not be started (not on PATH). gnuplot's
// own messages go to `stderr_path`, never to the user's terminal.
int spawn_gnuplot(const std::string& script_path, const std::string& stderr_path) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 2, stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  std::string prog = "gnuplot";
  char* argv[] = {prog.data(), const_cast<char*>(script_path.c_str()), nullptr};
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, "gnuplot", &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return -1;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return 1;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127) return -1;  // exec failed in the child
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

}  // namespace

std::string gnuplot_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out.push_back('\'');
    out.push_back(c);
  }
  out.push_back('\'');
  return out;
}

bool run_gnuplot(const std::string& script_path) {
  // Warnings such as "empty x range" are gnuplot's business: kept beside the script only when
  // the drawing failed, for whoever looks into why.
  const std::string log = script_path + ".log";
  const bool ok = spawn_gnuplot(script_path, log) == 0;
  std::error_code ignored;
  if (ok) std::filesystem::remove(log, ignored);
  return ok;
}

Gnuplot find_gnuplot(const std::string& scratch_dir, std::ostream& warn) {
  Gnuplot g;
  std::string probe = (std::filesystem::path(scratch_dir) / ".gnuplot_probe.gp").string();
  std::ofstream(probe) << "set terminal pngcairo\n";
  int rc = spawn_gnuplot(probe, "/dev/null");
  std::error_code ignored;
  std::filesystem::remove(probe, ignored);
  if (rc < 0) {
    warn << "warning: gnuplot not found on PATH; charts skipped\n";
    return g;
  }
  g.available = true;
  if (rc == 0) g.png_terminal = "pngcairo";
  return g;
}

}  // namespace semsim
