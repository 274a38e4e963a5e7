// Variant `ttl-key`.
// Follows seed 002 (002_b4c721bab56f4b3a.txt) "做到与系统时间无关": drop the timeout ZSET, keep the
// counter and the counter-scored ZSET, give every identifier a key with an expiry; before each
// acquire walk the ZSET and remove every identifier whose key has expired. Refresh follows
// "刷新信号量" option 2: read the remaining TTL, and if it has not expired, SET ... XX with the
// expiry again (SET drops a key's TTL, hence "需要加上原有的过期时间": the PX must be given again).
// Seed 002 is prose only; the command layout below is ours and mirrors the fair semaphore's.
//
// Keys: <name>:owner ZSET id -> counter; <name>:counter; <name>:holder:<id> = "1" with PX timeout.
// Time: none of the client's. The TTLs run on Redis's own (real) clock, so this variant only
// means something in the simulator's paced mode (or in tests that really sleep): in virtual mode
// a holder's key would outlive or undercut the simulated timeout.
#include "algorithms/ttl_key.h"

#include "algorithms/api/protocol.h"

namespace semsim {

TtlKeySemaphore::TtlKeySemaphore(SemaphoreConfig config)
    : config_(std::move(config)), owner_(config_.name + ":owner"),
      counter_(config_.name + ":counter") {}

std::string TtlKeySemaphore::holder_key(const std::string& identifier) const {
  return config_.name + ":holder:" + identifier;
}

Task<std::optional<Grant>> TtlKeySemaphore::acquire(Client& client) {
  std::string identifier = client.new_identifier();
  const std::string ttl_ms = num(ceil_ms(config_.timeout));

  // Walk the owners and find those whose holder key Redis has expired.
  auto owners = co_await client.redis().call(cmd("ZRANGE", owner_, "0", "-1"));
  std::vector<std::string> members;
  for (const Reply& r : elements_of(owners)) members.push_back(text_of(r));
  std::vector<Command> exists;
  for (const auto& m : members) exists.push_back({"EXISTS", holder_key(m)});
  std::vector<Reply> alive;
  if (!exists.empty()) alive = co_await client.redis().pipeline(std::move(exists));

  // Remove the expired ones and take a counter value (one MULTI, like the fair semaphore's first).
  std::vector<Command> first;
  Command zrem{"ZREM", owner_};
  for (std::size_t i = 0; i < members.size(); ++i)
    if (integer_of(alive.at(i)) == 0) zrem.push_back(members[i]);
  if (zrem.size() > 2) first.push_back(std::move(zrem));
  first.push_back({"INCR", counter_});
  auto counted = co_await client.redis().transaction(std::move(first));
  const long long counter = integer_of(counted.back());

  // Holder key first, so that a concurrent walk never sees us in the ZSET without it.
  auto result = co_await client.redis().transaction(cmds(
      cmd("SET", holder_key(identifier), "1", "PX", ttl_ms),
      cmd("ZADD", owner_, num(counter), identifier),
      cmd("ZRANK", owner_, identifier)));
  // Inside MULTI the rank is always there; were it missing, seed 002's Python 2 would admit
  // (None < limit is True).
  const std::optional<long long> rank = rank_of(result.back());
  if (!rank || *rank < config_.limit) co_return Grant{identifier};

  co_await client.redis().transaction(cmds(
      cmd("ZREM", owner_, identifier),
      cmd("DEL", holder_key(identifier))));
  co_return std::nullopt;
}

Task<bool> TtlKeySemaphore::release(Client& client, std::string identifier) {
  auto result = co_await client.redis().transaction(cmds(
      cmd("ZREM", owner_, identifier),
      cmd("DEL", holder_key(identifier))));
  // The permit existed while its key did; the ZSET entry may linger after the key expired.
  co_return integer_of(result.at(1)) == 1;
}

Task<bool> TtlKeySemaphore::refresh(Client& client, std::string identifier) {
  const std::string key = holder_key(identifier);
  // Option 2: read the remaining TTL first (-2: the key is gone, -1: no TTL, which never happens).
  const long long pttl = integer_of(co_await client.redis().call(cmd("PTTL", key)));
  bool extended = false;
  if (pttl > 0) {
    // XX: only if it still exists (it may expire between the two commands); PX again.
    auto set = co_await client.redis().call(
        cmd("SET", key, "1", "XX", "PX", num(ceil_ms(config_.timeout))));
    if (set.is_error()) throw ReplyError(set.text);
    extended = !set.is_nil();
  }
  if (extended) co_return true;
  co_await release(client, identifier);  // lost: clean up the lingering ZSET entry
  co_return false;
}

VariantInfo ttl_key_variant() {
  return {.name = "ttl-key", .source = "seed 002 \"做到与系统时间无关\": one TTL key per holder",
          .clock = ClockBasis::redis_ttl, .preconditions = lease_promise(), .compared = true,
          .make = [](SemaphoreConfig c) -> std::unique_ptr<Semaphore> {
            return std::make_unique<TtlKeySemaphore>(std::move(c));
          }};
}

}  // namespace semsim
