#include "sim/redis/embedded_redis.h"

#include "sim/core/fork_for_exec.h"
#include "sim/core/interrupt.h"
#include "sim/redis/clock_library/clock_page.h"
#include "sim/redis/redis_clock.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>
#include <vector>

#include "sim/redis/redis_link.h"
#include "sim/redis/sentinel.h"

namespace semsim {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;
using std::chrono::steady_clock;

// A (re)start is a real process on a busy machine: a search of five masters restarting them at once
// beside other tests once took more than 5 s to show its socket (the reruns took a fraction of it).
constexpr milliseconds start_timeout{15000};
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

// Binds a loopback TCP socket to `port` (0: one the kernel picks) as redis-server will
// (SO_REUSEADDR) and closes it: the port it got, or -1 (errno says why) when it could not.
int try_loopback_port(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw EmbeddedRedisError(std::string("cannot open a socket: ") + std::strerror(errno));
  const int on = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  socklen_t length = sizeof address;
  const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
                  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0;
  const int error = errno;
  ::close(fd);
  errno = error;
  return ok ? ntohs(address.sin_port) : -1;
}

// A free loopback TCP port, for replication (Redis replicates over TCP only). Below the kernel's
// ephemeral range: a port from bind(0) comes from that range, and so does the source port of
// every outgoing connection (a replica reconnecting to its primary, a proxy, another job), which
// took such a port between the pick and redis-server's bind ("Address already in use") under
// check --server-faults --jobs 2. The port is free when asked; a clash at the first start picks
// another (start_on_a_free_port), a few times, then is a clear start-up error.
int free_loopback_port() {
  int ephemeral_low = 32768;  // Linux's default when the file cannot be read
  std::ifstream("/proc/sys/net/ipv4/ip_local_port_range") >> ephemeral_low;
  constexpr int kLowest = 10000;
  if (ephemeral_low - 1 > kLowest) {
    // Where to start looking: the process and the instant spread concurrent jobs and runs apart
    // (no simulation draws from this; which port carries replication changes no history).
    const auto span = static_cast<std::uint64_t>(ephemeral_low - kLowest);
    const auto spread = static_cast<std::uint64_t>(::getpid()) * 40503u +
                        static_cast<std::uint64_t>(steady_clock::now().time_since_epoch().count() / 1000);
    for (std::uint64_t attempt = 0; attempt < 100; ++attempt) {
      const int port = kLowest + static_cast<int>((spread + attempt * 7919u) % span);
      if (try_loopback_port(port) == port) return port;
    }
  }
  const int port = try_loopback_port(0);
  if (port < 0) throw EmbeddedRedisError(std::string("cannot find a free loopback port: ") + std::strerror(errno));
  return port;
}

std::string info_field(RedisLink& link, const std::string& section, const std::string& field) {
  const Reply r = link.execute({{"INFO", section}}).at(0);
  const std::string key = field + ":";
  const auto at = r.text.find(key);
  if (at == std::string::npos) return {};
  const auto end = r.text.find_first_of("\r\n", at);
  return r.text.substr(at + key.size(), end - at - key.size());
}

Reply must(RedisLink& link, Command command, const std::string& what) {
  const Reply r = link.execute({std::move(command)}).at(0);
  if (r.is_error()) throw EmbeddedRedisError(what + ": " + r.text);
  return r;
}

}  // namespace

EmbeddedRedis::EmbeddedRedis(ServerSetup setup, PortPicker pick_port)
    : setup_(std::move(setup)), pick_port_(pick_port ? std::move(pick_port) : PortPicker(free_loopback_port)) {
  if (::sched_getaffinity(0, sizeof free_cpus_, &free_cpus_) != 0) CPU_ZERO(&free_cpus_);  // empty: unknown
  cpus_ = free_cpus_;
  binary_ = find_on_path("redis-server");
  if (binary_.empty())
    throw EmbeddedRedisError(
        "redis-server not found on PATH; install it: sudo apt-get install redis-server");

  dir_ = make_private_directory();
  watchdog_ = start_watchdog(dir_);
  try {
    // Redis's clock in virtual time (sim/redis/redis_clock.h): one control page for every server.
    if (!clock_library().empty()) clock_ = std::make_unique<RedisClock>(fs::path(dir_) / "clock");
    if (setup_.sentinel) setup_.replicas = std::max(setup_.replicas, 2);
    const bool replicated = setup_.replicas > 0;
    servers_.push_back({"redis", dir_, dir_ + "/redis.sock", replicated ? pick_port_() : 0});
    for (int i = 1; i <= setup_.replicas; ++i) {
      const std::string name = "replica-" + std::to_string(i);
      fs::create_directory(fs::path(dir_) / name);
      servers_.push_back({name, dir_ + "/" + name, dir_ + "/" + name + ".sock", pick_port_(), -1, true});
    }
    for (Server& server : servers_) start_on_a_free_port(server);
    wait_in_sync();
    if (setup_.sentinel) start_sentinels();
  } catch (...) {
    stop();
    throw;
  }
}

