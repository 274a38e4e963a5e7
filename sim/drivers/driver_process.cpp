#include "sim/drivers/driver_process.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <fstream>
#include <stdexcept>

#include "sim/drivers/real_clock.h"

extern char** environ;

namespace semsim {

namespace {

// A driver that closed its stdin must not kill semsim with SIGPIPE: the write fails instead.
void ignore_sigpipe() {
  struct sigaction current {};
  if (::sigaction(SIGPIPE, nullptr, &current) == 0 && current.sa_handler == SIG_DFL) {
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    ::sigaction(SIGPIPE, &ignore, nullptr);
  }
}

void set_nonblocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

std::string errno_text(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

// A process's state letter and group from /proc/PID/stat (the name in parentheses may hold spaces).
std::optional<std::pair<char, pid_t>> stat_of(pid_t pid) {
  const std::string text = read_proc_file("/proc/" + std::to_string(pid) + "/stat");
  const auto close = text.rfind(')');
  if (close == std::string::npos || close + 4 >= text.size()) return std::nullopt;
  // after ") ": state ppid pgrp
  char state = text[close + 2];
  long ppid = 0, pgrp = 0;
  if (std::sscanf(text.c_str() + close + 3, " %ld %ld", &ppid, &pgrp) != 2) return std::nullopt;
  return std::make_pair(state, static_cast<pid_t>(pgrp));
}

}  // namespace

std::string read_proc_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  std::string text;
  char buffer[4096];
  for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return text;
}

std::vector<std::pair<pid_t, char>> group_processes(pid_t group) {
  std::vector<std::pair<pid_t, char>> out;
  DIR* proc = ::opendir("/proc");
  if (!proc) return out;
  while (const dirent* entry = ::readdir(proc)) {
    char* end = nullptr;
    const long pid = std::strtol(entry->d_name, &end, 10);
    if (!end || *end || pid <= 0) continue;
    if (const auto s = stat_of(static_cast<pid_t>(pid)); s && s->second == group)
      out.emplace_back(static_cast<pid_t>(pid), s->first);
  }
  ::closedir(proc);
  return out;
}

DriverProcess::DriverProcess(const DriverSpawn& spawn) : stderr_file_(spawn.stderr_file) {
  ignore_sigpipe();
  // The driver's own children, orphaned when it dies, become semsim's to reap (not init's, which
  // may take its time): once semsim says a driver is gone, none of its processes is left, not
  // even a zombie.
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  // Everything the child needs is made before fork: other threads (the proxies) run in semsim,
  // and a forked child may only make async-signal-safe calls.
  std::vector<std::string> env_text;
  for (char** e = environ; e && *e; ++e) {
    const std::string entry(*e);
    bool replaced = false;
    for (const auto& [name, value] : spawn.environment) replaced |= entry.starts_with(name + "=");
    if (!replaced) env_text.push_back(entry);
  }
  for (const auto& [name, value] : spawn.environment) env_text.push_back(name + "=" + value);
  std::vector<char*> envp;
  for (std::string& e : env_text) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::string shell = "/bin/sh", dash_c = "-c", command = spawn.command;
  char* argv[] = {shell.data(), dash_c.data(), command.data(), nullptr};

  int in[2], out[2];
  if (::pipe2(in, O_CLOEXEC) != 0) throw std::runtime_error(errno_text("cannot make a pipe for a driver"));
  if (::pipe2(out, O_CLOEXEC) != 0) {
    ::close(in[0]), ::close(in[1]);
    throw std::runtime_error(errno_text("cannot make a pipe for a driver"));
  }
  const int err = ::open(stderr_file_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (err < 0) {
    for (int fd : {in[0], in[1], out[0], out[1]}) ::close(fd);
    throw std::runtime_error(errno_text(("cannot open " + stderr_file_.string()).c_str()));
  }
  const pid_t parent = ::getpid();
  pid_ = ::fork();
  if (pid_ == 0) {
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);  // semsim died already
    ::dup2(in[0], 0);
    ::dup2(out[1], 1);
    ::dup2(err, 2);
    ::close_range(3, ~0U, 0);  // semsim's sockets and files are not the driver's
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    struct sigaction deflt {};
    deflt.sa_handler = SIG_DFL;
    for (int s : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT}) ::sigaction(s, &deflt, nullptr);
    ::execve(argv[0], argv, envp.data());
    ::_exit(127);
  }
  const int fork_errno = errno;
  ::close(in[0]);
  ::close(out[1]);
  ::close(err);
  if (pid_ < 0) {
    ::close(in[1]), ::close(out[0]);
    errno = fork_errno;
    throw std::runtime_error(errno_text("cannot start a driver (fork)"));
  }
  ::setpgid(pid_, pid_);  // also from here: no signal may reach semsim's own group meanwhile
  in_ = in[1];
  out_ = out[0];
  set_nonblocking(in_);
  set_nonblocking(out_);
}

