// The Redis a semsim process works against: an embedded server it starts itself (the default),
// or the user's (--redis). Each run gets its own key prefix; only keys under it are written and,
// at the end, deleted. A server semsim did not start is never flushed.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "sim/embedded_redis.h"
#include "sim/redis_link.h"

namespace semsim {

class RedisSession {
 public:
  // url "" starts the embedded server. Throws EmbeddedRedisError, LinkError or std::invalid_argument.
  explicit RedisSession(const std::string& url);
  ~RedisSession();

  RedisLink& link() { return *link_; }
  const std::string& server_version() const { return version_; }
  std::string describe() const;  // "embedded redis-server 7.0.15" / "redis 7.2.4 at unix:///..."
  bool embedded() const { return embedded_ != nullptr; }
  // Redis's clock, on the embedded server when the clock library was found; else null.
  RedisClock* clock() const { return embedded_ ? embedded_->clock() : nullptr; }

  // A fresh prefix "semsim:<run-id>:" for one run.
  std::string new_prefix();
  // After a command timeout: on the embedded server, kills a script that never returns so that
  // the server answers again (a user's server is left alone). Whether one was killed.
  bool kill_running_script();
  // Deletes the keys of a prefix (SCAN + UNLINK), reconnecting if the link broke.
  void clean(const std::string& prefix);

 private:
  std::unique_ptr<EmbeddedRedis> embedded_;
  RedisTarget target_;
  std::unique_ptr<RedisLink> link_;
  std::string version_;
  int runs_ = 0;
};

}  // namespace semsim
