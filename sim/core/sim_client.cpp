#include "sim/core/sim_client.h"

#include <algorithm>
#include <memory>

#include "sim/core/duration.h"

#include "marks/coverage_marks.h"

namespace semsim {

SimClient::SimClient(Scheduler& scheduler, int id, ClientClock clock, std::vector<ClientNetwork> networks,
                     std::uint64_t seed, std::uint64_t identifier_seed)
    : scheduler_(scheduler), id_(id), clock_(clock), rng_(seed), identifiers_(identifier_seed) {
  for (std::size_t m = 0; m < networks.size(); ++m)
    links_.push_back(std::make_unique<Link>(*this, static_cast<int>(m), std::move(networks[m])));
}

SimClient::SimClient(Scheduler& scheduler, int id, ClientClock clock, ClientNetwork network, std::uint64_t seed,
                     std::uint64_t identifier_seed)
    : SimClient(scheduler, id, clock, [&] {
        std::vector<ClientNetwork> one;
        one.push_back(std::move(network));
        return one;
      }(), seed, identifier_seed) {}

// The tasks go first: their frames hold exchanges that unregister from in_flight_.
SimClient::~SimClient() { tasks_.clear(); }

std::optional<Micros> SimClient::server_now(int master) const {
  if (server_clocks_.empty()) return scheduler_.now().time_since_epoch();
  return server_clocks_.at(static_cast<std::size_t>(master))->read(scheduler_.now());
}

void SimClient::note(std::string detail) {
  if (detail.empty()) return;
  notes_ += (notes_.empty() ? "" : " ") + detail;
}

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

Task<void> SimClient::sleep(Micros d) {
  struct WakeAt {
    SimClient& client;
    TrueTime at;
    bool await_ready() const noexcept { return false; }
    // Two pointers: the step fits in std::function's own storage, no allocation.
    void await_suspend(std::coroutine_handle<> h) {
      client.scheduler_.at(at, [c = &client, h] { c->wake(h); });
    }
    void await_resume() const noexcept {}
  };
  WakeAt wake_at{*this, scheduler_.now() + std::max(d, Micros(0))};
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
  int master;
  std::vector<Command> commands;
  bool atomic;
  std::vector<Replies> answers;  // one per delivery: the transaction, or each command of a pipeline
  std::size_t remaining = 0;     // deliveries not answered yet (a transaction is one)
  std::vector<Reply> replies;
  std::string lost;        // why the connection dropped under it
  bool timed_out = false;  // no answer within the master timeout
  std::optional<std::uint64_t> id;  // once sent
  Exchange(SimClient& client, int master, std::vector<Command> commands, bool atomic)
      : client(client), master(master), commands(std::move(commands)), atomic(atomic) {}
  Exchange(const Exchange&) = delete;
  Exchange& operator=(const Exchange&) = delete;
  // An exchange abandoned in flight (its frame destroyed: all_settled's `enough`) is forgotten,
  // so that its answer, timeout or lost connection resumes nothing.
  ~Exchange() {
    if (id && client.waiting(*id)) mark(Mark::request_abandoned);
    if (id) client.forget(*id);
  }
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) { client.send(*this, h); }
  std::vector<Reply> await_resume() {
    if (timed_out)
      throw NoAnswer("no answer from master " + std::to_string(master + 1) + " within the master timeout (" +
                     format_duration(*client.master_timeout_) + ")");
    if (!lost.empty()) throw ConnectionLost(lost);
    return std::move(replies);
  }
};

namespace {
// The entry for `id` in a vector of (id, value) sorted by id; null if there is none.
template <typename Entries>
auto* find_by_id(Entries& entries, std::uint64_t id) {
  const auto it = std::lower_bound(entries.begin(), entries.end(), id,
                                   [](const auto& e, std::uint64_t i) { return e.first < i; });
  return it != entries.end() && it->first == id ? &it->second : nullptr;
}
}  // namespace

SimClient::InFlight* SimClient::find_in_flight(std::uint64_t id) { return find_by_id(in_flight_, id); }

SimClient::InFlight& SimClient::in_flight(std::uint64_t id) {
  if (InFlight* f = find_in_flight(id)) return *f;
  throw std::out_of_range("no request " + std::to_string(id) + " in flight");
}

void SimClient::forget(std::uint64_t id) {
  std::erase_if(in_flight_, [id](const auto& f) { return f.first == id; });
}

bool SimClient::waiting(std::uint64_t id) const {
  const InFlight* f = find_by_id(in_flight_, id);
  return f != nullptr && !f->settled;
}

SimClient::Exchange* SimClient::waiting_exchange(std::uint64_t id) {
  InFlight* f = find_in_flight(id);
  return f != nullptr && !f->settled ? f->exchange : nullptr;
}

void SimClient::settle(std::uint64_t id) {
  in_flight(id).settled = true;
  when_awake([this, id] {
    const InFlight* f = find_in_flight(id);
    if (f == nullptr) return;  // abandoned meanwhile
    const std::coroutine_handle<> h = f->handle;
    forget(id);
    h.resume();
  });
}

