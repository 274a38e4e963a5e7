// The seeds' claims (seeds/README.md) and the planted bugs, each staged as an exact interleaving
// on a real Redis. DirectRedis::before_request puts a rival's whole operation between two of a
// client's requests; client offsets give the clock skew.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "algorithms/api/semaphore.h"
#include "algorithms/fair.h"
#include "algorithms/lock.h"
#include "tests/algorithms/direct_client.h"
#include "marks/coverage_marks.h"

namespace semsim::test {
namespace {

constexpr Micros kMs{1000};

bool mentions(const std::vector<Command>& request, const std::string& verb) {
  for (const auto& c : request)
    if (!c.empty() && c[0] == verb) return true;
  return false;
}

class SeedClaims : public RedisFixture {
 protected:
  std::unique_ptr<Semaphore> make(const std::string& variant, int limit,
                                  Micros timeout = Micros{1'000'000}, std::string name = "sem") {
    SemaphoreConfig config;
    config.name = prefix() + name;
    config.limit = limit;
    config.timeout = timeout;
    auto semaphore = make_semaphore(variant, config);
    auto preparer = client("prepare");
    run(semaphore->prepare(*preparer));
    return semaphore;
  }
  // Runs `rival` once, just before the first request of `victim` that sends `verb`.
  void before_first(DirectClient& victim, std::string verb, std::function<void()> rival) {
    // Not reset from inside itself (that would destroy the running lambda): a flag makes it once.
    auto fired = std::make_shared<bool>(false);
    victim.direct().before_request = [verb, rival, fired](const std::vector<Command>& request) {
      if (*fired || !mentions(request, verb)) return;
      *fired = true;
      rival();
    };
  }
  Reply zscore(const std::string& key, const std::string& member) {
    return command({"ZSCORE", key, member});
  }
};

// ---- basic: the 10 ms steal, worked through in seed 001 -------------------------------------

struct StealCase {
  std::string variant;
  bool stolen;
};

class TenMsSteal : public SeedClaims, public ::testing::WithParamInterface<StealCase> {};

// Seed 001: limit 5, four holders, A takes the last permit; B, whose clock is 10 ms behind,
// writes a score 10 ms below A's, ranks 4 ("B在zset中的rank是4") and is admitted too.
TEST_P(TenMsSteal, ClientTenMsBehindAfterTheLimitWasReached) {
  auto semaphore = make(GetParam().variant, 5);
  std::vector<std::unique_ptr<DirectClient>> early;
  for (int i = 0; i < 4; ++i) {
    early.push_back(client("early" + std::to_string(i)));
    ASSERT_TRUE(run(semaphore->acquire(*early.back())));
    time_.true_now += kMs;  // ...205, ...206, ...207, ...208
  }
  time_.true_now += 40 * kMs;  // ...249
  auto a = client("a");
  ASSERT_TRUE(run(semaphore->acquire(*a)));  // the last permit
  auto b = client("b", -10 * kMs);           // writes ...239
  auto grant = run(semaphore->acquire(*b));
  EXPECT_EQ(grant.has_value(), GetParam().stolen);
  if (GetParam().stolen) {
    EXPECT_EQ(integer_of(command({"ZRANK", semaphore->admission_set(), grant->identifier})), 4);
    EXPECT_EQ(integer_of(command({"ZCARD", semaphore->admission_set()})), 6);  // limit + 1
  }
}

INSTANTIATE_TEST_SUITE_P(
    Seed001, TenMsSteal,
    ::testing::Values(StealCase{"basic", true}, StealCase{"basic-pipeline", true},
                      StealCase{"fair", false}, StealCase{"fair-global-counter", false},
                      StealCase{"fair-locked", false}, StealCase{"ttl-key", false},
                      StealCase{"lua", false}),
    [](const auto& info) {
      std::string n;
      for (char c : info.param.variant) n += c == '-' ? '_' : c;
      return n;
    });

// Not in the seeds, but the same mechanism without any skew: equal timestamps (the seeds' scores
// are milliseconds, so two acquires in one millisecond) are ordered by member, i.e. by UUID.
TEST_F(SeedClaims, BasicTieBreaksByIdentifier) {
  auto semaphore = make("basic", 1);
  auto z = client("z"), a = client("a");  // identifiers "z-1" > "a-1"
  EXPECT_TRUE(run(semaphore->acquire(*z)));
  EXPECT_TRUE(run(semaphore->acquire(*a)));  // same instant, smaller identifier: ranks first
}

// ---- clock skew of ± the timeout ---------------------------------------------------------

struct SkewCase {
  std::string variant;
  int offset_timeouts;  // +1: the rival's clock is a timeout ahead; -1: behind
  bool server_clock;    // lua: server_now() passed in (true) or the script's TIME (false)
  bool rival_admitted;
};

class ClockSkew : public SeedClaims, public ::testing::WithParamInterface<SkewCase> {};

// basic and fair judge expiry by the acquirer's clock: a rival a timeout ahead expires a fresh
// holder (seed 002: "造成信号量提早被其他系统的获取请求释放"); basic is also stolen from behind.
// ttl-key (Redis TTLs) and lua (server clock) do not care what the clients' clocks say.
TEST_P(ClockSkew, RivalWithSkewedClock) {
  const Micros timeout{1'000'000};
  time_.server_clock = GetParam().server_clock;
  auto semaphore = make(GetParam().variant, 1, timeout);
  auto holder = client("holder");
  auto rival = client("rival", GetParam().offset_timeouts * timeout);
  auto grant = run(semaphore->acquire(*holder));
  ASSERT_TRUE(grant);
  time_.true_now += kMs;
  EXPECT_EQ(run(semaphore->acquire(*rival)).has_value(), GetParam().rival_admitted);
  // The holder learns whether it still holds only when it refreshes.
  EXPECT_EQ(run(semaphore->refresh(*holder, grant->identifier)),
            !GetParam().rival_admitted || GetParam().offset_timeouts < 0);
}

INSTANTIATE_TEST_SUITE_P(
    Seed002, ClockSkew,
    ::testing::Values(SkewCase{"basic", +1, true, true}, SkewCase{"basic", -1, true, true},
                      SkewCase{"fair", +1, true, true}, SkewCase{"fair", -1, true, false},
                      SkewCase{"ttl-key", +1, true, false}, SkewCase{"ttl-key", -1, true, false},
                      SkewCase{"lua", +1, true, false}, SkewCase{"lua", -1, true, false},
                      SkewCase{"lua", +1, false, false}, SkewCase{"lua", -1, false, false}),
    [](const auto& info) {
      std::string n;
      for (char c : info.param.variant) n += c == '-' ? '_' : c;
      n += info.param.offset_timeouts > 0 ? "_ahead" : "_behind";
      if (!info.param.server_clock) n += "_redis_time";
      return n;
    });

// ---- the INCR/ZADD race of the fair semaphore, and the lock that removes it --------------------

struct RaceCase {
  std::string variant;
  bool both_admitted;
};

class IncrZaddRace : public SeedClaims, public ::testing::WithParamInterface<RaceCase> {};

// Seeds 002 "消除竞争条件" and 003 "上述版本存在的问题": A increments the counter first, but B's whole
// acquire lands before A's ZADD; A then ranks ahead of B, and both believe they hold the only
// permit. Under the lock B cannot start until A is done; unless the lock expired under A
// (the planted fair-locked-short-lock: 1 ms TTL, and 5 ms pass before B tries).
TEST_P(IncrZaddRace, RivalAcquiresBetweenIncrAndZadd) {
  auto semaphore = make(GetParam().variant, 1);
  auto a = client("a"), b = client("b");
  std::optional<Grant> b_grant;
  before_first(*a, "ZADD", [&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));  // real: outlives a 1 ms lock TTL
    b_grant = run(semaphore->acquire(*b));
  });
  auto a_grant = run(semaphore->acquire(*a));
  ASSERT_TRUE(a_grant);  // A's counter is lower: it always ranks first
  EXPECT_EQ(b_grant.has_value(), GetParam().both_admitted);
}

