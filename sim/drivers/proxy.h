// What a driver's proxy is, whether it runs in real time (client_proxy.h) or in warp's virtual time
// (warp_proxy.h): where Redis is, who may use it and what they may send, what it counts, and the
// faults a network makes.
#pragma once

#include <sys/types.h>
#include <unistd.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace semsim {

// Where Redis is, as a proxy connects to it: a unix socket or a TCP address, and the commands the
// proxy sends first on every new connection (AUTH, SELECT), whose replies it swallows.
struct Endpoint {
  std::string unix_path;
  std::string host;
  int port = 0;
  std::vector<std::vector<std::string>> hello;
  std::string describe() const;
};

// The endpoint proxies connect to, which a failover changes (set on the run's thread, read on
// the proxies').
class Upstream {
 public:
  explicit Upstream(Endpoint endpoint) : endpoint_(std::move(endpoint)) {}
  void set(Endpoint endpoint);
  Endpoint get() const;

 private:
  mutable std::mutex lock_;
  Endpoint endpoint_;
};

// Who may use a proxy and what it may send there.
struct ProxyRules {
  std::string run_key;       // every key a command names must contain it (SEMSIM_KEY)
  pid_t owner = ::getpid();  // connections only from this process and its descendants
  bool read_scripts = false; // the user's Redis: scripts are read before they run (ScriptScreen)
};

// On the user's Redis a driver's scripts are read before anything of them is passed on
// (algorithms/api/lua_policy.h): EVAL's and SCRIPT LOAD's bodies must keep the rule; EVALSHA runs
// only a script this proxy has read (another is sent as a SHA1 no script has, so Redis answers
// NOSCRIPT and the library sends the body, as libraries do after a restart); FCALL is refused (a
// function of the server's, which the run cannot have loaded: FUNCTION is refused).
class ScriptScreen {
 public:
  // Why `words` may not run ("" if they may); `bytes` (the command on the wire) may be rewritten.
  std::string screen(std::vector<std::string>& words, std::string& bytes);

 private:
  std::vector<std::string> read_;  // SHA1s of the bodies passed, sorted
};

struct ProxyStats {
  std::uint64_t commands = 0;     // Redis commands the client sent (RESP) and the proxy passed on, its own excluded
  std::uint64_t connections = 0;  // connections the client opened
  std::uint64_t outsiders = 0;    // connections from another process than the run's, closed at once (not in `connections`)
  std::uint64_t refused_commands = 0;  // commands not passed on (each closed its connection)
  std::uint64_t refused = 0;      // of which Redis could not be reached (the client saw it closed)
  std::uint64_t cuts = 0;         // connections dropped by a cut
  std::int64_t late_max_ns = 0;   // the most a piece of data left after its due instant (load)
};

// One client's proxy to one master, as the run acts on it.
class Proxy {
 public:
  virtual ~Proxy() = default;
  // host:port for the driver (SEMSIM_REDIS).
  virtual std::string address() const = 0;
  // Faults. Each returns the instant (ns, the run's clock) it landed.
  virtual std::int64_t cut() = 0;                                 // every connection drops now; data in flight is lost
  virtual std::int64_t partition(std::int64_t until_ns) = 0;      // nothing passes either way before then
  virtual std::int64_t hold_outbound(std::int64_t until_ns) = 0;  // nothing reaches Redis before then
  virtual ProxyStats stats() const = 0;
  // The first command refused, and why ("the driver sent CONFIG GET, ..."); "" while none was.
  virtual std::string refusal() const = 0;
};

// A listening TCP socket on 127.0.0.1, a free port (set in `port`), non-blocking; throws when it
// cannot be made. Where a client's proxy waits for its driver.
int listen_on_loopback(int& port);

// A blocking connect to Redis (local: quick); -1 when it cannot be reached.
int connect_to(const Endpoint& e);

// Why a driver may not send `words` ("" if it may): the rule of algorithms/api/command_policy.h,
// each key containing `run_key`.
std::string refused_command(const std::vector<std::string>& words, const std::string& run_key);

// The message a run ends on when a proxy refused a command for `why`.
std::string refusal_message(const std::string& why);

// Whether the connection `fd` comes from `owner` or one of its descendants (docs/drivers.md, what a
// driver may send); nullopt when the peer closed it already.
std::optional<bool> from_the_run(int fd, pid_t owner);

}  // namespace semsim