// A port picked free may be taken before redis-server binds it: by another job's servers picked
// in the same microseconds under check --jobs 2, or an outgoing connection. The first start then
// picks another (a few times): nothing has been told the port yet, the replicas start after their
// primary. A restart keeps its port (its replicas follow it there).
void EmbeddedRedis::start_on_a_free_port(Server& server) {
  for (int attempt = 1;; ++attempt) {
    try {
      start(server);
      return;
    } catch (const EmbeddedRedisError& e) {
      if (server.port == 0 || attempt == 5 || std::string_view(e.what()).find("Address already in use") == std::string_view::npos) throw;
      server.port = pick_port_();
    }
  }
}

void EmbeddedRedis::start(Server& server) {
  const bool primary = &server == &servers_[primary_];
  const std::string log_path = dir_ + "/" + server.name + ".log";
  std::vector<std::string> args = {binary_, "--port", std::to_string(server.port), "--unixsocket", server.socket,
                                   "--unixsocketperm", "700", "--save", "", "--dir", server.dir,
                                   "--daemonize", "no", "--loglevel", "warning", "--logfile", log_path,
                                   // A script running this long may be stopped with SCRIPT KILL
                                   // (--command-timeout): 100 ms, not the default 5 s.
                                   "--busy-reply-threshold", "100"};
  // Loopback only. A replica's first sync goes through a file: after a diskless one the primary
  // holds its writes back until the replica's next periodic ACK (up to a second later), and a
  // WAIT in between would wait for it.
  if (server.port != 0) args.insert(args.end(), {"--bind", "127.0.0.1", "--repl-diskless-sync", "no"});
  if (primary && setup_.persistence != Persistence::none)
    args.insert(args.end(), {"--appendonly", "yes", "--appendfsync",
                             setup_.persistence == Persistence::aof_always ? "always" : "everysec"});
  else
    args.insert(args.end(), {"--appendonly", "no"});
  if (setup_.maxmemory > 0)
    args.insert(args.end(), {"--maxmemory", std::to_string(setup_.maxmemory), "--maxmemory-policy", setup_.maxmemory_policy});
  if (server.following)
    args.insert(args.end(), {"--replicaof", "127.0.0.1", std::to_string(servers_[primary_].port)});
  // Redis's clock in virtual time: the clock library preloaded, its control page in the private
  // directory, and expiry lazy (DEBUG SET-ACTIVE-EXPIRE 0 below), so that a key expires exactly
  // when a command touches it, never by a background sweep on the wall clock.
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e)
    if (!std::string_view(*e).starts_with("LD_PRELOAD=") && !std::string_view(*e).starts_with(SEMSIM_CLOCK_ENV "="))
      env.emplace_back(*e);
  if (clock_) {
    env.push_back("LD_PRELOAD=" + clock_library().string());
    env.push_back(std::string(SEMSIM_CLOCK_ENV "=") + clock_->path().string());
    // The same file as a module: SEMSIM.AT sets the clock inside a pipeline (RedisClock::at).
    args.insert(args.end(), {"--enable-debug-command", "local", "--loadmodule", clock_library().string()});
  }
  start_process(server, std::move(args), std::move(env));
}

