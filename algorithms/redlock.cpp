// Variants `redlock` and `redlock-semaphore`. Redlock as redis.io's "Distributed locks with Redis"
// states it, and as antirez/redlock-rb (lib/redlock.rb) implements it:
//
//   1. It gets the current time in milliseconds.
//   2. It tries to acquire the lock in all the N instances (... ideally sending the SET commands
//      to the N instances at the same time using multiplexing), using the same key name and
//      random value in all the instances, with a timeout small compared to the auto-release time.
//   3. The lock is acquired iff the client locked the majority of the instances (N/2 + 1) and the
//      total time elapsed to acquire it is less than the lock validity time.
//   4. Its validity time is the initial validity time minus the time elapsed.
//   5. Otherwise it tries to unlock all the instances (even those it believes it did not lock).
//
// redlock-rb: lock_instance is `SET resource val NX PX ttl`; the unlock script deletes the key
// only if it still holds val; drift = (ttl * ClockDriftFactor).to_i + 2 ms ("2 milliseconds ...
// to account for Redis expires precision, which is 1 millisecond, plus 1 millisecond min drift
// for small TTLs"); validity_time = ttl - elapsed - drift; granted iff n >= quorum and
// validity_time > 0. Retries (--retries, --retry-delay) are the workload's, as for every variant.
//
// Here: the SETs go to every master at once, and the client waits for every answer or its master
// timeout (NoAnswer: a failed vote, as redlock-rb's `rescue` returns false); elapsed runs on the
// client's own clock from before the first request to the moment it reads the last vote, in µs.
// The extension is redis.io's "Extending the lock": a script that extends the key on every
// instance where it still holds the value, kept iff a majority extended it within the validity.
//
// Keys: <name> STRING = the holder's value, PX ttl (redlock); <name>:permit:<i> likewise, one
// Redlock lock per permit (redlock-semaphore).
#include "algorithms/redlock.h"

#include "algorithms/api/all_settled.h"
#include "algorithms/api/protocol.h"

namespace semsim {
namespace {

constexpr const char* kUnlockScript = R"lua(
if redis.call("get",KEYS[1]) == ARGV[1] then
    return redis.call("del",KEYS[1])
else
    return 0
end
)lua";

// redis.io, "Extending the lock": extends the TTL of the key if it exists and its value is still
// the random value the client assigned when the lock was acquired.
constexpr const char* kExtendScript = R"lua(
if redis.call("get",KEYS[1]) == ARGV[1] then
    return redis.call("pexpire",KEYS[1],ARGV[2])
else
    return 0
end
)lua";

// "1,4,5": masters as files and rows number them.
std::string master_list(const std::vector<int>& masters) {
  std::string out;
  for (int m : masters) out += (out.empty() ? "" : ",") + num(m + 1);
  return out;
}

}  // namespace

// The outcome of one round of votes, and what the history says of it.
struct RedlockLock::Vote {
  std::vector<int> granted, silent;  // masters that said yes; that did not answer in time
  int masters = 0;
  Micros elapsed{0}, validity{0};
  bool held() const { return static_cast<int>(granted.size()) >= masters / 2 + 1 && validity > Micros(0); }
  std::string detail() const {
    std::string d = "votes=" + num(static_cast<long long>(granted.size())) + "/" + num(masters) +
                    " granted=" + (granted.empty() ? "none" : master_list(granted));
    if (!silent.empty()) d += " no_answer=" + master_list(silent);
    d += " elapsed_us=" + num(elapsed.count()) + " validity_us=" + num(validity.count());
    if (!held()) d += static_cast<int>(granted.size()) < masters / 2 + 1 ? " refused=quorum" : " refused=validity";
    return d;
  }
};

RedlockLock::RedlockLock(std::string key, Micros ttl, double drift_factor)
    : key_(std::move(key)),
      ttl_(Micros(ceil_ms(ttl) * 1000)),
      drift_(Micros((static_cast<long long>(static_cast<double>(ceil_ms(ttl)) * drift_factor) + 2) * 1000)) {}

Task<RedlockLock::Vote> RedlockLock::vote(Client& client, const std::string& value, bool extending) {
  Vote v;
  v.masters = client.masters();
  const Micros start = client.now();  // step 1
  std::vector<Task<Reply>> requests;  // step 2: every master at once
  for (int m = 0; m < v.masters; ++m) {
    if (extending) requests.push_back(client.redis(m).call(cmd("EVAL", kExtendScript, "1", key_, value, num(ttl_.count() / 1000))));
    else requests.push_back(client.redis(m).call(cmd("SET", key_, value, "NX", "PX", num(ttl_.count() / 1000))));
  }
  std::vector<Settled<Reply>> answers = co_await all_settled(std::move(requests));
  v.elapsed = client.now() - start;  // step 3, on the client's own clock
  v.validity = ttl_ - v.elapsed - drift_;
  for (int m = 0; m < v.masters; ++m) {
    const Settled<Reply>& a = answers[static_cast<std::size_t>(m)];
    if (!a.ok()) {
      // No answer within the master timeout, a refused connection: a failed vote.
      try {
        std::rethrow_exception(a.error);
      } catch (const NoAnswer&) {
        v.silent.push_back(m);
      } catch (const LinkError&) {
      }
      continue;
    }
    const bool yes = extending ? (a.value->kind == Reply::Kind::integer && a.value->integer == 1)
                               : (!a.value->is_error() && a.value->text == "OK");
    if (yes) v.granted.push_back(m);
  }
  co_return v;
}

