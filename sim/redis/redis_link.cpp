#include "sim/redis/redis_link.h"

#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>
#include <set>
#include <utility>

extern "C" {
#include <hiredis/async.h>
#include <hiredis/hiredis.h>
#include <hiredis/sds.h>
}

#include "algorithms/api/resp_command.h"
#include "sim/core/interrupt.h"

namespace semsim {
namespace {

constexpr std::chrono::microseconds kSpin{300};

Reply to_reply(const redisReply& r) {
  switch (r.type) {
    case REDIS_REPLY_INTEGER:
      return Reply::of_integer(r.integer);
    case REDIS_REPLY_STRING:
      return Reply::of_string(std::string(r.str, r.len));
    case REDIS_REPLY_STATUS:
      return Reply::of_status(std::string(r.str, r.len));
    case REDIS_REPLY_ERROR:
      return Reply::of_error(std::string(r.str, r.len));
    case REDIS_REPLY_ARRAY: {
      Reply out;
      out.kind = Reply::Kind::array;
      out.elements.reserve(r.elements);
      for (std::size_t i = 0; i < r.elements; ++i) out.elements.push_back(to_reply(*r.element[i]));
      return out;
    }
    default:
      return Reply::nil();
  }
}

// hiredis writes with write(2), so a server that closed the connection would kill the whole
// process with SIGPIPE; ignored instead, the write fails with EPIPE and becomes a LinkError.
// Only the default disposition is replaced: a handler somebody installed is left alone.
void ignore_sigpipe() {
  struct sigaction current {};
  if (::sigaction(SIGPIPE, nullptr, &current) == 0 && current.sa_handler == SIG_DFL) {
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    ::sigaction(SIGPIPE, &ignore, nullptr);
  }
}

}  // namespace

struct RedisLink::Impl {
  // One submit(): its replies arrive in order, since one connection answers in order.
  struct Request {
    std::size_t expected = 0;
    std::vector<Reply> replies;
    Done done;
    std::exception_ptr error;
  };

  RedisTarget target;
  redisAsyncContext* context = nullptr;  // null once hiredis has freed it (cleanup hook)
  int tolerated_interrupts = 0;
  bool spin = true;
  bool want_read = false;
  bool want_write = false;
  std::string closed_reason;  // why the connection went away
  std::uint64_t sent = 0;
  std::uint64_t round_trips = 0;  // pipelines: requests submitted between two writes
  bool pipeline_open = false;     // a request was submitted since the last write
  std::deque<Request> in_flight;  // awaiting replies, oldest first
  std::deque<Request> ready;      // complete; `done` not yet called
  // The safety net's expiry for the words under this prefix (give_keys_expiry), and the words of
  // the pipeline being queued that get it when it is written.
  std::string expiry_prefix;
  std::shared_ptr<const std::atomic<std::int64_t>> expiry_deadline;
  std::set<std::string> expiry_words;
  // The pipeline being queued, in RESP, and how much of it the socket took. We format and write
  // it ourselves; hiredis keeps the callbacks and reads the replies. Its own formatting
  // (redisAsyncCommandArgv: sdscatfmt, word by word) was a sixth of a virtual lua run's
  // instructions, and its output buffer, freed after every write and grown again from nothing
  // by doubling, made large allocations every pipeline, each of which had glibc consolidate every
  // small free chunk (malloc_consolidate: 4.7% of semsim's L1 read misses). This buffer keeps its
  // capacity.
  std::string out;
  std::size_t out_written = 0;

  ~Impl() {
    // redisAsyncFree runs every pending callback with a null reply, then the cleanup hook; both
    // only touch this object, which is still alive here. Undelivered `done`s are dropped.
    if (context != nullptr) redisAsyncFree(context);
  }

  std::string describe_failure() const {
    return "Redis link to " + target.describe() + " failed: " +
           (closed_reason.empty() ? std::string("connection closed") : closed_reason);
  }

  void attach(redisAsyncContext* c) {
    context = c;
    c->data = this;
    c->ev.data = this;
    c->ev.addRead = [](void* self) { static_cast<Impl*>(self)->want_read = true; };
    c->ev.delRead = [](void* self) { static_cast<Impl*>(self)->want_read = false; };
    c->ev.addWrite = [](void* self) { static_cast<Impl*>(self)->want_write = true; };
    c->ev.delWrite = [](void* self) { static_cast<Impl*>(self)->want_write = false; };
    // hiredis calls this whenever it frees the context, including on its own after an I/O
    // error or a failed connect: the one place that learns the pointer is now dangling.
    c->ev.cleanup = [](void* self) {
      auto* impl = static_cast<Impl*>(self);
      if (impl->closed_reason.empty())
        impl->closed_reason = impl->context->err != 0 ? impl->context->errstr : "connection closed";
      impl->context = nullptr;
      impl->want_read = impl->want_write = false;
    };
  }