void EmbeddedRedis::start_process(Server& server, std::vector<std::string> args, std::vector<std::string> env) {
  const std::string log_path = dir_ + "/" + server.name + ".log";
  // Everything the child needs is built before fork(): after it, only async-signal-safe calls.
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

  // A SIGTERM from stop() (a Ctrl-C right now) that comes before the exec ends the child, rather
  // than reaching semsim's handler in it and being lost (fork_for_exec.h).
  pid_t child = fork_for_exec([&] {
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
    // Where the topology runs now, not wherever the forking thread happens to be pinned.
    if (CPU_COUNT(&cpus_) > 0) ::sched_setaffinity(0, sizeof cpus_, &cpus_);
  });
  if (child == 0) {
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  int fork_errno = errno;
  ::close(log_fd);
  ::close(null_fd);
  if (child < 0)
    throw EmbeddedRedisError(std::string("cannot fork redis-server: ") + std::strerror(fork_errno));
  server.pid = child;
  ::setpgid(child, child);  // also from this side, so it holds whoever runs first

  const auto deadline = steady_clock::now() + start_timeout;
  std::string last_error = "socket never appeared";
  for (;;) {
    int status = 0;
    if (::waitpid(server.pid, &status, WNOHANG) == server.pid) {
      server.pid = -1;
      throw EmbeddedRedisError(binary_ + " (" + server.name + ") " + describe_exit(status) + " at start; end of " +
                               log_path + ":" + log_tail(log_path));
    }
    if (fs::exists(server.socket)) {
      try {
        auto link = RedisLink::connect(target_of(server), milliseconds(500));
        // A restart with persistence answers LOADING until its data is back.
        if (link->execute({{"PING"}}).at(0).is_error()) throw LinkError("still loading");
        if (clock_ && !server.sentinel) must(*link, {"DEBUG", "SET-ACTIVE-EXPIRE", "0"}, "redis-server refused DEBUG SET-ACTIVE-EXPIRE 0");
        return;
      } catch (const LinkError& e) {
        last_error = e.what();
      }
    }
    if (int signal_number = interrupt_signal())
      throw Interrupted("interrupted by signal " + std::to_string(signal_number) + " while redis-server started");
    if (steady_clock::now() > deadline)
      throw EmbeddedRedisError(binary_ + " (" + server.name + ") did not answer PING within " +
                               std::to_string(start_timeout.count()) + " ms (" + last_error + "); end of " +
                               log_path + ":" + log_tail(log_path));
    nap();
  }
}

bool EmbeddedRedis::pin(std::optional<int> cpu) {
  if (CPU_COUNT(&free_cpus_) == 0) return false;
  cpus_ = free_cpus_;
  if (cpu) {
    CPU_ZERO(&cpus_);
    CPU_SET(*cpu, &cpus_);
  }
  bool took = true;
  for (const std::vector<Server>* group : {&servers_, &sentinels_})
    for (const Server& server : *group)
      if (server.pid > 0) took &= ::sched_setaffinity(server.pid, sizeof cpus_, &cpus_) == 0;
  return took;
}

void EmbeddedRedis::wait_in_sync() {
  // In sync on both sides: each replica's link is up, and the primary counts it online (it
  // sends a WAIT's GETACK only to those).
  const std::size_t want = static_cast<std::size_t>(replicas_following());
  auto primary = RedisLink::connect(target(), milliseconds(500));
  const auto deadline = steady_clock::now() + start_timeout;
  for (;;) {
    const std::string info = primary->execute({{"INFO", "replication"}}).at(0).text;
    std::size_t online = 0;
    for (auto at = info.find("state=online"); at != std::string::npos; at = info.find("state=online", at + 1)) ++online;
    bool links_up = true;
    for (const Server& replica : servers_)
      if (replica.following)
        links_up = links_up && info_field(*RedisLink::connect(target_of(replica), milliseconds(500)), "replication",
                                          "master_link_status") == "up";
    if (online == want && links_up) return;
    if (int signal_number = interrupt_signal())
      throw Interrupted("interrupted by signal " + std::to_string(signal_number) + " while replicas synchronised");
    if (steady_clock::now() > deadline)
      throw EmbeddedRedisError("the replicas did not synchronise with the primary within " +
                               std::to_string(start_timeout.count()) + " ms (" + std::to_string(online) + " of " +
                               std::to_string(want) + " online); end of the primary's log:" +
                               log_tail(dir_ + "/" + servers_[primary_].name + ".log"));
    nap();
  }
}

void EmbeddedRedis::start_sentinels() {
  // On their real clocks (no clock library): they time the primary's silence and their election.
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e)
    if (!std::string_view(*e).starts_with("LD_PRELOAD=")) env.emplace_back(*e);
  for (int i = 1; i <= 3; ++i) {
    const std::string name = "sentinel-" + std::to_string(i);
    Server sentinel{name, dir_ + "/" + name, dir_ + "/" + name + ".sock", pick_port_(), -1, false, true};
    fs::create_directory(sentinel.dir);
    std::ofstream conf(sentinel.dir + "/sentinel.conf");
    conf << "port " << sentinel.port << "\nbind 127.0.0.1\nunixsocket " << sentinel.socket << "\nunixsocketperm 700\n"
         << "dir " << sentinel.dir << "\nlogfile " << dir_ << "/" << name << ".log\nloglevel warning\n"
         << "sentinel monitor " << kSentinelMaster << " 127.0.0.1 " << servers_[primary_].port << " 2\n"
         << "sentinel down-after-milliseconds " << kSentinelMaster << " 500\n"
         << "sentinel failover-timeout " << kSentinelMaster << " 5000\n";
    if (!conf.flush()) throw EmbeddedRedisError("cannot write " + sentinel.dir + "/sentinel.conf");
    sentinels_.push_back(sentinel);
    start_process(sentinels_.back(), {binary_, sentinel.dir + "/sentinel.conf", "--sentinel"}, env);
  }
  // They agree once each knows the other two and both replicas.
  const auto deadline = steady_clock::now() + milliseconds(15000);
  for (const Server& sentinel : sentinels_) {
    auto link = RedisLink::connect(target_of(sentinel));
    for (;;) {
      const Reply master = link->execute({{"SENTINEL", "MASTER", kSentinelMaster}}).at(0);
      std::map<std::string, std::string> fields;
      for (std::size_t i = 0; i + 1 < master.elements.size(); i += 2) fields[master.elements[i].text] = master.elements[i + 1].text;
      if (fields["num-other-sentinels"] == "2" && fields["num-slaves"] == std::to_string(setup_.replicas)) break;
      if (int signal_number = interrupt_signal())
        throw Interrupted("interrupted by signal " + std::to_string(signal_number) + " while the sentinels started");
      if (steady_clock::now() > deadline)
        throw EmbeddedRedisError("the sentinels did not agree on the topology within 15 s; end of " + sentinel.name +
                                 "'s log:" + log_tail(dir_ + "/" + sentinel.name + ".log"));
      nap();
    }
  }
}