Task<RedlockLock::Outcome> RedlockLock::acquire(Client& client, std::string value) {
  const Vote v = co_await vote(client, value, false);
  if (!v.held()) co_await release(client, value);  // step 5: unlock every instance
  co_return Outcome{v.held(), v.detail()};
}

Task<RedlockLock::Outcome> RedlockLock::extend(Client& client, std::string value) {
  const Vote v = co_await vote(client, value, true);
  if (!v.held()) co_await release(client, value);
  co_return Outcome{v.held(), v.detail()};
}

Task<bool> RedlockLock::release(Client& client, std::string value) {
  std::vector<Task<Reply>> unlocks;
  for (int m = 0; m < client.masters(); ++m)
    unlocks.push_back(client.redis(m).call(cmd("EVAL", kUnlockScript, "1", key_, value)));
  std::vector<Settled<Reply>> answers = co_await all_settled(std::move(unlocks));
  int deleted = 0;  // unlocking is a best-effort attempt: a master that did not answer is skipped
  for (const Settled<Reply>& a : answers) deleted += a.ok() && a.value->kind == Reply::Kind::integer && a.value->integer == 1;
  co_return deleted >= client.masters() / 2 + 1;
}

Redlock::Redlock(SemaphoreConfig config)
    : config_(std::move(config)), lock_(config_.name, config_.timeout, config_.drift_factor) {}

Task<std::optional<Grant>> Redlock::acquire(Client& client) {
  std::string value = client.new_identifier();  // the seeds' uuid4: "unique across all clients"
  const RedlockLock::Outcome outcome = co_await lock_.acquire(client, value);
  client.note(outcome.detail);
  if (outcome.held) co_return Grant{value};
  co_return std::nullopt;
}

Task<bool> Redlock::release(Client& client, std::string identifier) { co_return co_await lock_.release(client, identifier); }

Task<bool> Redlock::refresh(Client& client, std::string identifier) {
  const RedlockLock::Outcome outcome = co_await lock_.extend(client, identifier);
  client.note(outcome.detail);
  co_return outcome.held;
}

RedlockSemaphore::RedlockSemaphore(SemaphoreConfig config) : config_(std::move(config)) {
  for (int i = 1; i <= config_.limit; ++i)
    permits_.emplace_back(config_.name + ":permit:" + num(i), config_.timeout, config_.drift_factor);
}

Task<std::optional<Grant>> RedlockSemaphore::acquire(Client& client) {
  std::string value = client.new_identifier();
  RedlockLock::Outcome last;
  for (std::size_t i = 0; i < permits_.size(); ++i) {
    last = co_await permits_[i].acquire(client, value);
    if (last.held) {
      held_[value] = i;
      client.note("permit=" + num(static_cast<long long>(i) + 1) + " " + last.detail);
      co_return Grant{value};
    }
  }
  // The history shows the last permit's votes.
  client.note("permits_tried=" + num(static_cast<long long>(permits_.size())) + " " + last.detail);
  co_return std::nullopt;
}

RedlockLock& RedlockSemaphore::permit_of(const std::string& identifier) {
  const auto it = held_.find(identifier);
  return permits_.at(it == held_.end() ? 0 : it->second);
}

Task<bool> RedlockSemaphore::release(Client& client, std::string identifier) {
  RedlockLock& permit = permit_of(identifier);
  held_.erase(identifier);
  co_return co_await permit.release(client, identifier);
}

Task<bool> RedlockSemaphore::refresh(Client& client, std::string identifier) {
  const RedlockLock::Outcome outcome = co_await permit_of(identifier).extend(client, identifier);
  client.note(outcome.detail);
  if (!outcome.held) held_.erase(identifier);
  co_return outcome.held;
}

std::vector<std::string> RedlockSemaphore::holder_keys() const {
  std::vector<std::string> keys;
  for (const RedlockLock& p : permits_) keys.push_back(p.key());
  return keys;
}

Preconditions redlock_promise() {
  return {.within_validity = true, .master_clock_rate = true, .no_master_jumps = true, .delayed_restarts = true,
          .text = "Redlock's assumptions: a holder finishes within its validity (hold + pauses + master timeout + "
                  "drift < ttl), the masters' clocks drift within the drift factor and never jump, a crashed master "
                  "stays down for a ttl or keeps its data (aof-always)"};
}

VariantInfo redlock_variant() {
  return {.name = "redlock", .source = "redis.io \"Distributed locks with Redis\", antirez/redlock-rb: N masters",
          .clock = ClockBasis::redis_ttl, .preconditions = redlock_promise(), .multi_master = true, .lock = true,
          .make = [](SemaphoreConfig c) -> std::unique_ptr<Semaphore> { return std::make_unique<Redlock>(std::move(c)); }};
}

VariantInfo redlock_semaphore_variant() {
  return {.name = "redlock-semaphore", .source = "ours: limit Redlock locks, one per permit, over N masters",
          .clock = ClockBasis::redis_ttl, .preconditions = redlock_promise(), .multi_master = true,
          .make = [](SemaphoreConfig c) -> std::unique_ptr<Semaphore> {
            return std::make_unique<RedlockSemaphore>(std::move(c));
          }};
}

}  // namespace semsim
