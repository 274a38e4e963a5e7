#include "sim/redis/key_safety_net.h"

#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "sim/core/wall_clock.h"
#include "sim/redis/shipped_files.h"

extern char** environ;

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

// kGiveExpiry over every key holding `prefix`, a SCAN page at a time; the server's now (ms) by the
// last page, or 0 when there was no key.
std::int64_t give_expiry(RedisLink& link, const std::string& prefix, const std::string& deadline, std::int64_t previous) {
  std::int64_t now = 0;
  scan_keys_containing(link, prefix, [&](const std::vector<std::string>& keys) {
    Command eval{"EVAL", kGiveExpiry, std::to_string(keys.size())};
    eval.insert(eval.end(), keys.begin(), keys.end());
    eval.push_back(deadline);
    eval.push_back(std::to_string(previous));
    const Reply r = link.execute({std::move(eval)}).at(0);
    if (r.is_error()) throw ReplyError("EVAL: " + r.text);
    now = r.integer;
  });
  return now;
}

// semsim itself: this program, or the build's semsim one folder above a test program.
std::filesystem::path semsim_program() {
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error && self.filename() == "semsim") return self;
  for (const std::filesystem::path& dir : {executable_dir(), executable_dir().parent_path()})
    if (std::filesystem::is_regular_file(dir / "semsim", error)) return dir / "semsim";
  return {};
}

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
    try {
      start_watcher(target);
    } catch (const std::exception& e) {  // the looks still run
      error_ = std::string("its watcher, for a semsim killed outright, did not start: ") + e.what();
    }
    thread_ = std::thread([this, l = std::move(link)]() mutable { run(std::move(l)); });
  } catch (const std::exception& e) {
    error_ = e.what();
  }
}

KeySafetyNet::~KeySafetyNet() {
  stop();
  if (to_watcher_ >= 0) ::close(to_watcher_);  // without "done": its last look, now
  if (watcher_ > 0)
    while (::waitpid(watcher_, nullptr, 0) < 0 && errno == EINTR) {
    }
}

void KeySafetyNet::start_watcher(const RedisTarget& target) {
  int pipe[2];
  if (::pipe2(pipe, O_CLOEXEC) != 0) throw std::runtime_error("cannot make a pipe for the key net's watcher");
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e)
    if (!std::string_view(*e).starts_with("SEMSIM_NET_") && !std::string_view(*e).starts_with("SEMSIM_REDIS_PASSWORD="))
      env.emplace_back(*e);
  env.push_back("SEMSIM_NET_PREFIX=" + prefix_);
  env.push_back("SEMSIM_NET_UNIX=" + target.unix_path);
  env.push_back("SEMSIM_NET_HOST=" + target.host);
  env.push_back("SEMSIM_NET_PORT=" + std::to_string(target.port));
  env.push_back("SEMSIM_NET_DB=" + std::to_string(target.db));
  env.push_back("SEMSIM_NET_USER=" + target.user);
  if (target.password) env.push_back("SEMSIM_REDIS_PASSWORD=" + *target.password);
  std::vector<char*> envp;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  const std::string exe = semsim_program().string();
  if (exe.empty()) throw std::runtime_error("no semsim program beside " + executable_dir().string());
  std::string name = "semsim", command = "key-net-watch";
  char* argv[] = {name.data(), command.data(), nullptr};
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_adddup2(&files, pipe[0], 0);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  // A session of its own: a signal to semsim's group (a CI job's timeout) does not take it along.
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSID);
  const int failed = ::posix_spawn(&watcher_, exe.c_str(), &files, &attributes, argv, envp.data());
  posix_spawn_file_actions_destroy(&files);
  posix_spawnattr_destroy(&attributes);
  ::close(pipe[0]);
  if (failed) {
    ::close(pipe[1]);
    watcher_ = -1;
    throw std::runtime_error(std::string("cannot start the key net's watcher: ") + std::strerror(failed));
  }
  to_watcher_ = pipe[1];
  tell_watcher(std::to_string(deadline_->load()));
}

void KeySafetyNet::tell_watcher(const std::string& line) {
  if (to_watcher_ < 0) return;
  const std::string text = line + "\n";
  [[maybe_unused]] const ssize_t n = ::write(to_watcher_, text.data(), text.size());  // atomic: < PIPE_BUF
}

void KeySafetyNet::cleaned() { tell_watcher("done"); }

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
  const std::int64_t now = give_expiry(link, prefix_, std::to_string(deadline_->load()), previous);
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
        tell_watcher(std::to_string(now + margin));
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

int key_net_watch() {
  // Ctrl-C reaches the terminal's group, not this session; SIGTERM and SIGHUP are semsim's to act on.
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) std::signal(s, SIG_IGN);
  std::string deadline;
  bool done = false;
  for (std::string line; std::getline(std::cin, line);) {
    if (line == "done") done = true;
    else if (!line.empty()) deadline = line;
  }
  if (done || deadline.empty()) return 0;
  const auto env = [](const char* name) {
    const char* value = std::getenv(name);
    return std::string(value ? value : "");
  };
  try {
    RedisTarget target;
    target.unix_path = env("SEMSIM_NET_UNIX");
    target.host = env("SEMSIM_NET_HOST");
    target.port = std::stoi(env("SEMSIM_NET_PORT"));
    target.db = std::stoi(env("SEMSIM_NET_DB"));
    target.user = env("SEMSIM_NET_USER");
    if (const char* password = std::getenv("SEMSIM_REDIS_PASSWORD"); password && *password) target.password = password;
    const std::unique_ptr<RedisLink> link = RedisLink::connect(target, std::chrono::seconds(5), 1);
    give_expiry(*link, env("SEMSIM_NET_PREFIX"), deadline, 0);
  } catch (const std::exception& e) {
    std::cerr << "semsim key-net-watch: the last look at the run's keys failed (" << e.what() << ")\n";
    return 1;
  }
  return 0;
}

}  // namespace semsim