INSTANTIATE_TEST_SUITE_P(
    Seed002, IncrZaddRace,
    ::testing::Values(RaceCase{"fair", true}, RaceCase{"fair-global-counter", true},
                      RaceCase{"fair-pipeline", true}, RaceCase{"ttl-key", true},
                      RaceCase{"fair-locked", false}, RaceCase{"fair-locked-short-lock", true}),
    [](const auto& info) {
      std::string n;
      for (char c : info.param.variant) n += c == '-' ? '_' : c;
      return n;
    });

// ---- fair-locked-as-published: the lock is never freed ----------------------------------------

TEST_F(SeedClaims, FairLockedAsPublishedStopsGrantingAfterTheFirstAcquire) {
  auto semaphore = make("fair-locked-as-published", 5);
  auto a = client("a"), b = client("b");
  auto grant = run(semaphore->acquire(*a));
  ASSERT_TRUE(grant);
  const std::string lock = lock_key(prefix() + "sem");
  EXPECT_EQ(integer_of(command({"TTL", lock})), -1);  // still there, and never expires
  EXPECT_TRUE(run(semaphore->release(*a, grant->identifier)));
  const Micros before = time_.true_now;
  EXPECT_FALSE(run(semaphore->acquire(*b)));  // 4 permits free, but the lock is stuck
  EXPECT_GE(time_.true_now - before, Micros{10'000});  // it retried for acquire_timeout=.01
  EXPECT_FALSE(run(semaphore->acquire(*a)));
}

TEST_F(SeedClaims, FairLockedFreesItsLock) {
  auto semaphore = make("fair-locked", 5);
  auto a = client("a"), b = client("b");
  ASSERT_TRUE(run(semaphore->acquire(*a)));
  EXPECT_EQ(integer_of(command({"EXISTS", lock_key(prefix() + "sem")})), 0);
  EXPECT_TRUE(run(semaphore->acquire(*b)));
}

// ---- the locks of seed 004 --------------------------------------------------------------------

TEST_F(SeedClaims, LockWithTimeoutGivesATtlToALockThatHasNone) {
  // A holder died between SETNX and EXPIRE: the `elif not ttl` branch repairs it.
  const std::string name = prefix() + "sem";
  command({"SET", lock_key(name), "dead-holder"});
  auto c = client("c");
  auto got = run(acquire_lock_with_timeout(*c, name, Micros{10'000}, Micros{3'000'000}));
  EXPECT_FALSE(got);
  const long long ttl = integer_of(command({"TTL", lock_key(name)}));
  EXPECT_GT(ttl, 0);
  EXPECT_LE(ttl, 3);
}

TEST_F(SeedClaims, LockReleaseDeletesOnlyItsOwnLock) {
  const std::string name = prefix() + "sem";
  auto a = client("a"), b = client("b");
  auto mine = run(acquire_lock_with_timeout(*a, name, Micros{10'000}, Micros{2'500'000}));
  ASSERT_TRUE(mine);
  EXPECT_EQ(integer_of(command({"TTL", lock_key(name)})), 3);  // ceil(2.5 s)
  EXPECT_FALSE(run(release_lock(*b, name, "not-the-holder")));
  EXPECT_EQ(integer_of(command({"EXISTS", lock_key(name)})), 1);
  EXPECT_TRUE(run(release_lock(*a, name, *mine)));
  EXPECT_EQ(integer_of(command({"EXISTS", lock_key(name)})), 0);
}

// ---- planted bugs: each must misbehave exactly as planted -------------------------------------

TEST_F(SeedClaims, PlantedWeights11AdmitsEveryNewcomer) {
  auto bad = make("fair-weights-1-1", 1);
  std::vector<std::unique_ptr<DirectClient>> clients;
  for (int i = 0; i < 3; ++i) {
    clients.push_back(client("c" + std::to_string(i)));
    EXPECT_TRUE(run(bad->acquire(*clients.back()))) << i;  // limit 1, three holders
    time_.true_now += kMs;
  }
  // The first holder's owner score is no longer its counter (1): timestamps were added to it.
  auto first = zscore(bad->admission_set(), "c0-1");
  EXPECT_GT(integer_of(first), 1'000'000);
}

// The instant `basic` reclaims a holder's permit: ZREMRANGEBYSCORE -inf (now - timeout) drops an
// entry whose timestamp is at most now - timeout. 1 us before that the holder keeps it; at that
// instant it is reclaimed (scenarios/basic-reclaim-exact.ini stages the same on a run).
TEST_F(SeedClaims, BasicReclaimsAPermitExactlyOneTimeoutAfterItsTimestamp) {
  for (const std::string variant : {"basic", "basic-pipeline"}) {
    const Micros timeout{100'000};
    auto semaphore = make(variant, 1, timeout, variant);
    auto holder = client("holder"), early = client("early"), on_time = client("on-time");
    const Micros start = time_.true_now;
    ASSERT_TRUE(run(semaphore->acquire(*holder))) << variant;
    time_.true_now = start + timeout - Micros{1};
    EXPECT_FALSE(run(semaphore->acquire(*early))) << variant << ": reclaimed 1 us early";
    time_.true_now = start + timeout;
    EXPECT_TRUE(run(semaphore->acquire(*on_time))) << variant << ": not reclaimed at the timeout";
  }
}

TEST_F(SeedClaims, PlantedNoCleanupNeverReclaimsACrashedHolder) {
  const Micros timeout{1'000'000};
  auto bad = make("basic-no-cleanup", 1, timeout);
  auto crashed = client("crashed"), later = client("later");
  ASSERT_TRUE(run(bad->acquire(*crashed)));
  time_.true_now += 100 * timeout;
  EXPECT_FALSE(run(bad->acquire(*later)));  // forever
  EXPECT_EQ(integer_of(command({"ZCARD", bad->admission_set()})), 1);
}

// With MULTI, ZADD and ZRANK run together, so ZRANK always finds the member. With plain pipelines
// a rival's cleanup (its clock ahead, so our fresh entry looks expired) can run in between: our
// ZRANK reads nil, which the seeds' code takes as a rank below the limit: admitted while Redis
// holds nothing for us.
TEST_F(SeedClaims, PlantedFairPipelineAdmitsOnANilRank) {
  const Micros timeout{1'000'000};
  for (const std::string variant : {"fair-pipeline", "fair"}) {
    SCOPED_TRACE(variant);
    auto semaphore = make(variant, 1, timeout, variant);
    auto a = client(variant + "-a"), rival = client(variant + "-rival", 2 * timeout);
    std::optional<Grant> rival_grant;
    before_first(*a, "ZRANK", [&] { rival_grant = run(semaphore->acquire(*rival)); });
    auto grant = run(semaphore->acquire(*a));
    ASSERT_TRUE(grant);
    EXPECT_TRUE(rival_grant);
    const bool backed = !zscore(semaphore->admission_set(), grant->identifier).is_nil();
    EXPECT_EQ(backed, variant == "fair");
  }
}

TEST_F(SeedClaims, PlantedShortLockExpiresUnderItsHolder) {
  const std::string name = prefix() + "sem";
  auto a = client("a");
  auto mine = run(acquire_lock_with_timeout(*a, name, Micros{10'000}, Micros{1'000},
                                            LockTtlUnit::milliseconds));
  ASSERT_TRUE(mine);
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(integer_of(command({"EXISTS", lock_key(name)})), 0);
  EXPECT_FALSE(run(release_lock(*a, name, *mine)));  // it was gone before its holder finished
}

// ---- seed 001's global counter ------------------------------------------------------------

TEST_F(SeedClaims, GlobalCounterIsSharedBySemaphores) {
  auto first = make("fair-global-counter", 5, Micros{1'000'000}, "first");
  auto second = make("fair-global-counter", 5, Micros{1'000'000}, "second");
  auto c = client("c");
  auto g1 = run(first->acquire(*c));
  auto g2 = run(second->acquire(*c));
  auto g3 = run(first->acquire(*c));
  ASSERT_TRUE(g1 && g2 && g3);
  EXPECT_EQ(integer_of(command({"GET", prefix() + "semaphore:count"})), 3);
  EXPECT_EQ(integer_of(zscore(first->admission_set(), g3->identifier)), 3);  // 2 went elsewhere
  EXPECT_EQ(fair_keys_global_counter(prefix() + "first").owner, first->admission_set());
}

// ---- lua -----------------------------------------------------------------------------------

TEST_F(SeedClaims, LuaFencingTokensIncreaseAndSurviveAScriptFlush) {
  auto semaphore = make("lua", 2);
  auto c = client("c");
  const MarkWatch reloaded(Mark::noscript_reload);
  long long last = 0;
  for (int i = 0; i < 6; ++i) {
    if (i == 3) command({"SCRIPT", "FLUSH"});  // next EVALSHA answers NOSCRIPT: reload, retry
    auto grant = run(semaphore->acquire(*c));
    ASSERT_TRUE(grant) << i;
    EXPECT_GT(grant->fencing_token, last);
    last = grant->fencing_token;
    EXPECT_TRUE(run(semaphore->release(*c, grant->identifier)));
  }
  EXPECT_TRUE(reloaded.hit());
}

// ---- errors --------------------------------------------------------------------------------

TEST_F(SeedClaims, AnErrorReplyPropagatesAsReplyError) {
  for (const std::string variant : {"basic", "fair", "ttl-key", "lua"}) {
    SCOPED_TRACE(variant);
    auto semaphore = make(variant, 1, Micros{1'000'000}, variant);
    command({"SET", semaphore->admission_set(), "not a zset"});
    auto c = client("c");
    EXPECT_THROW(run(semaphore->acquire(*c)), ReplyError);
  }
}

}  // namespace
}  // namespace semsim::test
