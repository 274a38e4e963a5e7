#include "sim/core/sim_client.h"

#include <algorithm>
#include <memory>

#include "marks/coverage_marks.h"

namespace semsim {

SimClient::SimClient(Scheduler& scheduler, int id, ClientClock clock, ClientNetwork network, std::uint64_t seed,
                     std::uint64_t identifier_seed)
    : scheduler_(scheduler), id_(id), clock_(clock), network_(std::move(network)), rng_(seed), identifiers_(identifier_seed) {}

void SimClient::wake(std::coroutine_handle<> h) {
  when_awake([h] { h.resume(); });
}

void SimClient::when_awake(std::function<void()> f) {
  if (crashed_) return;
  if (paused()) {
    scheduler_.at(paused_until_, [this, f = std::move(f)] { when_awake(f); });
    return;
  }
  f();
}

namespace {
struct WakeAt {
  Scheduler& scheduler;
  TrueTime at;
  std::function<void(std::coroutine_handle<>)> wake;
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) {
    scheduler.at(at, [w = wake, h] { w(h); });
  }
  void await_resume() const noexcept {}
};
}  // namespace

Task<void> SimClient::sleep(Micros d) {
  WakeAt wake_at{scheduler_, scheduler_.now() + std::max(d, Micros(0)), [this](auto h) { wake(h); }};
  co_await wake_at;
}

std::string SimClient::new_identifier() {
  // A uuid4 from the client's own stream: random order among equal scores, as uuid4 gives.
  // Written digit by digit (snprintf's format parsing was a twentieth of a large run's time).
  const std::uint64_t hi = identifiers_.next(), lo = identifiers_.next();
  std::string id(36, '-');
  const auto hex = [&id](std::size_t at, std::uint64_t value, int digits) {
    for (int i = digits - 1; i >= 0; --i, value >>= 4) id[at + static_cast<std::size_t>(i)] = "0123456789abcdef"[value & 0xf];
  };
  hex(0, hi >> 32, 8);
  hex(9, (hi >> 16) & 0xffff, 4);
  hex(14, 0x4000 | (hi & 0xfff), 4);
  hex(19, 0x8000 | ((lo >> 48) & 0x3fff), 4);
  hex(24, lo & 0xffffffffffffULL, 12);
  return id;
}

struct SimClient::Exchange {
  SimClient& client;
  std::vector<Command> commands;
  bool atomic;
  std::vector<Replies> answers;  // one per delivery: the transaction, or each command of a pipeline
  std::vector<Reply> replies;
  std::string lost;  // why the connection dropped under it
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) { client.send(*this, h); }
  std::vector<Reply> await_resume() {
    if (!lost.empty()) throw ConnectionLost(lost);
    return std::move(replies);
  }
};

void SimClient::finish(std::uint64_t id) {
  const auto it = in_flight_.find(id);
  if (it == in_flight_.end()) return;  // ended already: its connection dropped
  const auto [exchange, h] = it->second;
  // The replies are read when they reach the client: requests sent ahead may have been answered
  // while the simulation went on. A failed link throws here and ends the run.
  for (Replies& answer : exchange->answers)
    for (Reply& reply : answer.take()) exchange->replies.push_back(std::move(reply));
  in_flight_.erase(it);
  wake(h);
}

void SimClient::drop_connection(const std::string& why) {
  ++connection_;
  if (!in_flight_.empty()) mark(Mark::in_flight_at_connection_loss);
  for (auto& [id, exchange] : std::exchange(in_flight_, {})) {
    exchange.first->lost = why;
    wake(exchange.second);
  }
}

void SimClient::send(Exchange& exchange, std::coroutine_handle<> h) {
  const TrueTime sent = scheduler_.now();
  const std::uint64_t id = next_exchange_++;
  in_flight_.emplace(id, std::make_pair(&exchange, h));
  const auto on_the_wire = [this, connection = connection_] { return connection == connection_; };
  std::vector<Replies>* out = &exchange.answers;
  if (exchange.atomic) {
    // A transaction travels and runs as one unit.
    out->resize(1);
    scheduler_.deliver_at(network_.outbound(sent),
                          Delivery{std::move(exchange.commands),
                                   [this, out, id](Replies r) {
                                     if (!in_flight_.count(id)) return;  // its exchange ended: `out` is gone
                                     (*out)[0] = std::move(r);
                                     scheduler_.at(network_.inbound(scheduler_.now()), [this, id] { finish(id); });
                                   },
                                   on_the_wire});
    return;
  }
  // A plain pipeline: each command arrives on its own, so others may run in between; the client
  // continues once the last reply is back (replies come back in order).
  const std::size_t n = exchange.commands.size();
  out->resize(n);
  auto remaining = std::make_shared<std::size_t>(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<Command> one;
    one.push_back(std::move(exchange.commands[i]));
    scheduler_.deliver_at(network_.outbound(sent),
                          Delivery{std::move(one),
                                   [this, out, id, i, remaining](Replies r) {
                                     if (!in_flight_.count(id)) return;  // its exchange ended: `out` is gone
                                     (*out)[i] = std::move(r);
                                     const TrueTime back = network_.inbound(scheduler_.now());
                                     if (--*remaining == 0) scheduler_.at(back, [this, id] { finish(id); });
                                   },
                                   on_the_wire});
  }
}

Task<std::vector<Reply>> SimClient::transaction(std::vector<Command> commands) {
  // Awaiters are named locals: g++ 12 mishandles temporaries in a co_await expression.
  Exchange exchange{*this, as_transaction(std::move(commands)), true, {}, {}, {}};
  std::vector<Reply> replies = co_await exchange;
  co_return transaction_replies(std::move(replies));
}

Task<std::vector<Reply>> SimClient::pipeline(std::vector<Command> commands) {
  Exchange exchange{*this, std::move(commands), false, {}, {}, {}};
  co_return co_await exchange;
}

Task<void> SimClient::guarded(Task<void> task, SimClient& self) {
  std::exception_ptr error;
  try {
    co_await task;
  } catch (...) {
    error = std::current_exception();
  }
  if (error && self.on_failure_) self.on_failure_(error);
  else if (error) std::rethrow_exception(error);
}

void SimClient::spawn(Task<void> task) {
  // The harness spawns a task per lease probe: finished ones go, now and then (their errors went
  // to on_failure_ already), so that a long run's list stays as long as what still runs.
  if (on_failure_ && tasks_.size() >= prune_at_) {
    std::erase_if(tasks_, [](const Task<void>& t) { return t.done(); });
    prune_at_ = std::max<std::size_t>(64, 2 * tasks_.size());
  }
  tasks_.push_back(guarded(std::move(task), *this));
  tasks_.back().start();
}

void SimClient::check_tasks() {
  for (auto& t : tasks_)
    if (t.done()) t.result();
}

}  // namespace semsim