std::vector<RedisTarget> EmbeddedRedis::sentinels() const {
  std::vector<RedisTarget> out;
  for (const Server& s : sentinels_) {
    RedisTarget t;
    t.host = "127.0.0.1";
    t.port = s.port;
    out.push_back(t);
  }
  return out;
}

void EmbeddedRedis::fail_over_by_sentinels() {
  const int old_port = servers_.at(primary_).port;
  kill_server(servers_.at(primary_));
  servers_.at(primary_).following = false;
  // Until a majority has seen the primary gone for down-after-milliseconds and elected a leader,
  // who promotes a replica: seconds, in real time.
  const auto deadline = steady_clock::now() + milliseconds(30000);
  for (;;) {
    const RedisTarget now = primary_from_sentinels(sentinels(), kSentinelMaster);
    if (now.port != old_port) {
      const auto promoted = std::find_if(servers_.begin(), servers_.end(), [&](const Server& s) { return s.port == now.port; });
      if (promoted == servers_.end()) throw EmbeddedRedisError("the sentinels promoted an unknown server, port " + std::to_string(now.port));
      auto link = RedisLink::connect(target_of(*promoted));
      if (info_field(*link, "replication", "role") == "master") {
        promoted->following = false;
        primary_ = static_cast<std::size_t>(promoted - servers_.begin());
        return;
      }
    }
    if (int signal_number = interrupt_signal())
      throw Interrupted("interrupted by signal " + std::to_string(signal_number) + " during a failover");
    if (steady_clock::now() > deadline) throw EmbeddedRedisError("the sentinels did not elect a new primary within 30 s");
    std::this_thread::sleep_for(milliseconds(50));
  }
}

