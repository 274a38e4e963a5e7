#include "sim/redis_session.h"

#include <cstdlib>
#include <sys/random.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "sim/interrupt.h"

namespace semsim {

namespace {
std::optional<std::string> password_from_environment() {
  const char* p = std::getenv("SEMSIM_REDIS_PASSWORD");
  if (!p || !*p) return std::nullopt;
  return std::string(p);
}
}  // namespace

RedisSession::RedisSession(const std::string& url) {
  if (url.empty()) {
    embedded_ = std::make_unique<EmbeddedRedis>();
    target_ = embedded_->target();
  } else {
    target_ = parse_redis_url(url, password_from_environment());
  }
  link_ = RedisLink::connect(target_);
  version_ = semsim::server_version(*link_);
}

RedisSession::~RedisSession() = default;

std::string RedisSession::describe() const {
  return embedded() ? "embedded redis-server " + version_ : "redis " + version_ + " at " + target_.describe();
}

std::string RedisSession::new_prefix() {
  // 64 random bits from the OS: unguessable, and unique across processes, containers and pid
  // namespaces (where every CI job may be pid 1). Not simulation randomness: no history holds it.
  std::uint64_t id = 0;
  if (::getrandom(&id, sizeof id, 0) != static_cast<ssize_t>(sizeof id))
    throw std::runtime_error(std::string("cannot draw a run id (getrandom): ") + std::strerror(errno));
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(id));
  const std::string prefix = std::string("semsim:") + hex + ":";
  // Another run's keys, or a stale run's: this run would read them as its own and delete them.
  if (keys_exist_with_prefix(*link_, prefix))
    throw std::runtime_error("keys under " + prefix + " already exist on " + describe() +
                             ": refusing to share them with another run");
  return prefix;
}

bool RedisSession::kill_running_script() { return embedded() && semsim::kill_running_script(target_); }

void RedisSession::clean(const std::string& prefix) {
  // A first Ctrl-C stopped the run (and may have closed the link); the cleanup goes on, on a new
  // link if need be, and only a further Ctrl-C stops it.
  const int tolerated = interrupt_count();
  try {
    link_->tolerate_interrupts(tolerated);
    delete_keys_with_prefix(*link_, prefix);
  } catch (const LinkError&) {
    link_ = RedisLink::connect(target_, std::chrono::seconds(5), tolerated);
    delete_keys_with_prefix(*link_, prefix);
  }
  link_->tolerate_interrupts(0);
}

}  // namespace semsim
