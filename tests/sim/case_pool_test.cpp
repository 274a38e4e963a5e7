// The search's case pool: cases run on every server at once and are waited for in the order they
// were submitted, whatever order they finish in.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "sim/redis/redis_session.h"
#include "sim/search/case_pool.h"

namespace semsim {
namespace {

using namespace std::chrono_literals;

// Three embedded servers for the suite.
class CasePoolTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    for (auto& s : servers_) s = new RedisSession("");
  }
  static void TearDownTestSuite() {
    for (auto& s : servers_) delete s;
  }
  static std::vector<RedisSession*> servers(std::size_t n) { return {servers_, servers_ + n}; }
  static inline RedisSession* servers_[3] = {};
};

TEST_F(CasePoolTest, WaitingForACaseReturnsOnlyOnceItRanThoughLaterOnesFinishFirst) {
  CasePool pool(servers(3));
  constexpr int kCases = 12;
  std::vector<std::atomic<bool>> done(kCases);
  std::vector<std::uint64_t> tickets;
  for (int i = 0; i < kCases; ++i)
    tickets.push_back(pool.submit([&done, i](RedisSession&, std::size_t) {
      std::this_thread::sleep_for(std::chrono::milliseconds((kCases - i) * 3));  // the first take longest
      done[i] = true;
    }));
  for (int i = 0; i < kCases; ++i) {
    pool.wait_for(tickets[i]);
    EXPECT_TRUE(done[i]) << "case " << i;
  }
}

TEST_F(CasePoolTest, EveryServerRunsCasesAtOnceEachOnItsOwnServer) {
  CasePool pool(servers(3));
  std::mutex mutex;
  std::vector<std::pair<RedisSession*, std::size_t>> seen;
  std::atomic<int> running{0}, most{0};
  std::vector<std::uint64_t> tickets;
  for (int i = 0; i < 9; ++i)
    tickets.push_back(pool.submit([&](RedisSession& redis, std::size_t worker) {
      const int now = ++running;
      for (int seen_most = most.load(); now > seen_most && !most.compare_exchange_weak(seen_most, now);) {
      }
      // Each case waits (up to 5 s) until three run at once: only a pool that runs them so gets there.
      for (int waited = 0; most.load() < 3 && waited < 5000; ++waited) std::this_thread::sleep_for(1ms);
      --running;
      const std::lock_guard lock(mutex);
      seen.emplace_back(&redis, worker);
    }));
  for (std::uint64_t t : tickets) pool.wait_for(t);
  ASSERT_EQ(9u, seen.size());
  for (const auto& [redis, worker] : seen) EXPECT_EQ(servers_[worker], redis);
  EXPECT_EQ(3, most.load());
}

TEST_F(CasePoolTest, OneServerRunsEveryCaseOnTheWaitingThread) {
  CasePool pool(servers(1));
  std::vector<std::thread::id> ran_on;
  std::vector<std::uint64_t> tickets;
  for (int i = 0; i < 3; ++i)
    tickets.push_back(pool.submit([&](RedisSession&, std::size_t) { ran_on.push_back(std::this_thread::get_id()); }));
  EXPECT_TRUE(ran_on.empty());  // nothing runs before somebody waits
  pool.wait_for(tickets.back());
  EXPECT_EQ(std::vector<std::thread::id>(3, std::this_thread::get_id()), ran_on);
}

TEST_F(CasePoolTest, DroppedCasesNeverRunAndRunningOnesEndFirst) {
  CasePool pool(servers(2));
  std::atomic<int> started{0}, finished{0};
  constexpr int kCases = 200;  // 2 s of work for the one worker thread: far more than it gets
  for (int i = 0; i < kCases; ++i)
    pool.submit([&](RedisSession&, std::size_t) {
      ++started;
      std::this_thread::sleep_for(10ms);
      ++finished;
    });
  std::this_thread::sleep_for(5ms);  // the worker thread has taken its first case
  pool.drop_queued();
  EXPECT_EQ(started.load(), finished.load());
  EXPECT_LT(started.load(), kCases);
  std::this_thread::sleep_for(30ms);
  EXPECT_EQ(started.load(), finished.load());  // and none starts later
}

}  // namespace
}  // namespace semsim