DriverProcess::~DriverProcess() {
  kill();
  await_gone(2'000'000'000);  // SIGKILL lands at once; this bounds a process stuck in the kernel
  if (!exit_) {
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  if (in_ >= 0) ::close(in_);
  if (out_ >= 0) ::close(out_);
}

void DriverProcess::send(std::string_view text) {
  pending_input_.append(text);
  flush_input();
}

bool DriverProcess::flush_input() {
  while (!pending_input_.empty() && in_ >= 0) {
    const ssize_t n = ::write(in_, pending_input_.data(), pending_input_.size());
    if (n > 0) {
      pending_input_.erase(0, static_cast<std::size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && errno == EAGAIN) {
      break;
    } else {
      pending_input_.clear();  // the driver closed its stdin: what it will not read is lost
    }
  }
  return !pending_input_.empty();
}

void DriverProcess::close_input() {
  flush_input();
  if (in_ >= 0) ::close(in_);
  in_ = -1;
  pending_input_.clear();
}

bool DriverProcess::read_lines(std::vector<std::string>& lines) {
  if (out_ < 0) return false;
  char buffer[65536];
  bool open = true;
  for (;;) {
    const ssize_t n = ::read(out_, buffer, sizeof buffer);
    if (n > 0) {
      partial_output_.append(buffer, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    open = n < 0 && errno == EAGAIN;  // else end of file, or an error reading it
    break;
  }
  std::size_t start = 0;
  for (std::size_t nl; (nl = partial_output_.find('\n', start)) != std::string::npos; start = nl + 1)
    lines.push_back(partial_output_.substr(start, nl - start));
  partial_output_.erase(0, start);
  if (!open) {
    if (!partial_output_.empty()) lines.push_back(std::exchange(partial_output_, {}));  // a last line without newline
    ::close(out_);
    out_ = -1;
  }
  return open;
}

void DriverProcess::signal_group(int signal_number) {
  // The group's id is the shell's pid: taken while the shell is unreaped, or while any process of
  // the group lives. Once both are gone it may belong to someone else.
  if (!exited() || !members().empty()) ::kill(-pid_, signal_number);
}

void DriverProcess::stop() { signal_group(SIGSTOP); }
void DriverProcess::resume() { signal_group(SIGCONT); }
void DriverProcess::kill() { signal_group(SIGKILL); }

std::vector<pid_t> DriverProcess::members() const {
  std::vector<pid_t> out;
  for (const auto& [pid, state] : group_processes(pid_))
    if (state != 'Z' && state != 'X') out.push_back(pid);
  return out;
}

bool DriverProcess::all_in(State want, const std::vector<pid_t>& pids) const {
  for (pid_t pid : pids) {
    const auto s = stat_of(pid);
    if (!s || s->second != pid_) continue;  // gone (its pid may even be another's now)
    const bool dead = s->first == 'Z' || s->first == 'X';
    const bool stopped = s->first == 'T' || s->first == 't';
    if (want == State::gone && !dead) return false;
    if (want == State::stopped && !dead && !stopped) return false;
    if (want == State::running && stopped) return false;
  }
  return true;
}

namespace {
template <typename Done>
bool poll_until(std::int64_t limit_ns, Done done) {
  const std::int64_t until = monotonic_ns() + limit_ns;
  for (;;) {
    if (done()) return true;
    if (monotonic_ns() >= until) return false;
    sleep_ns(1'000'000);
  }
}
}  // namespace

// Each waits on the group's processes as one look at /proc found them (a signal that stops or
// kills them also stops them from starting new ones), then polls only theirs.
bool DriverProcess::await_stopped(std::int64_t limit_ns) const {
  const std::vector<pid_t> pids = members();
  return poll_until(limit_ns, [&] { return all_in(State::stopped, pids); });
}
bool DriverProcess::await_running(std::int64_t limit_ns) const {
  const std::vector<pid_t> pids = members();
  return poll_until(limit_ns, [&] { return all_in(State::running, pids); });
}
bool DriverProcess::await_gone(std::int64_t limit_ns) {
  const std::vector<pid_t> pids = members();
  return poll_until(limit_ns, [&] {
    reap_group();
    return exit_ && all_in(State::gone, pids);
  });
}

void DriverProcess::reap_group() {
  for (;;) {
    siginfo_t info{};
    if (::waitid(P_PGID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG) != 0 && errno == EINTR) continue;
    if (info.si_pid == 0) return;  // none ended (or none is semsim's child any more)
    if (info.si_pid != pid_) continue;
    if (info.si_code == CLD_EXITED) exit_ = "exited with status " + std::to_string(info.si_status);
    else exit_ = "killed by signal " + std::to_string(info.si_status) + " (" + strsignal(info.si_status) + ")";
  }
}

std::optional<std::string> DriverProcess::exited() {
  if (!exit_) reap_group();
  return exit_;
}

std::string DriverProcess::stderr_tail(int n) const {
  std::ifstream in(stderr_file_);
  std::deque<std::string> last;
  for (std::string line; std::getline(in, line);) {
    last.push_back(line);
    if (static_cast<int>(last.size()) > n) last.pop_front();
  }
  std::string out;
  for (const std::string& l : last) out += (out.empty() ? "" : " | ") + l;
  return out;
}

}  // namespace semsim
