#include "sim/drivers/driver_process.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <poll.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>
#include <fstream>
#include <regex>
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

namespace {

// What the keeper tells semsim, on a pipe: the shell's pid, how it ended, or why it could not start.
struct KeeperReport {
  char kind;  // 'P' pid, 'E' wait status, 'F' errno of a failed fork
  int value;
};

void report(int fd, char kind, int value) {
  const KeeperReport r{kind, value};
  [[maybe_unused]] const ssize_t n = ::write(fd, &r, sizeof r);  // atomic: less than PIPE_BUF
}

// Reaps every child that has ended (the shell's status reported); false once the keeper has none.
bool reap_children(pid_t shell, int reports) {
  for (;;) {
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, WNOHANG);
    if (pid > 0) {
      if (pid == shell) report(reports, 'E', status);
      continue;
    }
    if (pid < 0 && errno == EINTR) continue;
    return pid == 0;  // 0: children left, none ended; -1 (ECHILD): none left
  }
}

// SIGKILL to each of the keeper's children, found in /proc with no allocation (the keeper is a
// fork of a threaded process: only async-signal-safe calls). Orphans of the dead become the
// keeper's children (it is their subreaper), and the next round finds them.
void kill_children(pid_t self) {
  const int proc = ::open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (proc < 0) return;
  alignas(8) char entries[8192];
  for (long n; (n = ::syscall(SYS_getdents64, proc, entries, sizeof entries)) > 0;) {
    for (long at = 0; at < n;) {
      const auto* entry = reinterpret_cast<const struct dirent64*>(entries + at);
      at += entry->d_reclen;
      pid_t pid = 0;
      const char* c = entry->d_name;
      for (; *c >= '0' && *c <= '9'; ++c) pid = pid * 10 + (*c - '0');
      if (*c || pid <= 0) continue;
      char path[32] = "/proc/";
      int len = 6;
      char digits[12];
      int nd = 0;
      for (pid_t v = pid; v > 0; v /= 10) digits[nd++] = static_cast<char>('0' + v % 10);
      while (nd > 0) path[len++] = digits[--nd];
      for (const char* tail = "/stat"; *tail;) path[len++] = *tail++;
      path[len] = 0;
      const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
      if (fd < 0) continue;
      char stat[512];
      const ssize_t got = ::read(fd, stat, sizeof stat - 1);
      ::close(fd);
      if (got <= 0) continue;
      stat[got] = 0;
      // "pid (name) S ppid ...": the name may hold anything, the last ')' ends it.
      const char* close = nullptr;
      for (const char* q = stat; *q; ++q)
        if (*q == ')') close = q;
      if (!close || !close[1] || !close[2] || !close[3]) continue;
      pid_t ppid = 0;
      for (const char* q = close + 4; *q >= '0' && *q <= '9'; ++q) ppid = ppid * 10 + (*q - '0');
      if (ppid == self) ::kill(pid, SIGKILL);
    }
  }
  ::close(proc);
}

// The keeper: fds 0, 1, 2 the driver's stdin, stdout and stderr, 3 the lifeline (semsim holds its
// other end), 4 the reports. Starts the shell, reaps until the lifeline ends, then kills and reaps
// every process left below it, and exits.
[[noreturn]] void keep(char* const argv[], char* const envp[]) {
  const pid_t self = ::getpid();
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  // A Ctrl-C reaches semsim's whole group, the keeper included: semsim ends the run, then the lifeline.
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  for (int s : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT}) ::sigaction(s, &ignore, nullptr);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  const pid_t shell = ::fork();
  if (shell == 0) {
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // the keeper gone too (killed by hand): no driver without one
    if (::getppid() != self) ::_exit(127);
    ::close_range(3, ~0U, 0);  // semsim's sockets and files are not the driver's
    struct sigaction deflt {};
    deflt.sa_handler = SIG_DFL;
    for (int s : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT}) ::sigaction(s, &deflt, nullptr);
    ::execve(argv[0], argv, envp);
    ::_exit(127);
  }
  if (shell < 0) {
    report(4, 'F', errno);
    ::_exit(1);
  }
  ::setpgid(shell, shell);  // also from here: no signal may reach the keeper's group meanwhile
  report(4, 'P', shell);
  const int devnull = ::open("/dev/null", O_RDWR);
  for (int fd : {0, 1, 2}) ::dup2(devnull, fd);  // the driver's ends of its pipes are the driver's alone
  ::close(devnull);
  for (;;) {
    reap_children(shell, 4);
    pollfd life{3, POLLIN, 0};
    if (::poll(&life, 1, 20) > 0) break;  // semsim closed it, or died
  }
  // Round by round: the children die, their orphans become the keeper's, the next round kills
  // them. (No signal to the shell's group here: once the shell is reaped its id may be another's.)
  while (reap_children(shell, 4)) {
    kill_children(self);
    const timespec pause{0, 2'000'000};
    ::nanosleep(&pause, nullptr);
  }
  ::_exit(0);
}

}  // namespace

