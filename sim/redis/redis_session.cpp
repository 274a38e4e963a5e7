#include "sim/redis/redis_session.h"

#include <cstdlib>
#include <sys/random.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "sim/core/interrupt.h"
#include "sim/redis/sentinel.h"

namespace semsim {

namespace {
std::optional<std::string> password_from_environment(const char* name = "SEMSIM_REDIS_PASSWORD") {
  const char* p = std::getenv(name);
  if (!p || !*p) return std::nullopt;
  return std::string(p);
}
}  // namespace

RedisSession::RedisSession(const std::string& url, const ServerSetup& setup) {
  if (url.empty()) {
    own_server_ = true;
    embedded_ = std::make_unique<EmbeddedRedis>(setup);
    target_ = embedded_->target();
    sentinels_ = embedded_->sentinels();
    master_ = kSentinelMaster;
  } else {
    if (!setup.is_default())
      throw std::invalid_argument("--replicas, --persistence and --maxmemory set up the embedded Redis: not with --redis");
    if (url.starts_with("sentinel://")) {
      const std::string rest = url.substr(11);
      const auto slash = rest.rfind('/');
      if (slash == std::string::npos || slash + 1 == rest.size())
        throw std::invalid_argument(url + ": use sentinel://HOST:PORT,.../MASTER");
      sentinels_ = parse_sentinels(rest.substr(0, slash));
      // Sentinels with requirepass: their own password, from the environment too.
      for (RedisTarget& sentinel : sentinels_) sentinel.password = password_from_environment("SEMSIM_SENTINEL_PASSWORD");
      master_ = rest.substr(slash + 1);
      data_node_.password = password_from_environment();
      target_ = primary_from_sentinels(sentinels_, master_, data_node_);
    } else {
      target_ = parse_redis_url(url, password_from_environment());
    }
  }
  connect();
  version_ = semsim::server_version(*link_);
}

void RedisSession::connect() {
  link_.reset();
  // Through Sentinel, the primary is whichever the sentinels name now (after a failover: the new one).
  if (!sentinels_.empty()) target_ = primary_from_sentinels(sentinels_, master_, data_node_);
  open_link(0);
  if (embedded()) link_id_ = link_->execute({{"CLIENT", "ID"}}).at(0).integer;
}

void RedisSession::unblock() {
  if (!embedded()) return;  // a user's server runs on its own clock: its timeouts pass
  try {
    auto other = RedisLink::connect(target_, std::chrono::milliseconds(500));
    other->execute({{"CLIENT", "UNBLOCK", std::to_string(link_id_), "TIMEOUT"}}, std::chrono::milliseconds(500));
  } catch (const LinkError&) {
    // Busy in a script, not blocked: --command-timeout deals with that.
  }
}

RedisSession::~RedisSession() = default;

void RedisSession::open_link(int tolerated_interrupts) {
  link_ = RedisLink::connect(target_, std::chrono::seconds(5), tolerated_interrupts);
  link_->spin_while_waiting(!pinned_);
  link_->give_keys_expiry(expiry_prefix_, expiry_deadline_);
}

void RedisSession::give_keys_expiry(std::string prefix, std::shared_ptr<const std::atomic<std::int64_t>> deadline) {
  expiry_prefix_ = std::move(prefix);
  expiry_deadline_ = std::move(deadline);
  if (link_) link_->give_keys_expiry(expiry_prefix_, expiry_deadline_);
}

bool RedisSession::pin_server(std::optional<int> cpu) {
  if (!embedded_) return false;
  bool took = embedded_->pin(cpu);
  for (auto& other : others_) took &= other->pin_server(cpu);
  pinned_ = cpu && took;
  if (link_) link_->spin_while_waiting(!pinned_);
  return took;
}

void RedisSession::use_masters(const std::vector<ServerSetup>& setups, const std::vector<std::string>& urls) {
  const std::size_t more = std::max(setups.size(), urls.size() + 1) - 1;
  if (embedded() && !urls.empty()) throw std::invalid_argument("--redis given for some masters only: give it once per master");
  if (!embedded() && !sentinels_.empty() && more > 0) throw std::invalid_argument("--sentinel: one master only");
  if (!embedded() && urls.size() != more)
    throw std::invalid_argument("--masters " + std::to_string(more + 1) + " on your Redis: give --redis once per master");
  if (!embedded() && urls != other_urls_) others_.clear();
  others_.resize(std::min(others_.size(), more));
  for (std::size_t m = 1; m <= more; ++m) {
    if (m - 1 < others_.size()) {
      if (embedded()) others_[m - 1]->use_setup(setups.at(m));
      continue;
    }
    others_.push_back(embedded() ? std::make_unique<RedisSession>("", setups.at(m))
                                 : std::make_unique<RedisSession>(urls.at(m - 1)));
    if (pinned_) others_.back()->pin_server(home_core_);
  }
  other_urls_ = urls;
}

RedisLink& RedisSession::link() {
  if (!link_) connect();
  return *link_;
}

void RedisSession::use_setup(const ServerSetup& setup) {
  if (!embedded()) {
    if (!setup.is_default())
      throw std::invalid_argument("--replicas, --persistence and --maxmemory set up the embedded Redis: not with --redis");
    if (!link_) connect();  // a reconnection that failed in the last run
    return;
  }
  // No link: a fault of the last run failed half-way (a restart that did not come back), and the
  // server is in no known state: started afresh. No server: the last start failed; try again.
  if (embedded_ && setup == embedded_->setup() && !changed_ && link_) return;
  link_.reset();
  embedded_.reset();
  pinned_ = false;
  embedded_ = std::make_unique<EmbeddedRedis>(setup);
  target_ = embedded_->target();
  sentinels_ = embedded_->sentinels();
  master_ = kSentinelMaster;
  connect();
  changed_ = false;
}

namespace {
EmbeddedRedis& embedded_or_throw(const std::unique_ptr<EmbeddedRedis>& embedded) {
  if (!embedded) throw std::logic_error("server faults need the embedded Redis");
  return *embedded;
}
}  // namespace

void RedisSession::restart() {
  link_.reset();
  embedded_or_throw(embedded_).restart_primary();
  connect();
}

void RedisSession::go_down() {
  link_.reset();
  embedded_or_throw(embedded_).stop_primary();
}

void RedisSession::come_back() {
  embedded_or_throw(embedded_).start_primary();
  connect();
}

void RedisSession::cut_off_replica() {
  embedded_or_throw(embedded_).cut_off_replica();
  changed_ = true;
}

void RedisSession::fail_over() {
  link_.reset();
  embedded_or_throw(embedded_).fail_over();
  changed_ = true;
  target_ = embedded_->target();
  connect();
}

void RedisSession::reconnect() { connect(); }

std::string RedisSession::describe() const {
  std::string text = embedded() ? "embedded redis-server " + version_ : "redis " + version_ + " at " + target_.describe();
  if (others_.empty()) return text;
  if (embedded()) return std::to_string(masters()) + " masters, each an " + text;
  for (const auto& other : others_) text += ", " + other->describe();
  return std::to_string(masters()) + " masters: " + text;
}

std::string RedisSession::new_prefix(std::optional<std::uint64_t> seed) {
  const auto named = [](std::uint64_t id) {
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(id));
    return std::string("semsim:") + hex + ":";
  };
  const auto taken = [&](const std::string& prefix) {  // the first master holding keys under it, or -1
    for (int m = 0; m < masters(); ++m)
      if (keys_exist_with_prefix(master(m).link(), prefix)) return m;
    return -1;
  };
  // The embedded server is this process's alone, and each of check's and compare's jobs has its
  // own, used one run at a time: a seed's prefix is free unless a run of that seed left keys.
  if (seed && embedded()) {
    std::uint64_t z = *seed + 0x9e3779b97f4a7c15ULL;  // splitmix64: the seed's bits spread over the id
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    const std::string prefix = named(z ^ (z >> 31));
    if (taken(prefix) < 0) return prefix;
  }
  // 64 random bits from the OS: unguessable, and unique across processes, containers and pid
  // namespaces (where every CI job may be pid 1). Not simulation randomness: no history holds it.
  std::uint64_t id = 0;
  if (::getrandom(&id, sizeof id, 0) != static_cast<ssize_t>(sizeof id))
    throw std::runtime_error(std::string("cannot draw a run id (getrandom): ") + std::strerror(errno));
  const std::string prefix = named(id);
  // Another run's keys, or a stale run's: this run would read them as its own and delete them.
  if (const int m = taken(prefix); m >= 0)
    throw std::runtime_error("keys under " + prefix + " already exist on " + master(m).describe() +
                             ": refusing to share them with another run");
  return prefix;
}

ScriptKill RedisSession::kill_running_script() { return semsim::kill_running_script(target_); }

void RedisSession::clean(const std::string& prefix) {
  for (auto& other : others_) other->clean(prefix);
  // A master a restart left down (a run cut short in its downtime) comes back to be cleaned.
  if (embedded() && !link_) come_back();
  // A first Ctrl-C stopped the run (and may have closed the link); the cleanup goes on, on a new
  // link if need be, and only a further Ctrl-C stops it.
  const int tolerated = interrupt_count();
  try {
    if (!link_) throw ConnectionLost("no link");  // a fault failed to replace it
    link_->tolerate_interrupts(tolerated);
    delete_keys_containing(*link_, prefix);
  } catch (const LinkError&) {
    // Through Sentinel, the primary may have changed meanwhile.
    if (!sentinels_.empty()) target_ = primary_from_sentinels(sentinels_, master_, data_node_);
    open_link(tolerated);
    delete_keys_containing(*link_, prefix);
  }
  link_->tolerate_interrupts(0);
}

}  // namespace semsim