  // Called by hiredis once per command, in order. Never throws into C: it only moves data.
  static void on_reply(redisAsyncContext* c, void* raw_reply, void* /*privdata*/) {
    auto* impl = static_cast<Impl*>(c->data);
    if (raw_reply == nullptr || impl->in_flight.empty()) return;  // the link is going away
    Request& front = impl->in_flight.front();
    front.replies.push_back(to_reply(*static_cast<redisReply*>(raw_reply)));
    if (front.replies.size() == front.expected) {
      impl->ready.push_back(std::move(front));
      impl->in_flight.pop_front();
    }
  }

  void submit(std::vector<Command>& commands, Done& done) {
    Request request;
    request.done = std::move(done);
    request.replies.reserve(commands.size());
    if (context == nullptr) {
      request.error = std::make_exception_ptr(LinkError(describe_failure()));
      ready.push_back(std::move(request));
      return;
    }
    in_flight.push_back(std::move(request));
    if (!pipeline_open) ++round_trips;
    pipeline_open = true;
    for (const Command& command : commands) {
      if (!queue(command, &Impl::on_reply)) break;  // disconnecting: the commands queued so far still get their callbacks
      ++in_flight.back().expected;
      ++sent;
    }
    Request& queued = in_flight.back();
    if (queued.expected == commands.size()) note_expiry_words(commands);
    if (queued.expected < commands.size()) {
      queued.error = std::make_exception_ptr(LinkError(describe_failure()));
      if (queued.expected == 0) {
        ready.push_back(std::move(queued));
        in_flight.pop_back();
      }
    }
  }

  // Queues one command for the next write; `on_reply` (null: its reply is dropped) gets its reply.
  bool queue(const Command& command, redisCallbackFn* on_reply) {
    const std::size_t at = out.size();
    append_resp_command(out, command);
    if (redisAsyncFormattedCommand(context, on_reply, nullptr, out.data() + at, out.size() - at) != REDIS_OK) {
      out.resize(at);
      return false;
    }
    sdsclear(context->c.obuf);  // hiredis took the command for its callback; the bytes leave from `out`
    return true;
  }

  bool unwritten() const { return out_written < out.size(); }

  // Writes what the socket takes of `out`; the rest waits for POLLOUT. Closes the link on an error.
  void write_out() {
    while (unwritten()) {
      const ssize_t n = ::write(context->c.fd, out.data() + out_written, out.size() - out_written);
      if (n > 0) {
        out_written += static_cast<std::size_t>(n);
      } else if (n < 0 && errno == EINTR) {
        continue;
      } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        return;
      } else {
        return close(std::strerror(errno));  // as hiredis words it
      }
    }
    out.clear();
    out_written = 0;
  }

  // The words of a request under the safety net's prefix (give_keys_expiry).
  void note_expiry_words(const std::vector<Command>& commands) {
    if (!expiry_deadline) return;
    for (const Command& command : commands)
      for (std::size_t i = 1; i < command.size(); ++i)
        if (command[i].starts_with(expiry_prefix)) expiry_words.insert(command[i]);
  }

  // The pipeline's last commands, in the same write: PEXPIREAT WORD D NX for each word noted since
  // the last write (once per pipeline, however many requests name it). Their replies are dropped.
  void give_expiry() {
    const std::int64_t deadline = expiry_deadline ? expiry_deadline->load() : 0;
    const std::string at = std::to_string(deadline);
    for (const std::string& word : expiry_words) {
      if (deadline <= 0) break;
      if (!queue({"PEXPIREAT", word, at, "NX"}, nullptr)) break;
    }
    expiry_words.clear();
  }

  // Once the context is gone, nothing in flight will ever be answered.
  void fail_in_flight() {
    auto error = std::make_exception_ptr(LinkError(describe_failure()));
    while (!in_flight.empty()) {
      in_flight.front().error = error;
      ready.push_back(std::move(in_flight.front()));
      in_flight.pop_front();
    }
  }