int EmbeddedRedis::replicas_following() const {
  return static_cast<int>(std::count_if(servers_.begin(), servers_.end(), [](const Server& s) { return s.following; }));
}

void EmbeddedRedis::restart_primary() {
  stop_primary();
  start_primary();
}

void EmbeddedRedis::stop_primary() {
  Server& primary = servers_.at(primary_);
  kill_server(primary);
  // Without persistence nothing comes back, not even the snapshot a replica's sync left behind.
  std::error_code ignored;
  if (setup_.persistence == Persistence::none) fs::remove(fs::path(primary.dir) / "dump.rdb", ignored);
}

void EmbeddedRedis::start_primary() {
  Server& primary = servers_.at(primary_);
  if (primary.pid > 0) return;
  start(primary);
  wait_in_sync();
}

void EmbeddedRedis::cut_off_replica() {
  if (setup_.sentinel) return;  // what the new primary holds is up to real replication
  const auto replica = std::find_if(servers_.begin(), servers_.end(), [](const Server& s) { return s.following; });
  if (replica == servers_.end()) throw EmbeddedRedisError("no replica follows the primary: nothing to cut off");
  auto primary = RedisLink::connect(target());
  auto link = RedisLink::connect(target_of(*replica));
  // Caught up: it has processed the primary's whole replication stream so far.
  const long long offset = std::stoll(info_field(*primary, "replication", "master_repl_offset"));
  const auto caught_up_by = steady_clock::now() + start_timeout;
  while (std::stoll("0" + info_field(*link, "replication", "slave_repl_offset")) < offset) {
    if (steady_clock::now() > caught_up_by)
      throw EmbeddedRedisError(replica->name + " did not catch up with the primary within " +
                               std::to_string(start_timeout.count()) + " ms");
    nap();
  }
  must(*link, {"REPLICAOF", "NO", "ONE"}, replica->name + ": REPLICAOF NO ONE");
  replica->following = false;
  // Once the primary has seen it go, a WAIT there can no longer count it (deterministically).
  const std::string still = std::to_string(replicas_following());
  const auto deadline = steady_clock::now() + start_timeout;
  while (info_field(*primary, "replication", "connected_slaves") != still) {
    if (steady_clock::now() > deadline) throw EmbeddedRedisError("the primary did not notice " + replica->name + " leave");
    nap();
  }
  cut_off_ = static_cast<std::size_t>(replica - servers_.begin());
}

void EmbeddedRedis::fail_over() {
  if (setup_.sentinel) return fail_over_by_sentinels();
  if (cut_off_ == 0) throw EmbeddedRedisError("no replica was cut off to take over");
  kill_server(servers_.at(primary_));
  primary_ = std::exchange(cut_off_, 0);
  for (Server& replica : servers_) {
    if (!replica.following) continue;
    auto link = RedisLink::connect(target_of(replica));
    must(*link, {"REPLICAOF", "127.0.0.1", std::to_string(servers_[primary_].port)}, replica.name + ": REPLICAOF");
  }
  wait_in_sync();
}

EmbeddedRedis::~EmbeddedRedis() { stop(); }

void EmbeddedRedis::kill_server(Server& server) noexcept {
  if (server.pid <= 0) return;
  ::kill(server.pid, SIGKILL);
  while (::waitpid(server.pid, nullptr, 0) < 0 && errno == EINTR) {
  }
  server.pid = -1;
  std::error_code ignored;
  fs::remove(server.socket, ignored);  // so that a restart waits for the new one
}

void EmbeddedRedis::stop() noexcept {
  if (clock_) clock_->release();  // shut down on the real clock
  for (Server& sentinel : sentinels_) kill_server(sentinel);  // first: no failover while the rest stops
  for (Server& server : servers_) {
    if (server.pid <= 0) continue;
    ::kill(server.pid, SIGTERM);
    const auto deadline = steady_clock::now() + stop_timeout;
    int status = 0;
    pid_t reaped = 0;
    while ((reaped = ::waitpid(server.pid, &status, WNOHANG)) == 0 && steady_clock::now() < deadline) nap();
    if (reaped == 0) kill_server(server);
    server.pid = -1;
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

RedisTarget EmbeddedRedis::target_of(const Server& server) {
  RedisTarget t;
  t.unix_path = server.socket;
  return t;
}

}  // namespace semsim
