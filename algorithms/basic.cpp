// Variants `basic` and `basic-pipeline`.
// Follows seed 004 (004_e88c3953a9612bee.txt) "1. 构建基本计数信号量" acquire_semaphore, and
// seed 001 (001_a4275f2cabdf39e5.txt) first listing acquireSemaphore (plain pipeline).
// Release is Redis in Action's release_semaphore (ZREM; seed 002: "若返回值为1,则表明成功手动释放").
// Refresh is seed 004's refresh_fair_semaphore applied to the single ZSET.
//
// Key: <name> ZSET, member = identifier, score = the acquirer's Client::now() in microseconds.
#include "algorithms/basic.h"

#include "algorithms/api/protocol.h"

namespace semsim {

BasicSemaphore::BasicSemaphore(SemaphoreConfig config, Options options)
    : config_(std::move(config)), options_(options) {}

Task<std::optional<Grant>> BasicSemaphore::acquire(Client& client) {
  const std::string& semname = config_.name;
  std::string identifier = client.new_identifier();
  const long long now = client.now().count();

  std::vector<Command> pipeline;
  // Drop every holder whose timestamp is older than the timeout, by *this* client's clock.
  if (options_.remove_expired)
    pipeline.push_back({"ZREMRANGEBYSCORE", semname, "-inf", num(now - config_.timeout.count())});
  pipeline.push_back({"ZADD", semname, num(now), identifier});
  pipeline.push_back({"ZRANK", semname, identifier});
  auto results = co_await batch(client.redis(), options_.atomic, std::move(pipeline));

  // In a plain pipeline the ZRANK may find the member already gone (another client's cleanup ran
  // in between): no rank. The seeds admit it (JavaScript: null < limit is true; Python 2:
  // None < limit is True), and so does this port.
  const std::optional<long long> rank = rank_of(results.back());
  if (!rank || *rank < config_.limit) co_return Grant{identifier};

  // Not admitted: take the identifier out again (one command, as both seeds do).
  co_await client.redis().call(cmd("ZREM", semname, identifier));
  co_return std::nullopt;
}

Task<bool> BasicSemaphore::release(Client& client, std::string identifier) {
  // 1 = released by hand; 0 = it had already expired (seed 002).
  co_return integer_of(co_await client.redis().call(cmd("ZREM", config_.name, identifier))) == 1;
}

Task<bool> BasicSemaphore::refresh(Client& client, std::string identifier) {
  const long long now = client.now().count();
  // ZADD answers 1 when it *added* the member: it had expired and been removed, so the permit
  // was lost; take the fresh entry out again and report the loss.
  if (integer_of(co_await client.redis().call(cmd("ZADD", config_.name, num(now), identifier))) == 1) {
    co_await release(client, identifier);
    co_return false;
  }
  co_return true;  // only the score changed
}

// Seeds 001/002/004: the basic semaphore promises nothing. A client whose clock is behind outranks
// holders; so does one whose timestamp ties a holder's and whose identifier sorts first (ZRANK
// breaks score ties by member).
Preconditions basic_promise() {
  return {.text = "none (expected to over-admit: clock skew, or equal timestamps tie-broken by identifier)"};
}

VariantInfo basic_variant() {
  return {.name = "basic", .source = "seeds 001, 002, 004: the basic semaphore (ZSET of client timestamps)",
          .clock = ClockBasis::client, .preconditions = basic_promise(), .liveness = true, .compared = true,
          .make = [](SemaphoreConfig c) -> std::unique_ptr<Semaphore> {
            return std::make_unique<BasicSemaphore>(std::move(c), BasicSemaphore::Options{});
          }};
}

VariantInfo basic_pipeline_variant() {
  return {.name = "basic-pipeline", .source = "seed 001: the basic semaphore with a plain (non-MULTI) pipeline",
          .clock = ClockBasis::client, .preconditions = basic_promise(), .liveness = true,
          .make = [](SemaphoreConfig c) -> std::unique_ptr<Semaphore> {
            return std::make_unique<BasicSemaphore>(std::move(c), BasicSemaphore::Options{.atomic = false});
          }};
}

}  // namespace semsim