  // Outside hiredis's call stack, so a `done` may submit again or throw.
  // Returns whether any request failed.
  bool deliver() {
    bool failed = false;
    while (!ready.empty()) {
      Request request = std::move(ready.front());
      ready.pop_front();
      if (request.error) {
        failed = true;
        request.replies.clear();
      }
      if (request.done) request.done(std::move(request.replies), request.error);
    }
    return failed;
  }

  // Gives up on the connection: everything in flight fails with `reason`.
  void close(const std::string& reason) {
    if (closed_reason.empty()) closed_reason = reason;
    if (context != nullptr) redisAsyncFree(context);  // the cleanup hook clears `context`
    fail_in_flight();
  }

  // Writes what is queued, as far as the socket takes it.
  void write() {
    if (context != nullptr && (want_write || unwritten()) && (context->c.flags & REDIS_CONNECTED)) handle_write();
    if (context == nullptr) fail_in_flight();
  }

  // What is queued leaves: the next submit starts another pipeline.
  void handle_write() {
    if (!(context->c.flags & REDIS_CONNECTED)) {
      redisAsyncHandleWrite(context);  // completes the connection
      if (context == nullptr || !(context->c.flags & REDIS_CONNECTED)) return;
    }
    pipeline_open = false;
    if (!expiry_words.empty()) give_expiry();
    write_out();
    // hiredis's own bookkeeping: its buffer is empty, so it writes nothing, but it now reads.
    if (context != nullptr) redisAsyncHandleWrite(context);
  }

  // One round of I/O; waits at most `wait_ms` for the socket.
  void step(int wait_ms) {
    // The socket is nearly always writable: write now and save a poll() per request.
    write();
    if (context == nullptr) return;
    const bool writing = want_write || unwritten();
    pollfd fd{context->c.fd, static_cast<short>((want_read ? POLLIN : 0) | (writing ? POLLOUT : 0)), 0};
    int n = ::poll(&fd, 1, wait_ms);
    if (n < 0) {
      if (errno == EINTR) return;
      return close(std::string("poll: ") + std::strerror(errno));
    }
    if (n == 0) return;
    if (want_read && (fd.revents & (POLLIN | POLLHUP | POLLERR))) redisAsyncHandleRead(context);
    if (context != nullptr && writing && (fd.revents & (POLLOUT | POLLHUP | POLLERR))) handle_write();
    if (context == nullptr) fail_in_flight();
  }
};

