#include "sim/embedded_redis.h"

#include "sim/interrupt.h"
#include "sim/redis_clock.h"
#include "sim/redis_clock/clock_page.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "sim/redis_link.h"

namespace semsim {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;
using std::chrono::steady_clock;

constexpr milliseconds start_timeout{5000};
constexpr milliseconds stop_timeout{3000};

// Looked up here rather than by execvp so that a missing binary is a clear error in the parent,
// not an exit status of a forked child.
std::string find_on_path(const std::string& name) {
  const char* env = std::getenv("PATH");
  std::string path = env != nullptr ? env : "/usr/local/bin:/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    std::string dir = path.substr(start, end - start);
    std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + name;
    struct stat info {};
    if (::stat(candidate.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
        ::access(candidate.c_str(), X_OK) == 0)
      return candidate;
    start = end + 1;
  }
  return {};
}

// $TMPDIR unless the socket path would not fit in sockaddr_un (then /tmp).
std::string make_private_directory() {
  const char* env = std::getenv("TMPDIR");
  std::string base = env != nullptr && *env != '\0' ? env : "/tmp";
  constexpr std::size_t socket_path_max = sizeof(sockaddr_un::sun_path) - 1;
  if (base.size() + std::strlen("/semsim-redis-XXXXXX/redis.sock") > socket_path_max) base = "/tmp";
  std::string dir = base + "/semsim-redis-XXXXXX";
  if (::mkdtemp(dir.data()) == nullptr)
    throw EmbeddedRedisError("cannot create a temporary directory under " + base + ": " +
                             std::strerror(errno));
  return dir;
}

std::string log_tail(const std::string& log_path, std::size_t max_lines = 15) {
  std::ifstream in(log_path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    lines.push_back(line);
    if (lines.size() > max_lines) lines.erase(lines.begin());
  }
  std::string out;
  for (const auto& line : lines) out += "\n  " + line;
  return out.empty() ? "\n  (redis.log is empty)" : out;
}

std::string describe_exit(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return std::string("was killed by signal ") + strsignal(WTERMSIG(status));
  return "stopped";
}

// Real process start-up and shutdown happen outside simulated time: this file may sleep.
void nap() { std::this_thread::sleep_for(milliseconds(5)); }

// A process that waits for semsim to die (PR_SET_PDEATHSIG) and then removes `dir`: the one
// clean-up that a SIGKILLed semsim cannot do itself. On a normal exit semsim kills it first.
pid_t start_watchdog(const std::string& dir) {
  const pid_t parent = ::getpid();
  sigset_t term;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  const pid_t child = ::fork();
  if (child != 0) return child;  // the parent, or -1: then there is simply no watchdog
  ::sigprocmask(SIG_BLOCK, &term, nullptr);
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  ::setpgid(0, 0);  // Ctrl-C goes to semsim alone
  ::signal(SIGINT, SIG_IGN);
  const int null_fd = ::open("/dev/null", O_RDWR);
  ::dup2(null_fd, STDIN_FILENO);
  ::dup2(null_fd, STDOUT_FILENO);
  ::dup2(null_fd, STDERR_FILENO);
  ::close_range(3, ~0U, 0);  // hold no pipe or socket of semsim's open
  if (::getppid() == parent) {
    int signal = 0;
    ::sigwait(&term, &signal);
  }
  // semsim is gone; its server dies by its own PDEATHSIG. Let it go, then clean up.
  std::this_thread::sleep_for(milliseconds(100));
  std::error_code ignored;
  fs::remove_all(dir, ignored);
  ::_exit(0);
}

}  // namespace

