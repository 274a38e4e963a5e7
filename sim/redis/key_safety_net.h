// Keys a run leaves on a user's Redis when semsim dies without cleaning up (SIGKILL, an OOM killer,
// a CI job's timeout) expire on their own: every key under the run's prefix gets an expiry, the
// run's expected end plus a margin, unless it has one of the variant's.
//
// Two parts. The run's link gives it (RedisLink::give_keys_expiry): at the end of each pipeline, in
// the same write, `PEXPIREAT WORD D NX` for every word of its requests under the prefix (a word that
// is no key is a no-op: nothing under the prefix but the run's keys), so that a key a pipeline
// creates or rewrites (ZINTERSTORE, SET) has its expiry before the next pipeline runs; NX leaves the
// variant's own TTLs alone. D is one value for the whole run, so that the net knows its own expiry. And a thread
// of its own, on a connection of its own, looks at the run's keys every second or so (SCAN; at
// most a tenth of the time where SCAN takes long): a key without expiry gets D (Redis before 7.0
// has no NX), and once the run goes on past its expected end, D moves on, and the keys whose expiry
// is exactly the old D (PEXPIRETIME) get the new one: the net never fires while the run lives.
//
// And a third, for the last second: keys a script creates inside Lua (names no request carries)
// and a library's keys with the prefix inside (`lib:PREFIX...`) wait for the next look, which a
// SIGKILL prevents. So a watcher process (semsim itself, `semsim key-net-watch`, in a session of
// its own) holds a pipe from the run: semsim writes each new expiry into it, and "done" once the
// run has cleaned its keys. When the pipe closes without "done" (semsim died), the watcher makes
// the net's last look, giving the expiry to every key that holds the prefix and has none, and
// exits. The looks, too, take every key holding the prefix, not only those that start with it.
//
// A variant sees the net in nothing that decides admission, with one exception, documented: a
// script that reads the TTL of a key it gave none (PTTL answers the net's, not -1). Nothing of this
// reaches the history or the command counts, which stay deterministic.
//
// Only on a server semsim did not start: the embedded server dies with semsim (PR_SET_PDEATHSIG)
// and its folder with it, and its clock is virtual, so that a wall-clock expiry there would fire
// at a meaningless instant of the run.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "sim/redis/redis_link.h"
#include "sim/redis/redis_target.h"

namespace semsim {

class KeySafetyNet {
 public:
  // How long past the run's expected end its keys live when nothing cleans them.
  static constexpr std::chrono::minutes kMargin{5};

  // Asks the server's time (D = now + `expected_length` + kMargin), then starts the thread. A net
  // that cannot work (no connection, no EVAL) says why at stop(); deadline() stays 0 then.
  // `period`: between two looks (tests shorten it).
  KeySafetyNet(RedisTarget target, std::string prefix, std::chrono::milliseconds expected_length,
               std::chrono::milliseconds period = std::chrono::seconds(1));
  ~KeySafetyNet();  // stop()
  KeySafetyNet(const KeySafetyNet&) = delete;
  KeySafetyNet& operator=(const KeySafetyNet&) = delete;

  // The expiry the run's link gives (server's unix ms; 0: none).
  std::shared_ptr<const std::atomic<std::int64_t>> deadline() const { return deadline_; }
  const std::string& prefix() const { return prefix_; }

  // Stops the thread. Returns why the net could not do its work ("" if it could): the run says so
  // as a warning.
  std::string stop();
  // The run's keys are gone (cleaned): the watcher ends without a look. Without it, the watcher's
  // last look comes when this object ends, or semsim does.
  void cleaned();

 private:
  void run(std::unique_ptr<RedisLink> link);
  void start_watcher(const RedisTarget& target);
  void tell_watcher(const std::string& line);
  // One look at every key under the prefix; returns the server's now (ms). Throws on an error.
  std::int64_t look(RedisLink& link, std::int64_t previous);

  const std::string prefix_;
  const std::chrono::milliseconds period_;
  const std::shared_ptr<std::atomic<std::int64_t>> deadline_ = std::make_shared<std::atomic<std::int64_t>>(0);
  std::string error_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  pid_t watcher_ = -1;
  int to_watcher_ = -1;  // the pipe's end the watcher reads (its stdin)
  std::thread thread_;  // last: started once the rest is ready
};

// `semsim key-net-watch`: the watcher's side (the environment names the server: SEMSIM_NET_UNIX or
// SEMSIM_NET_HOST and SEMSIM_NET_PORT, SEMSIM_NET_DB, SEMSIM_NET_USER, SEMSIM_REDIS_PASSWORD, and
// SEMSIM_NET_PREFIX). Reads its stdin to the end; returns the exit code.
int key_net_watch();

}  // namespace semsim
