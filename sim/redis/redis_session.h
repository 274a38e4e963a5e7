// The Redis a semsim process works against: an embedded server it starts itself (the default),
// or the user's (--redis). Each run gets its own key prefix; only keys under it are written and,
// at the end, deleted. A server semsim did not start is never flushed.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "sim/core/server_control.h"
#include "sim/core/server_setup.h"
#include "sim/redis/embedded_redis.h"
#include "sim/redis/redis_link.h"

namespace semsim {

class RedisSession final : public ServerControl {
 public:
  // url "" starts the embedded server, set up as `setup` says; "sentinel://HOST:PORT,.../MASTER"
  // finds the user's primary through their sentinels (again at every reconnection). Throws
  // EmbeddedRedisError, LinkError or std::invalid_argument (a setup other than the default on a
  // user's server).
  explicit RedisSession(const std::string& url, const ServerSetup& setup = {});
  ~RedisSession() override;

  // Before a run: the embedded server set up as the run asks, started afresh if its setup differs
  // or a fault changed it (a failover). Throws as the constructor does.
  void use_setup(const ServerSetup& setup);

  // Connects again first if a fault that failed left no link (throws as the constructor does).
  RedisLink& link() override;
  // Server faults (ServerControl): the embedded server only; a user's server throws
  // std::logic_error (runs refuse server faults there before they start).
  void restart() override;
  void go_down() override;
  void come_back() override;
  void cut_off_replica() override;
  void fail_over() override;
  void reconnect() override;
  void unblock() override;

  // Redlock runs (--masters N): masters 2..N, each a session of its own: an embedded server with
  // its own directory, clock and persistence (setups[1..]), or the user's Redis at urls[0..]
  // (--redis given N times) when this session is the user's. Master 1 is this session, set up by
  // use_setup. Masters beyond the run's are stopped. Throws as the constructor does.
  void use_masters(const std::vector<ServerSetup>& setups, const std::vector<std::string>& urls);
  int masters() const { return 1 + static_cast<int>(others_.size()); }
  // Master `m` (0-based; 0 is this session).
  RedisSession& master(int m) { return m == 0 ? *this : *others_.at(static_cast<std::size_t>(m - 1)); }

  const std::string& server_version() const { return version_; }
  // Where the primary is now (after a failover: the promoted one): its address for a process of
  // one's own (a driver) to connect to.
  const RedisTarget& target() const { return target_; }
  std::string describe() const;  // "embedded redis-server 7.0.15" / "redis 7.2.4 at unix:///..."
  // The session starts its own servers (no URL): so it stays when a start failed and embedded_ is
  // empty until the next use_setup starts one again.
  bool embedded() const { return own_server_; }
  // Redis's clock, on the embedded server when the clock library was found; else null.
  RedisClock* clock() const { return embedded_ ? embedded_->clock() : nullptr; }

  // The core of this session's job when several run at once (check/compare --jobs): runs in
  // virtual time share it with the embedded server (shared_core.h). Unset: wherever the run's
  // thread is when it starts.
  void set_home_core(int cpu) { home_core_ = cpu; }
  std::optional<int> home_core() const { return home_core_; }
  // Pins the embedded server's processes to `cpu` (nullopt: unpins them); while pinned the link
  // sleeps rather than spins as it waits. Whether it took (never on a user's server).
  bool pin_server(std::optional<int> cpu);

  // The safety net's expiry (key_safety_net.h) on this session's link, and on every link it opens
  // after a fault; a null deadline turns it off. This master only: each has its own net and clock.
  void give_keys_expiry(std::string prefix, std::shared_ptr<const std::atomic<std::int64_t>> deadline);

  // A fresh prefix "semsim:<run-id>:" for one run. On the embedded server, given the run's seed,
  // the run id follows from it (a virtual run's history, where a driver's library quotes its key,
  // is then the same bytes for the same seed); drawn from the OS otherwise, or when that one is taken.
  std::string new_prefix(std::optional<std::uint64_t> seed = std::nullopt);
  // After a command timeout: SCRIPT KILL, so that a script of the run that never returns does not
  // leave the server busy for ever (on a user's server too: the run's script is what keeps it busy).
  // This master only (master(m) for the others).
  ScriptKill kill_running_script();
  // Deletes the keys of a prefix (SCAN + UNLINK), reconnecting if the link broke: every key whose
  // name holds it, for a driver's library may put its own prefix before the run's key.
  void clean(const std::string& prefix);

 private:
  bool own_server_ = false;
  std::unique_ptr<EmbeddedRedis> embedded_;
  RedisTarget target_;
  std::unique_ptr<RedisLink> link_;
  std::string version_;
  bool changed_ = false;
  long long link_id_ = 0;  // CLIENT ID of link_ on the embedded server, for unblock()
  std::optional<int> home_core_;
  bool pinned_ = false;  // the embedded server is on one core with the run's thread
  std::vector<RedisTarget> sentinels_;  // where to ask for the primary; empty: target_ is it
  std::string master_;
  RedisTarget data_node_;  // credentials and database for the primary the sentinels name
  std::vector<std::unique_ptr<RedisSession>> others_;  // masters 2..N
  std::vector<std::string> other_urls_;                // the user's, for masters 2..N
  std::string expiry_prefix_;
  std::shared_ptr<const std::atomic<std::int64_t>> expiry_deadline_;
  void connect();  // a fault left the topology other than its setup says
  // link_ anew to target_, sleeping or spinning as pinned_ says.
  void open_link(int tolerated_interrupts);
};

}  // namespace semsim