EmbeddedRedis::EmbeddedRedis() {
  std::string binary = find_on_path("redis-server");
  if (binary.empty())
    throw EmbeddedRedisError(
        "redis-server not found on PATH; install it: sudo apt-get install redis-server");

  dir_ = make_private_directory();
  watchdog_ = start_watchdog(dir_);
  try {
    const std::string socket_path = dir_ + "/redis.sock";
    const std::string log_path = dir_ + "/redis.log";
    // Everything the child needs is built before fork(): after it, only async-signal-safe calls.
    std::vector<std::string> args = {binary,         "--port",          "0",
                                     "--unixsocket", socket_path,       "--unixsocketperm",
                                     "700",          "--save",          "",
                                     "--appendonly", "no",              "--dir",
                                     dir_,           "--daemonize",     "no",
                                     "--loglevel",   "warning",         "--logfile",
                                     log_path,
                                     // A script running this long may be stopped with SCRIPT KILL
                                     // (--command-timeout): 100 ms, not the default 5 s.
                                     "--busy-reply-threshold", "100"};
    // Redis's clock in virtual time (sim/redis_clock.h): the clock library preloaded, its control
    // page in this private directory, and expiry lazy (DEBUG SET-ACTIVE-EXPIRE 0 below), so that
    // a key expires exactly when a command touches it, never by a background sweep on the wall clock.
    std::vector<std::string> env;
    for (char** e = environ; *e; ++e)
      if (!std::string_view(*e).starts_with("LD_PRELOAD=") && !std::string_view(*e).starts_with(SEMSIM_CLOCK_ENV "="))
        env.emplace_back(*e);
    if (const fs::path library = clock_library(); !library.empty()) {
      clock_ = std::make_unique<RedisClock>(fs::path(dir_) / "clock");
      env.push_back("LD_PRELOAD=" + library.string());
      env.push_back(std::string(SEMSIM_CLOCK_ENV "=") + clock_->path().string());
      args.insert(args.end(), {"--enable-debug-command", "local"});
    }
    std::vector<char*> argv, envp;
    for (auto& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    for (auto& e : env) envp.push_back(e.data());
    envp.push_back(nullptr);
    // Early failures (a bad option) go to stderr before the log file is open: send both there.
    int log_fd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (log_fd < 0 || null_fd < 0)
      throw EmbeddedRedisError("cannot open " + log_path + ": " + std::strerror(errno));
    const pid_t parent = ::getpid();

    pid_t child = ::fork();
    if (child == 0) {
      // Dies with semsim even on SIGKILL; the getppid check closes the race where the parent
      // died before prctl. (The signal follows the forking *thread*: create this on the main one.)
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(127);
      // Its own process group: Ctrl-C reaches semsim only, which then stops this server itself.
      ::setpgid(0, 0);
      ::signal(SIGINT, SIG_IGN);
      ::dup2(null_fd, STDIN_FILENO);
      ::dup2(log_fd, STDOUT_FILENO);
      ::dup2(log_fd, STDERR_FILENO);
      ::close_range(3, ~0U, 0);  // no inherited sockets of semsim's (its links to Redis)
      ::execve(argv[0], argv.data(), envp.data());
      ::_exit(127);
    }
    int fork_errno = errno;
    ::close(log_fd);
    ::close(null_fd);
    if (child < 0)
      throw EmbeddedRedisError(std::string("cannot fork redis-server: ") + std::strerror(fork_errno));
    pid_ = child;
    ::setpgid(child, child);  // also from this side, so it holds whoever runs first

    const RedisTarget unix_target = target();
    const auto deadline = steady_clock::now() + start_timeout;
    std::string last_error = "socket never appeared";
    for (;;) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        throw EmbeddedRedisError(binary + " " + describe_exit(status) +
                                 " at start; end of " + log_path + ":" + log_tail(log_path));
      }
      if (fs::exists(socket_path)) {
        try {
          auto link = RedisLink::connect(unix_target, milliseconds(500));
          if (clock_) {
            const Reply r = link->execute({{"DEBUG", "SET-ACTIVE-EXPIRE", "0"}}).at(0);
            if (r.is_error()) throw EmbeddedRedisError("redis-server refused DEBUG SET-ACTIVE-EXPIRE 0: " + r.text);
          }
          return;
        } catch (const LinkError& e) {
          last_error = e.what();
        }
      }
      if (int signal_number = interrupt_signal())
        throw Interrupted("interrupted by signal " + std::to_string(signal_number) + " while redis-server started");
      if (steady_clock::now() > deadline)
        throw EmbeddedRedisError(binary + " did not answer PING within " +
                                 std::to_string(start_timeout.count()) + " ms (" + last_error +
                                 "); end of " + log_path + ":" + log_tail(log_path));
      nap();
    }
  } catch (...) {
    stop();
    throw;
  }
}

EmbeddedRedis::~EmbeddedRedis() { stop(); }

void EmbeddedRedis::stop() noexcept {
  if (clock_) clock_->release();  // shut down on the real clock
  if (pid_ > 0) {
    ::kill(pid_, SIGTERM);
    const auto deadline = steady_clock::now() + stop_timeout;
    int status = 0;
    pid_t reaped = 0;
    while ((reaped = ::waitpid(pid_, &status, WNOHANG)) == 0 && steady_clock::now() < deadline) nap();
    if (reaped == 0) {
      ::kill(pid_, SIGKILL);
      while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
      }
    }
    pid_ = -1;
  }
  if (!dir_.empty()) {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
    dir_.clear();
  }
  if (watchdog_ > 0) {
    ::kill(watchdog_, SIGKILL);
    while (::waitpid(watchdog_, nullptr, 0) < 0 && errno == EINTR) {
    }
    watchdog_ = -1;
  }
}

RedisTarget EmbeddedRedis::target() const {
  RedisTarget t;
  t.unix_path = dir_ + "/redis.sock";
  return t;
}

}  // namespace semsim
