// Redlock's validity rule (docs/redlock.md, step 3), on a real Redis with a fake clock: granted iff
// a quorum said OK and validity = ttl - elapsed - drift > 0, drift = drift factor x ttl + 2 ms
// (redlock-rb: "2 milliseconds ... to account for Redis expires precision, which is 1 millisecond,
// plus 1 millisecond min drift for small TTLs"). One master here (quorum 1): the votes are not
// what is tested, the arithmetic on elapsed is. Elapsed is staged exactly: the client's clock
// moves on while its SET is on its way.
#include <gtest/gtest.h>

#include "algorithms/redlock.h"
#include "tests/algorithms/direct_client.h"

namespace semsim::test {
namespace {

class RedlockValidity : public RedisFixture {
 protected:
  // One acquire of lock `name` with a 10 s ttl and the default drift factor 0.01 (drift 100 +
  // 2 ms), whose SET takes `elapsed` on the client's clock.
  RedlockLock::Outcome acquire_taking(Micros elapsed, const std::string& name = "lock") {
    RedlockLock lock(prefix() + name, Micros{10'000'000}, 0.01);
    auto c = client("c");
    c->direct().before_request = [&](const std::vector<Command>& commands) {
      if (commands.at(0).at(0) == "SET") time_.true_now += elapsed;
    };
    return run(lock.acquire(*c, "v"));
  }
};

TEST_F(RedlockValidity, TheDriftAllowanceIsTheDriftFactorTimesTheTtlPlusTwoMilliseconds) {
  // 10,000 ms - 3 ms - (0.01 x 10,000 ms + 2 ms) = 9,895 ms.
  const RedlockLock::Outcome o = acquire_taking(Micros{3'000});
  EXPECT_TRUE(o.held);
  EXPECT_EQ(o.detail, "votes=1/1 granted=1 elapsed_us=3000 validity_us=9895000");
}

TEST_F(RedlockValidity, AValidityOfExactlyZeroIsRefusedAndOneMicrosecondMoreIsGranted) {
  // Elapsed 9,898 ms: 10,000 - 9,898 - 102 = 0, not > 0: refused, and released.
  const RedlockLock::Outcome zero = acquire_taking(Micros{9'898'000});
  EXPECT_FALSE(zero.held);
  EXPECT_EQ(zero.detail, "votes=1/1 granted=1 elapsed_us=9898000 validity_us=0 refused=validity");
  EXPECT_EQ(command({"EXISTS", prefix() + "lock"}).integer, 0);
  // 1 µs less elapsed: validity 1 µs, granted (another lock: the two are independent).
  const RedlockLock::Outcome one = acquire_taking(Micros{9'897'999}, "other");
  EXPECT_TRUE(one.held);
  EXPECT_EQ(one.detail, "votes=1/1 granted=1 elapsed_us=9897999 validity_us=1");
}

}  // namespace
}  // namespace semsim::test