void SimClient::finish(std::uint64_t id) {
  Exchange* exchange = waiting_exchange(id);
  if (exchange == nullptr) return;  // ended already: its connection dropped, or it timed out
  // The replies are read when they reach the client: requests sent ahead may have been answered
  // while the simulation went on. A failed link throws here and ends the run; a master that was
  // down refused the connection (ConnectionLost), which ends this request alone.
  try {
    if (exchange->answers.size() == 1) exchange->replies = exchange->answers[0].take();  // as it came
    else
      for (Replies& answer : exchange->answers)
        for (Reply& reply : answer.take()) exchange->replies.push_back(std::move(reply));
  } catch (const ConnectionLost& e) {
    exchange->lost = e.what();
  }
  settle(id);
}

void SimClient::time_out(std::uint64_t id) {
  Exchange* exchange = waiting_exchange(id);
  if (exchange == nullptr) return;
  mark(Mark::master_no_answer);
  exchange->timed_out = true;
  settle(id);
}

void SimClient::drop_connection(const std::string& why) {
  for (auto& link : links_) ++link->connection;
  lose_in_flight(-1, why);
}

void SimClient::drop_connection(int master, const std::string& why) {
  ++links_.at(static_cast<std::size_t>(master))->connection;
  lose_in_flight(master, why);
}

// Every request still waiting (on `master`, or -1: on any) ends with ConnectionLost, in send
// order. Resuming a client may send more: those are on the new connection, and stay.
void SimClient::lose_in_flight(int master, const std::string& why) {
  std::vector<std::uint64_t> lost;
  for (const auto& [id, f] : in_flight_)
    if (!f.settled && (master < 0 || f.exchange->master == master)) lost.push_back(id);
  if (!lost.empty()) mark(Mark::in_flight_at_connection_loss);
  for (std::uint64_t id : lost) {
    Exchange* exchange = waiting_exchange(id);
    if (exchange == nullptr) continue;
    exchange->lost = why;
    settle(id);
  }
}

void SimClient::cut(int master, TrueTime until) {
  Link& link = *links_.at(static_cast<std::size_t>(master));
  link.cut_until = std::max(link.cut_until, until);
}

void SimClient::send(Exchange& exchange, std::coroutine_handle<> h) {
  const TrueTime sent = scheduler_.now();
  const std::uint64_t id = next_exchange_++;
  in_flight_.emplace_back(id, InFlight{&exchange, h});
  exchange.id = id;
  Link& link = *links_.at(static_cast<std::size_t>(exchange.master));
  if (master_timeout_) scheduler_.at(sent + *master_timeout_, [this, id] { time_out(id); });
  // Cut by a partition: lost on the way, and the client sees its timeout; a client that waits for
  // ever (no master timeout) is a TCP connection, whose data goes once the partition heals.
  TrueTime leaves = sent;
  if (link.cut_at(sent)) {
    if (master_timeout_) return;
    leaves = link.cut_until;
  }
  const auto on_the_wire = [&link, connection = link.connection] { return connection == link.connection; };
  const int master = exchange.master;
  // A transaction travels and runs as one unit; a plain pipeline's commands arrive one by one, so
  // others may run in between, and the client continues once the last reply is back (replies
  // come back in order). A single command travels in the exchange's own vector.
  const std::size_t n = exchange.atomic ? 1 : exchange.commands.size();
  exchange.answers.resize(n);
  exchange.remaining = n;
  if (n == 1) {
    // Two words: the step fits in std::function's own storage, no allocation an operation.
    scheduler_.deliver_at(link.network.outbound(leaves),
                          Delivery{std::move(exchange.commands), [this, id](Replies r) { answer(id, 0, std::move(r)); },
                                   on_the_wire, master});
    return;
  }
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<Command> one;
    one.push_back(std::move(exchange.commands[i]));
    scheduler_.deliver_at(link.network.outbound(leaves),
                          Delivery{std::move(one), [this, id, i](Replies r) { answer(id, i, std::move(r)); },
                                   on_the_wire, master});
  }
}

void SimClient::answer(std::uint64_t id, std::size_t i, Replies replies) {
  Exchange* exchange = waiting_exchange(id);
  if (exchange == nullptr) return;  // its exchange ended (and may be gone)
  Link& link = *links_[static_cast<std::size_t>(exchange->master)];
  TrueTime leaves = scheduler_.now();
  if (link.cut_at(leaves)) {
    if (master_timeout_) return;  // the answer is lost
    leaves = link.cut_until;      // TCP: it goes once the partition heals
  }
  exchange->answers[i] = std::move(replies);
  const TrueTime back = link.network.inbound(leaves);
  if (--exchange->remaining == 0) scheduler_.at(back, [this, id] { finish(id); });
}

Task<std::vector<Reply>> SimClient::Link::transaction(std::vector<Command> commands) {
  // Awaiters are named locals: g++ 12 mishandles temporaries in a co_await expression.
  Exchange exchange(client, master, as_transaction(std::move(commands)), true);
  std::vector<Reply> replies = co_await exchange;
  co_return transaction_replies(std::move(replies));
}

Task<std::vector<Reply>> SimClient::Link::pipeline(std::vector<Command> commands) {
  Exchange exchange(client, master, std::move(commands), false);
  co_return co_await exchange;
}

Task<Reply> SimClient::Link::call(Command command) {
  std::vector<Command> one;
  one.push_back(std::move(command));
  Exchange exchange(client, master, std::move(one), false);
  std::vector<Reply> replies = co_await exchange;
  co_return std::move(replies.at(0));
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
