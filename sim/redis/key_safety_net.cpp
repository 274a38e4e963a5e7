#include "sim/redis/key_safety_net.h"

#include <pthread.h>

#include <algorithm>
#include <csignal>
#include <exception>
#include <utility>

#include "sim/core/wall_clock.h"

namespace semsim {

namespace {

// KEYS: one SCAN page of the run's keys. ARGV[1]: the expiry to give (unix ms, server's clock);
// ARGV[2]: an expiry given before, which this look pushes back to ARGV[1] (0: none). Returns the
// server's now (ms). An expiry is the net's if it is exactly the one the net gave (PEXPIRETIME,
// Redis 7); before Redis 7, the same within 5 ms (PTTL read against TIME).
constexpr const char* kGiveExpiry = R"(local deadline, previous = tonumber(ARGV[1]), tonumber(ARGV[2])
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
for _, key in ipairs(KEYS) do
  local exact, at = pcall(redis.call, 'PEXPIRETIME', key)
  if not exact then
    local ttl = redis.call('PTTL', key)
    at = ttl >= 0 and now + ttl or ttl
  end
  if at == -1 or (previous > 0 and at > 0 and math.abs(at - previous) <= (exact and 0 or 5)) then
    redis.call('PEXPIREAT', key, deadline)
  end
end
return now)";

std::int64_t server_now_ms(RedisLink& link) {
  const Reply time = link.execute({{"TIME"}}).at(0);
  if (time.kind != Reply::Kind::array || time.elements.size() != 2) throw ReplyError("TIME: unexpected reply");
  return std::stoll(time.elements[0].text) * 1000 + std::stoll(time.elements[1].text) / 1000;
}

}  // namespace

KeySafetyNet::KeySafetyNet(RedisTarget target, std::string prefix, std::chrono::milliseconds expected_length,
                           std::chrono::milliseconds period)
    : prefix_(std::move(prefix)), period_(period) {
  try {
    // Through a first Ctrl-C (the run's cleanup follows it), not a second.
    std::unique_ptr<RedisLink> link = RedisLink::connect(target, std::chrono::seconds(5), 1);
    deadline_->store(server_now_ms(*link) + expected_length.count() +
                     std::chrono::duration_cast<std::chrono::milliseconds>(kMargin).count());
    thread_ = std::thread([this, l = std::move(link)]() mutable { run(std::move(l)); });
  } catch (const std::exception& e) {
    error_ = e.what();
  }
}

KeySafetyNet::~KeySafetyNet() { stop(); }

std::string KeySafetyNet::stop() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  return error_;
}

std::int64_t KeySafetyNet::look(RedisLink& link, std::int64_t previous) {
  std::int64_t now = 0;
  const std::string deadline = std::to_string(deadline_->load());
  scan_keys_with_prefix(link, prefix_, [&](const std::vector<std::string>& keys) {
    Command eval{"EVAL", kGiveExpiry, std::to_string(keys.size())};
    eval.insert(eval.end(), keys.begin(), keys.end());
    eval.push_back(deadline);
    eval.push_back(std::to_string(previous));
    const Reply r = link.execute({std::move(eval)}).at(0);
    if (r.is_error()) throw ReplyError("EVAL: " + r.text);
    now = r.integer;
  });
  return now ? now : server_now_ms(link);
}

void KeySafetyNet::run(std::unique_ptr<RedisLink> link) {
  // Ctrl-C is the run's to see (its poll wakes with EINTR), not this thread's.
  sigset_t signals;
  sigemptyset(&signals);
  for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&signals, s);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  const std::int64_t margin = std::chrono::duration_cast<std::chrono::milliseconds>(kMargin).count();
  // An expiry the net moved on from, pushed back by two looks: a request that read it just before
  // it moved may reach Redis after the first.
  std::int64_t previous = 0;
  int looks_left = 0;
  try {
    std::unique_lock lock(mutex_);
    while (!stopping_) {
      lock.unlock();
      const Stopwatch took;
      const std::int64_t now = look(*link, looks_left > 0 ? previous : 0);
      if (looks_left > 0) --looks_left;
      // Past the run's expected end: the keys need the net a while longer. The link gives the new
      // expiry from now on; the next looks move the keys that have the old one.
      if (const std::int64_t deadline = deadline_->load(); deadline - now < margin / 2) {
        previous = deadline;
        looks_left = 2;
        deadline_->store(now + margin);
      }
      // At most a tenth of the time on a server whose keyspace takes long to SCAN.
      const auto pause = std::max<std::chrono::milliseconds>(
          period_, std::chrono::milliseconds(static_cast<std::int64_t>(took.seconds() * 10'000)));
      lock.lock();
      wake_.wait_for(lock, pause, [this] { return stopping_; });
    }
  } catch (const std::exception& e) {
    const std::lock_guard lock(mutex_);
    error_ = e.what();
  }
}

}  // namespace semsim
