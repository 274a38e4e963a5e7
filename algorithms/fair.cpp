// Variants `fair` and `fair-global-counter`.
// Follows seed 004 (004_e88c3953a9612bee.txt) "2. 公平信号量" acquire_fair_semaphore and
// release_fair_semaphore, "3. 刷新信号量" refresh_fair_semaphore; the same as seed 000
// (000_513b158efe7e1266.txt) "1.1 / 1.2 / 1.3". `fair-global-counter` follows seed 001
// (001_a4275f2cabdf39e5.txt) second listing: keys name:time / name:count, the counter key is the
// global 'semaphore:count', plain pipelines, and the failure cleanup is two separate ZREMs.
// Seed 001 gives no release or refresh; it gets seed 004's, over its own keys and pipelines.
//
// Keys (fair): <name> ZSET id -> client µs; <name>:owner ZSET id -> counter; <name>:counter.
// Keys (fair-global-counter): <name>:time, <name>:count, <prefix>semaphore:count (shared).
#include "algorithms/fair.h"

#include "algorithms/api/protocol.h"

namespace semsim {

FairKeys fair_keys(const std::string& name) { return {name, name + ":owner", name + ":counter"}; }

FairKeys fair_keys_global_counter(const std::string& name) {
  return {name + ":time", name + ":count", run_prefix(name) + "semaphore:count"};
}

FairSemaphore::FairSemaphore(SemaphoreConfig config, Options options)
    : config_(std::move(config)), options_(std::move(options)) {}

Task<std::optional<Grant>> FairSemaphore::acquire(Client& client) {
  const std::string& semname = options_.keys.timeout;
  const std::string& czset = options_.keys.owner;
  const std::string& ctr = options_.keys.counter;
  std::string identifier = client.new_identifier();
  const long long now = client.now().count();

  // Drop the timed-out holders from the timeout ZSET, then carry that over to the owner ZSET:
  // the intersection keeps only owners still present in the timeout ZSET, and WEIGHTS 1 0 keeps
  // their counter scores (owner * 1 + timestamp * 0).
  auto counter_result = co_await batch(client.redis(), options_.atomic, cmds(
      cmd("ZREMRANGEBYSCORE", semname, "-inf", num(now - config_.timeout.count())),
      cmd("ZINTERSTORE", czset, "2", czset, semname, "WEIGHTS", "1", options_.timeout_weight),
      cmd("INCR", ctr)));
  const long long counter = integer_of(counter_result.back());

  // Try to take a permit: timestamp for expiry, counter for rank. A second round trip, so another
  // client may INCR after us and ZADD before us (seed 002, "消除竞争条件").
  auto result = co_await batch(client.redis(), options_.atomic, cmds(
      cmd("ZADD", semname, num(now), identifier),
      cmd("ZADD", czset, num(counter), identifier),
      cmd("ZRANK", czset, identifier)));
  // No rank (possible only between plain-pipeline commands): admitted, as seed 001's JavaScript
  // does (null < limit).
  const std::optional<long long> rank = rank_of(result.back());
  if (!rank || *rank < config_.limit) co_return Grant{identifier};

  // Not admitted: clean up what we added.
  co_await batch(client.redis(), options_.atomic, cmds(
      cmd("ZREM", semname, identifier),
      cmd("ZREM", czset, identifier)));
  co_return std::nullopt;
}

Task<bool> FairSemaphore::release(Client& client, std::string identifier) {
  auto result = co_await batch(client.redis(), options_.atomic, cmds(
      cmd("ZREM", options_.keys.timeout, identifier),
      cmd("ZREM", options_.keys.owner, identifier)));
  // Seed 004 returns pipeline.execute()[0]: whether it was still in the timeout ZSET.
  co_return integer_of(result.at(0)) == 1;
}

Task<bool> FairSemaphore::refresh(Client& client, std::string identifier) {
  const long long now = client.now().count();
  // Only the timeout ZSET needs updating. ZADD answering 1 means it added the member: the
  // permit had expired and been removed, so release what we just re-added and report the loss.
  if (integer_of(co_await client.redis().call(
          cmd("ZADD", options_.keys.timeout, num(now), identifier))) == 1) {
    co_await release(client, identifier);
    co_return false;
  }
  co_return true;
}

// Seeds 002/004 "公平信号量": the counter fixes skew stealing, but INCR and ZADD are two round
// trips, so any delay (network or a pause) between them lets a later counter be admitted first
// while the earlier one is admitted too; expiry is judged by client clocks.
Preconditions fair_promise() { return client_clock_promise(); }

VariantInfo fair_variant() {
  return {.name = "fair", .source = "seeds 000, 004 (and 002, 003): counter + owner ZSET + ZINTERSTORE WEIGHTS 1 0",
          .clock = ClockBasis::client, .preconditions = fair_promise(), .liveness = true, .compared = true,
          .make = [](SemaphoreConfig c) -> std::unique_ptr<Semaphore> {
            FairSemaphore::Options options{fair_keys(c.name)};
            return std::make_unique<FairSemaphore>(std::move(c), std::move(options));
          }};
}

VariantInfo fair_global_counter_variant() {
  return {.name = "fair-global-counter", .source = "seed 001: the fair semaphore with the global semaphore:count counter",
          .clock = ClockBasis::client, .preconditions = fair_promise(), .liveness = true,
          .make = [](SemaphoreConfig c) -> std::unique_ptr<Semaphore> {
            FairSemaphore::Options options{fair_keys_global_counter(c.name)};
            options.atomic = false;  // seed 001 uses plain ioredis pipelines
            return std::make_unique<FairSemaphore>(std::move(c), std::move(options));
          }};
}

}  // namespace semsim