RedisLink::RedisLink(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
RedisLink::~RedisLink() = default;

void RedisLink::tolerate_interrupts(int count) { impl_->tolerated_interrupts = count; }

void RedisLink::give_keys_expiry(std::string prefix, std::shared_ptr<const std::atomic<std::int64_t>> deadline) {
  impl_->expiry_prefix = std::move(prefix);
  impl_->expiry_deadline = std::move(deadline);
}

void RedisLink::spin_while_waiting(bool spin) { impl_->spin = spin; }

std::unique_ptr<RedisLink> RedisLink::connect(const RedisTarget& target,
                                              std::chrono::milliseconds timeout, int tolerated_interrupts) {
  ignore_sigpipe();
  auto impl = std::make_unique<Impl>();
  impl->target = target;
  impl->tolerated_interrupts = tolerated_interrupts;
  redisAsyncContext* c = target.unix_path.empty()
                             ? redisAsyncConnect(target.host.c_str(), target.port)
                             : redisAsyncConnectUnix(target.unix_path.c_str());
  if (c == nullptr) throw LinkError("cannot connect to Redis at " + target.describe() + ": out of memory");
  if (c->err != 0) {
    std::string reason = c->errstr;
    redisAsyncFree(c);
    throw LinkError("cannot connect to Redis at " + target.describe() + ": " + reason);
  }
  impl->attach(c);
  std::unique_ptr<RedisLink> link(new RedisLink(std::move(impl)));

  std::vector<Command> hello;
  if (target.password) {
    if (target.user.empty()) hello.push_back({"AUTH", *target.password});
    else hello.push_back({"AUTH", target.user, *target.password});
  }
  if (target.db != 0) hello.push_back({"SELECT", std::to_string(target.db)});
  hello.push_back({"PING"});
  std::vector<Reply> replies;
  try {
    replies = link->execute(hello, timeout);
  } catch (const LinkError&) {
    throw LinkError("cannot connect to Redis at " + target.describe() + ": " +
                    link->impl_->closed_reason);
  }
  for (std::size_t i = 0; i < replies.size(); ++i)
    if (replies[i].is_error())
      throw LinkError("Redis at " + target.describe() + " refused " + hello[i][0] + ": " +
                      replies[i].text);
  return link;
}

void RedisLink::submit(std::vector<Command> commands, Done done) { impl_->submit(commands, done); }

void RedisLink::send_queued() { impl_->write(); }

void RedisLink::flush_until(const std::function<bool()>& answered, std::chrono::milliseconds timeout,
                            std::chrono::milliseconds slow_after, const std::function<void()>& slow) {
  // Wall clock on purpose: this bounds real I/O, it is not simulated time.
  const auto start = std::chrono::steady_clock::now();
  // Both from the last reply: several pipelines may be in flight.
  auto deadline = start + timeout;
  auto next_slow = start + slow_after;
  bool failed = impl_->deliver();
  while (!impl_->in_flight.empty() && !(answered && answered())) {
    if (slow && std::chrono::steady_clock::now() >= next_slow) {
      slow();
      next_slow = std::chrono::steady_clock::now() + slow_after;
    }
    std::string give_up;
    if (interrupt_count() > impl_->tolerated_interrupts)
      give_up = interrupted_by();
    auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    const bool timed_out = give_up.empty() && left.count() <= 0;
    if (timed_out) give_up = "no answer within " + std::to_string(timeout.count()) + " ms";
    if (!give_up.empty()) {
      // Replies still on the way would be matched to later requests: close the link instead.
      impl_->close(give_up);
      impl_->deliver();
      if (timed_out) throw LinkTimeout(impl_->describe_failure());
      throw LinkError(impl_->describe_failure());
    }
    if (slow)
      left = std::min(left, std::chrono::ceil<std::chrono::milliseconds>(next_slow - std::chrono::steady_clock::now()) +
                                std::chrono::milliseconds(1));
    // Replies to a pipeline come back within a fraction of a millisecond: asking again at once
    // for a while costs less than sleeping in poll and being woken (slow on a virtual machine).
    const bool spin = impl_->spin && std::chrono::steady_clock::now() - start < kSpin;
    const std::size_t unanswered = impl_->in_flight.size();
    impl_->step(spin ? 0 : static_cast<int>(left.count()));
    if (impl_->in_flight.size() < unanswered) {  // Redis is answering: nothing is stuck yet
      deadline = std::chrono::steady_clock::now() + timeout;
      next_slow = std::chrono::steady_clock::now() + slow_after;
    }
    failed |= impl_->deliver();
  }
  if (failed) throw LinkError(impl_->describe_failure());
}

std::size_t RedisLink::pending() const { return impl_->in_flight.size() + impl_->ready.size(); }

bool RedisLink::all_answered() const { return impl_->in_flight.empty(); }

std::uint64_t RedisLink::commands_sent() const { return impl_->sent; }

std::uint64_t RedisLink::round_trips() const { return impl_->round_trips; }

std::string server_version(RedisLink& link) {
  // HELLO 2 (Redis 6+, in @connection) answers the version without INFO, which least-privilege
  // ACL users often may not run (@dangerous). It keeps the protocol at RESP2.
  auto hello = link.execute({{"HELLO", "2"}});
  if (!hello.at(0).is_error()) {
    const auto& fields = hello[0].elements;  // server, redis, version, V, proto, 2, ...
    for (std::size_t i = 0; i + 1 < fields.size(); i += 2)
      if (fields[i].text == "version") return fields[i + 1].text;
  }
  auto replies = link.execute({{"INFO", "server"}});
  const std::string& info = replies.at(0).text;
  if (replies[0].is_error()) throw ReplyError("neither HELLO nor INFO server answered the version: " + info);
  constexpr std::string_view key = "redis_version:";
  auto at = info.find(key);
  if (at == std::string::npos) return "unknown";
  at += key.size();
  return info.substr(at, info.find_first_of("\r\n", at) - at);
}

namespace {

// SCAN MATCH treats * ? [ ] and \ as glob syntax; a prefix must match only itself.
std::string glob_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size() + 1);
  for (char c : text) {
    if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

namespace {

// One step of SCAN over the keys matching `pattern`: the next cursor ("0" at the end) and the keys.
std::pair<std::string, std::vector<std::string>> scan_page(RedisLink& link, const std::string& cursor,
                                                           const std::string& pattern) {
  auto replies = link.execute({{"SCAN", cursor, "MATCH", pattern, "COUNT", "1000"}});
  const Reply& page = replies.at(0);
  if (page.is_error()) throw ReplyError("SCAN failed: " + page.text);
  if (page.kind != Reply::Kind::array || page.elements.size() != 2) throw ReplyError("SCAN returned an unexpected reply");
  std::vector<std::string> keys;
  for (const Reply& key : page.elements[1].elements) keys.push_back(key.text);
  return {page.elements[0].text, std::move(keys)};
}

}  // namespace

ScriptKill kill_running_script(const RedisTarget& target) {
  // A server busy in a script answers nearly everything (PING included) with BUSY, so this is a
  // bare connection: AUTH if need be, then SCRIPT KILL. Synchronous: nothing else is going on.
  const timeval tv{5, 0};
  redisContext* c = target.unix_path.empty() ? redisConnectWithTimeout(target.host.c_str(), target.port, tv)
                                             : redisConnectUnixWithTimeout(target.unix_path.c_str(), tv);
  if (c == nullptr) return {false, "cannot connect"};
  ScriptKill result{false, c->err ? std::string("cannot connect: ") + c->errstr : ""};
  const auto ask = [&](redisReply* r) {
    const bool ok = r != nullptr && r->type != REDIS_REPLY_ERROR;
    if (!ok) result.answer = r ? std::string(r->str, r->len) : std::string("no answer: ") + c->errstr;
    else if (r->type == REDIS_REPLY_STATUS) result.answer = std::string(r->str, r->len);
    if (r) freeReplyObject(r);
    return ok;
  };
  if (c->err == 0 && redisSetTimeout(c, tv) == REDIS_OK) {
    bool authed = true;
    if (target.password)
      authed = ask(static_cast<redisReply*>(
          target.user.empty() ? redisCommand(c, "AUTH %s", target.password->c_str())
                              : redisCommand(c, "AUTH %s %s", target.user.c_str(), target.password->c_str())));
    if (authed) result.killed = ask(static_cast<redisReply*>(redisCommand(c, "SCRIPT KILL")));
  }
  redisFree(c);
  return result;
}

namespace {
void scan_keys_matching(RedisLink& link, const std::string& pattern,
                        const std::function<void(const std::vector<std::string>& keys)>& page) {
  std::string cursor = "0";
  do {
    auto [next, keys] = scan_page(link, cursor, pattern);
    cursor = std::move(next);
    if (!keys.empty()) page(keys);
  } while (cursor != "0");
}
}  // namespace

void scan_keys_with_prefix(RedisLink& link, const std::string& prefix,
                           const std::function<void(const std::vector<std::string>& keys)>& page) {
  scan_keys_matching(link, glob_escape(prefix) + "*", page);
}

void scan_keys_containing(RedisLink& link, const std::string& text,
                          const std::function<void(const std::vector<std::string>& keys)>& page) {
  scan_keys_matching(link, "*" + glob_escape(text) + "*", page);
}

bool keys_exist_with_prefix(RedisLink& link, const std::string& prefix) {
  const std::string pattern = glob_escape(prefix) + "*";
  std::string cursor = "0";
  do {
    auto [next, keys] = scan_page(link, cursor, pattern);
    if (!keys.empty()) return true;
    cursor = std::move(next);
  } while (cursor != "0");
  return false;
}

namespace {
std::uint64_t delete_keys_matching(RedisLink& link, const std::string& pattern) {
  std::uint64_t deleted = 0;
  std::string cursor = "0";
  do {
    auto [next, keys] = scan_page(link, cursor, pattern);
    cursor = std::move(next);
    if (keys.empty()) continue;
    Command unlink{"UNLINK"};
    for (std::string& key : keys) unlink.push_back(std::move(key));
    auto removed = link.execute({std::move(unlink)});
    if (removed.at(0).is_error()) throw ReplyError("UNLINK failed: " + removed[0].text);
    deleted += static_cast<std::uint64_t>(removed[0].integer);
  } while (cursor != "0");
  return deleted;
}
}  // namespace

std::uint64_t delete_keys_with_prefix(RedisLink& link, const std::string& prefix) {
  return delete_keys_matching(link, glob_escape(prefix) + "*");
}

std::uint64_t delete_keys_containing(RedisLink& link, const std::string& text) {
  return delete_keys_matching(link, "*" + glob_escape(text) + "*");
}

}  // namespace semsim
