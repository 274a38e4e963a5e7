// The private Redis that semsim starts itself: a primary redis-server on a unix socket in a fresh
// temporary directory, and as many replicas as the setup asks for (REPLICAOF over loopback TCP,
// the only way Redis replicates; no TCP port at all without replicas). Persistence as the setup
// says (none by default). Stopped, and its directory removed, when this object dies; the children
// also die with semsim (PR_SET_PDEATHSIG), so none is ever orphaned, and a small watchdog process
// removes the directory even when semsim is killed outright.
//
// Server faults act on it: the primary crashes and restarts on its own data directory, a replica
// is cut off from the primary after catching up, and a failover kills the primary and promotes
// that replica.
#pragma once

#include <sched.h>

#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <sys/types.h>

#include <vector>

#include "sim/core/server_setup.h"
#include "sim/redis/redis_clock.h"
#include "sim/redis/redis_target.h"

namespace semsim {

// redis-server is not on PATH, or did not start: the message says how to fix it (exit 2).
struct EmbeddedRedisError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class EmbeddedRedis {
 public:
  // Picks a loopback TCP port that is free when asked, for a server that replicates and for a
  // sentinel (others listen on their socket only). Tests inject one to force a clash.
  using PortPicker = std::function<int()>;
  // Starts redis-server from PATH (the primary, then the replicas) and waits until each answers
  // PING and every replica is in sync. Throws EmbeddedRedisError. No picker: one below the
  // kernel's ephemeral range.
  explicit EmbeddedRedis(ServerSetup setup = {}, PortPicker pick_port = {});
  ~EmbeddedRedis();
  EmbeddedRedis(const EmbeddedRedis&) = delete;
  EmbeddedRedis& operator=(const EmbeddedRedis&) = delete;

  const ServerSetup& setup() const { return setup_; }
  // The primary (the promoted replica after a failover).
  RedisTarget target() const { return target_of(servers_.at(primary_)); }
  // The sentinels (--topology sentinel), over loopback TCP; empty otherwise.
  std::vector<RedisTarget> sentinels() const;
  pid_t pid() const { return servers_.at(primary_).pid; }
  const std::string& directory() const { return dir_; }
  // Redis's clock, when the clock library was found beside semsim; null otherwise. Every server
  // of the topology reads the same one.
  RedisClock* clock() const { return clock_.get(); }
  // Replicas still replicating from the primary.
  int replicas_following() const;
  // Every process of the topology on one core (shared_core.h), or back on the CPUs semsim had
  // when it started them (nullopt). Servers started later (a restart, a failover) follow.
  // Whether every process took it.
  bool pin(std::optional<int> cpu);

  // Faults. Each throws EmbeddedRedisError if the server does not come back as it should.
  // The primary is killed (SIGKILL, as a crash) and started again on its data directory: what it
  // holds then is what its persistence kept.
  void restart_primary();
  // The same in two steps (a restart with downtime): killed now, started again later; while it
  // is down its socket is gone, so connections are refused.
  void stop_primary();
  void start_primary();
  // The first replica still following waits until it has every write so far (WAIT), then stops
  // replicating (REPLICAOF NO ONE): it keeps exactly what the primary had at this moment.
  // Throws if no replica follows.
  void cut_off_replica();
  // The primary is killed; the replica cut off last becomes the primary, and the replicas still
  // following follow it. Throws if no replica was cut off. With sentinels, cutting off does
  // nothing and the sentinels elect the new primary (this waits until they agree on one).
  void fail_over();

 private:
  struct Server {
    std::string name;     // "redis" (the first primary), "replica-1", ...
    std::string dir;      // its data directory
    std::string socket;   // its unix socket
    int port = 0;         // loopback TCP port for replication; 0: none
    pid_t pid = -1;
    bool following = false;  // a replica replicating from the primary
    bool sentinel = false;   // a redis-sentinel process
  };
  void start_sentinels();
  void fail_over_by_sentinels();
  static RedisTarget target_of(const Server& server);
  void start(Server& server);
  void start_on_a_free_port(Server& server);  // the first start: another port if its own was taken
  void start_process(Server& server, std::vector<std::string> args, std::vector<std::string> env);
  void wait_in_sync();
  void kill_server(Server& server) noexcept;
  // Stops every server (SIGTERM, then SIGKILL after a bound) and removes the directory.
  void stop() noexcept;

  ServerSetup setup_;
  std::string binary_;
  PortPicker pick_port_;
  std::string dir_;
  std::vector<Server> servers_;
  std::vector<Server> sentinels_;
  std::size_t primary_ = 0;
  std::size_t cut_off_ = 0;  // the replica cut off last (0: none; servers_[0] is never one)
  pid_t watchdog_ = -1;  // removes dir_ if semsim dies without unwinding (SIGKILL)
  std::unique_ptr<RedisClock> clock_;
  cpu_set_t free_cpus_;  // semsim's CPUs when it started the topology (none: unknown, never pinned)
  cpu_set_t cpus_;       // where its processes run now: those, or the one core pinned to
};

}  // namespace semsim
