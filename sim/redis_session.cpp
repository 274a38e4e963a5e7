#include "sim/redis_session.h"

#include <cstdlib>
#include <unistd.h>

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
  // The pid tells apart semsim processes sharing one server; the counter, runs of one process.
  return "semsim:" + std::to_string(getpid()) + "-" + std::to_string(++runs_) + ":";
}

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
