// One driver process: `sh -c COMMAND` in a process group of its own, its stdin and stdout on pipes,
// its stderr in a file. Between semsim and the shell stands a keeper: a forked copy of semsim that
// is the subreaper of everything the driver starts, so that a process that leaves the group (a
// session of its own, a double fork) is still its descendant. When semsim closes the keeper's
// lifeline (kill(), this object's end) or dies, even by SIGKILL, the keeper kills every one of its
// descendants, reaps them, and exits: every process of a driver ends with it, on every path.
// Pauses are SIGSTOP/SIGCONT and crashes SIGKILL, to the whole group.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace semsim {

struct DriverSpawn {
  std::string command;                                           // run by /bin/sh -c
  std::vector<std::pair<std::string, std::string>> environment;  // set or replaced in semsim's own
  std::filesystem::path stderr_file;                             // the driver's stderr
  bool append_stderr = false;  // a fresh process of the same run's client: after the last one's
};

class DriverProcess {
 public:
  // Throws std::runtime_error when the process cannot be started.
  explicit DriverProcess(const DriverSpawn& spawn);
  ~DriverProcess();
  DriverProcess(const DriverProcess&) = delete;
  DriverProcess& operator=(const DriverProcess&) = delete;

  pid_t pid() const { return pid_; }  // the shell, leader of the group
  pid_t keeper() const { return keeper_; }  // every process of the driver is below it
  int output_fd() const { return out_; }
  int input_fd() const { return in_; }

  // Queues text for the driver's stdin and writes what the pipe takes now.
  void send(std::string_view text);
  // Writes more of what is queued (when input_fd() is writable); whether any is still queued.
  bool flush_input();
  bool input_pending() const { return !pending_input_.empty(); }
  // Closes the driver's stdin (after what is queued, as far as the pipe takes it).
  void close_input();
  // Reads what the driver printed: complete lines are appended to `lines`. False once its stdout
  // is closed (the driver exited, or closed it).
  bool read_lines(std::vector<std::string>& lines);

  // Signals to the whole group; kill() also ends every other process the driver started (the
  // keeper does, at once).
  void stop();
  void resume();
  void kill();
  // Waits (polling the group's processes, at most `limit_ns`) until every process of the group is
  // stopped / running / gone (after kill(): every process the driver started, and the keeper);
  // whether it got there.
  bool await_stopped(std::int64_t limit_ns) const;
  bool await_running(std::int64_t limit_ns) const;
  bool await_gone(std::int64_t limit_ns);
  // Whether the shell has exited (reaping it), and how: "exited with status 1", "killed by signal 9".
  std::optional<std::string> exited();
  // The processes of the group now (their pids).
  std::vector<pid_t> members() const;
  // The last `n` lines of its stderr file, for messages.
  std::string stderr_tail(int n) const;
  const std::filesystem::path& stderr_file() const { return stderr_file_; }

 private:
  enum class State { running, stopped, gone };
  bool all_in(State state, const std::vector<pid_t>& pids) const;
  void signal_group(int signal_number);
  // Reads what the keeper reported: how the shell ended.
  void read_reports();
  // Whether the keeper has exited (reaping it).
  bool keeper_gone();
  pid_t pid_ = -1, keeper_ = -1;
  int in_ = -1, out_ = -1, lifeline_ = -1, reports_ = -1;
  std::string pending_input_;
  std::string partial_output_;
  std::optional<std::string> exit_;
  std::filesystem::path stderr_file_;
};

// What every process of a group is: its pid and, from /proc, its state letter (R, S, T, Z, ...).
std::vector<std::pair<pid_t, char>> group_processes(pid_t group);
// What a /proc file holds now, or "": its process may end while it is read, which a plain read
// says with an error (a C++ stream's buffer throws it through an istreambuf_iterator).
std::string read_proc_file(const std::string& path);

}  // namespace semsim