DriverProcess::DriverProcess(const DriverSpawn& spawn) : stderr_file_(spawn.stderr_file) {
  ignore_sigpipe();
  // Everything the keeper and the shell need is made before fork: other threads (the proxies) run
  // in semsim, and a forked child may only make async-signal-safe calls.
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

  // in, out: the driver's stdin and stdout; life: the keeper's lifeline; said: its reports.
  int in[2] = {-1, -1}, out[2] = {-1, -1}, life[2] = {-1, -1}, said[2] = {-1, -1};
  const auto close_all = [&] {
    for (int* p : {in, out, life, said})
      for (int i : {0, 1})
        if (p[i] >= 0) ::close(p[i]);
  };
  for (int* p : {in, out, life, said})
    if (::pipe2(p, O_CLOEXEC) != 0) {
      const std::string why = errno_text("cannot make a pipe for a driver");
      close_all();
      throw std::runtime_error(why);
    }
  const int err = ::open(stderr_file_.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | (spawn.append_stderr ? O_APPEND : O_TRUNC),
                         0644);
  if (err < 0) {
    const std::string why = errno_text(("cannot open " + stderr_file_.string()).c_str());
    close_all();
    throw std::runtime_error(why);
  }
  keeper_ = ::fork();
  if (keeper_ == 0) {
    // Its five descriptors to 0..4: first above them all, so that no dup2 overwrites another.
    int keep_fds[5] = {in[0], out[1], err, life[0], said[1]};
    for (int& fd : keep_fds) fd = ::fcntl(fd, F_DUPFD, 10);
    for (int i = 0; i < 5; ++i) ::dup2(keep_fds[i], i);
    ::close_range(5, ~0U, 0);  // another client's lifeline among them: it must end with semsim alone
    // Inherited by the shell and kept across exec: the driver's addresses are the same every run.
    if (spawn.fixed_addresses) {
      const int current = ::personality(0xffffffff);
      if (current != -1) ::personality(static_cast<unsigned long>(current) | ADDR_NO_RANDOMIZE);
    }
    keep(argv, envp.data());
  }
  const int fork_errno = errno;
  ::close(in[0]), ::close(out[1]), ::close(err), ::close(life[0]), ::close(said[1]);
  in_ = in[1], out_ = out[0], lifeline_ = life[1], reports_ = said[0];
  if (keeper_ < 0) {
    errno = fork_errno;
    const std::string why = errno_text("cannot start a driver (fork)");
    for (int fd : {in_, out_, lifeline_, reports_}) ::close(fd);
    throw std::runtime_error(why);
  }
  KeeperReport first{};
  ssize_t n;
  while ((n = ::read(reports_, &first, sizeof first)) < 0 && errno == EINTR) {
  }
  if (n != sizeof first || first.kind != 'P') {
    ::close(lifeline_);
    while (::waitpid(keeper_, nullptr, 0) < 0 && errno == EINTR) {
    }
    for (int fd : {in_, out_, reports_}) ::close(fd);
    errno = n == sizeof first && first.kind == 'F' ? first.value : EAGAIN;
    throw std::runtime_error(errno_text("cannot start a driver (fork)"));
  }
  pid_ = first.value;
  set_nonblocking(in_);
  set_nonblocking(out_);
  set_nonblocking(reports_);
}

DriverProcess::~DriverProcess() {
  kill();
  await_gone(2'000'000'000);  // SIGKILL lands at once; this bounds a process stuck in the kernel
  if (keeper_ > 0) {
    int status = 0;
    while (::waitpid(keeper_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  for (int fd : {in_, out_, reports_})
    if (fd >= 0) ::close(fd);
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
void DriverProcess::kill() {
  signal_group(SIGKILL);
  if (lifeline_ >= 0) ::close(lifeline_);  // the keeper kills whatever else the driver started
  lifeline_ = -1;
}

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
  if (lifeline_ < 0)  // killed: gone once the keeper is, which waits for every process below it
    return poll_until(limit_ns, [&] { return keeper_gone(); });
  const std::vector<pid_t> pids = members();
  return poll_until(limit_ns, [&] { return exited() && all_in(State::gone, pids); });
}

void DriverProcess::read_reports() {
  KeeperReport r{};
  while (reports_ >= 0) {
    const ssize_t n = ::read(reports_, &r, sizeof r);
    if (n < 0 && errno == EINTR) continue;
    if (n != sizeof r) return;  // none now (or the keeper is gone)
    if (r.kind != 'E') continue;
    if (WIFEXITED(r.value)) exit_ = "exited with status " + std::to_string(WEXITSTATUS(r.value));
    else exit_ = "killed by signal " + std::to_string(WTERMSIG(r.value)) + " (" + strsignal(WTERMSIG(r.value)) + ")";
  }
}

bool DriverProcess::keeper_gone() {
  if (keeper_ <= 0) return true;
  read_reports();
  int status = 0;
  pid_t r;
  while ((r = ::waitpid(keeper_, &status, WNOHANG)) < 0 && errno == EINTR) {
  }
  if (r == 0) return false;
  read_reports();  // what it said last
  keeper_ = -1;
  return true;
}

std::optional<std::string> DriverProcess::exited() {
  if (!exit_) read_reports();
  return exit_;
}

// The last `n` lines that are not blank; and where none of them says what went wrong but an
// earlier one does (node prints "Error: Cannot find module ..." above its stack and version), that
// one first.
std::string DriverProcess::stderr_tail(int n) const {
  const auto says_error = [](const std::string& line) {
    static const std::regex error(R"(^\s*(\w*(Error|Exception)\b|Traceback|.*\berror:))", std::regex::icase);
    return std::regex_search(line, error);
  };
  std::ifstream in(stderr_file_);
  std::deque<std::string> last;
  std::string error_above;
  for (std::string line; std::getline(in, line);) {
    const auto text = line.find_first_not_of(" \t\r");
    if (text == std::string::npos) continue;
    last.push_back(line.substr(text));
    if (static_cast<int>(last.size()) > n) {
      if (says_error(last.front())) error_above = last.front();
      last.pop_front();
    }
  }
  std::string out;
  if (!error_above.empty() && std::none_of(last.begin(), last.end(), says_error)) out = error_above + " | ...";
  for (const std::string& l : last) out += (out.empty() ? "" : " | ") + l;
  return out;
}

}  // namespace semsim
