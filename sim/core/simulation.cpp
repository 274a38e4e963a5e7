#include "sim/core/simulation.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <set>

#include "reports/history/key_values.h"
#include "sim/core/client_spec.h"
#include "sim/core/client_streams.h"
#include "sim/core/faults.h"
#include "sim/core/interrupt.h"
#include "sim/core/link_client.h"
#include "sim/core/wall_clock.h"
#include "sim/core/workload.h"

namespace semsim {

namespace {

// Salts of the per-client random streams (client_streams.h).
using namespace streams;

long long ms(Micros d) { return d.count() / 1000; }

// A healthy replica acknowledges a WAIT within microseconds; this leaves room for a loaded machine.
constexpr std::chrono::milliseconds kBlockedAfter{250};

}  // namespace

std::string run_detail(const RunOptions& o) {
  // A variant with a space ("driver:node lock.js") is quoted, as any run row value may be.
  return KeyValues().set("variant", o.variant).str() + " mode=" + to_string(o.mode) + " seed=" + std::to_string(o.seed) +
         " clients=" + std::to_string(o.clients) + " limit=" + std::to_string(o.limit) +
         " duration_ms=" + std::to_string(ms(o.duration)) + " timeout_ms=" + std::to_string(ms(o.timeout));
}


Simulation::Simulation(const RunOptions& options, RunInputs inputs, Semaphore& semaphore, Connection& link,
                       Recorder::Sink sink)
    : options_(options),
      semaphore_(semaphore),
      link_(&link),
      sink_(std::move(sink)),
      table_(std::move(inputs.clients)),
      actions_(std::move(inputs.actions)) {}

void execute_deliveries(std::vector<Delivery> batch, Connection& link, Micros timeout, const std::function<void()>& unblock) {
  std::erase_if(batch, [](const Delivery& d) { return d.dropped(); });  // lost with their connection
  if (batch.empty()) return;
  std::vector<std::vector<Reply>> replies(batch.size());
  for (std::size_t i = 0; i < batch.size(); ++i)
    link.submit(std::move(batch[i].commands),
                [&replies, i](std::vector<Reply> r, std::exception_ptr) { replies[i] = std::move(r); });
  link.flush(std::chrono::ceil<std::chrono::milliseconds>(timeout), kBlockedAfter, unblock);
  for (std::size_t i = 0; i < batch.size(); ++i) batch[i].done(Replies(std::move(replies[i])));
}

Simulation::~Simulation() = default;

void Simulation::check_inputs() const {
  check_server_actions();
  check_server_clock_range();
}

void Simulation::check_server_clock_range() const {
  if (!redis_clock_ || options_.mode != TimeMode::virtual_time) return;  // paced: Redis keeps its own clock
  semsim::check_server_clock_range(options_, actions_, redis_clock_->settable());
}

// Redis's clock reads base(t) + the jumps so far, base linear in true time (skew and drift): on
// each stretch between two jumps its extremes are at the stretch's ends, so those are checked.
// Sums in 128 bits: the jumps of a hostile file may add up past 64.
void check_server_clock_range(const RunOptions& options, const std::vector<ScriptedAction>& actions,
                              ServerClock::Range range) {
  const ClientClock base(options.server_skew, options.server_drift_ppm);
  const TrueTime end = end_of_run(options);
  const auto outside = [&](TrueTime t, __int128 jumped) {
    const __int128 reading = static_cast<__int128>(base.read(t).count()) + jumped;
    return reading < range.earliest.count() || reading > range.latest.count();
  };
  std::vector<const ScriptedAction*> jumps;  // in time order, as the actions are
  for (const ScriptedAction& a : actions)
    if (a.kind == ScriptedAction::Kind::server_jump && a.arg && a.at <= end) jumps.push_back(&a);
  if (outside(kRunStart, 0) || outside(jumps.empty() ? end : jumps.front()->at, 0))
    throw InputError("--server-skew and --server-drift push Redis's clock outside what the clock library can represent");
  __int128 jumped = 0;
  for (std::size_t i = 0; i < jumps.size(); ++i) {
    const ScriptedAction& a = *jumps[i];
    jumped += a.arg->count();
    const TrueTime until = i + 1 < jumps.size() ? jumps[i + 1]->at : end;
    if (outside(a.at, jumped) || outside(until, jumped))
      throw InputError(options.actions_file + ":" + std::to_string(a.line) + ": field 'arg': server_jump " +
                       format_duration(*a.arg) + " at " + format_duration(a.at - kRunStart) +
                       " pushes Redis's clock outside what the clock library can represent (from 1970-01-01 to "
                       "2262-04-11: nanoseconds since the epoch in 64 bits; true time 0 reads 2026-01-01)");
  }
}

void Simulation::check_server_actions() const {
  const bool at_rates = options_.restart_rate > 0 || options_.disconnect_rate > 0 || options_.redis_pause_rate > 0;
  if (at_rates && !control_) throw SetupError("server faults at rates need a Redis semsim can act on");
  if (options_.restart_rate > 0 && !control_processes_)
    throw SetupError("--restart-rate restarts the embedded Redis's primary: not with --redis or --sentinel");
  int failovers = 0;
  for (const ScriptedAction& a : actions_) {
    if (!a.on_server() || a.kind == ScriptedAction::Kind::server_jump) continue;
    const std::string where = options_.actions_file + ":" + std::to_string(a.line) + ": field 'action': ";
    if (!control_) throw InputError(where + "server faults need a Redis semsim can act on");
    const bool processes = a.kind == ScriptedAction::Kind::redis_restart || a.kind == ScriptedAction::Kind::failover;
    if (processes && !control_processes_)
      throw InputError(where + "redis_restart and failover act on the embedded Redis's processes: not with --redis");
    if (a.kind == ScriptedAction::Kind::failover && ++failovers > options_.server.replicas)
      throw InputError(where + "failover number " + std::to_string(failovers) + " needs --replicas " +
                       std::to_string(failovers) + " or more (a replica to promote)");
  }
}


// One run, in the order its steps happen: the harness prepares the semaphore, the clients are
// built, faults and actions are scheduled, then the scheduler drives everything to the end.
struct Simulation::State {
  State(Simulation& sim)
      : o(sim.options_),
        semaphore(sim.semaphore_),
        control(sim.control_),
        redis_clock(sim.redis_clock_),
        link(sim.link_),
        key_prefix(sim.key_prefix_),
        prefix_in_run_row(sim.prefix_in_run_row_),
        table(sim.table_),
        actions(sim.actions_),
        sink(sim.sink_),
        recorder(scheduler, [this](const Event& e) {
          if (e.op == Op::acquire && e.phase == Phase::ok) ++grants;
          sink(e);
        }),
        server_clock(o.server_skew, o.server_drift_ppm),
        progress(o.progress) {}

  void start_redis_clock();
  void prepare();
  void build_clients();
  void bound_lookahead();
  void schedule_server_faults();
  void schedule_actions();
  void drive(TrueTime until);
  void drive_to_end();
  void send_ahead(std::vector<Scheduler::Ahead> ahead);
  void await(const Replies::Slot* slot);
  RunResult finish();

  std::uint64_t client_seed(int c, Salt salt) const { return derive_seed(o.seed, client_stream(c, salt)); }
  void deliver_next(TrueTime until);
  void server_fault(const ScriptedAction& a);
  void on_a_new_link(const std::function<void()>& fault);
  void set_up_again();
  void drop_connections(const std::string& why);

  const RunOptions& o;
  const TrueTime end = end_of_run(o);
  Semaphore& semaphore;
  ServerControl* control;
  ServerClock* redis_clock;
  Connection* link;
  const std::string& key_prefix;
  const bool prefix_in_run_row;
  const std::map<int, ClientSpec>& table;
  const std::vector<ScriptedAction>& actions;
  Recorder::Sink& sink;

  Scheduler scheduler;
  Recorder recorder;
  std::uint64_t grants = 0;
  std::unique_ptr<Workload> workload;
  std::unique_ptr<Faults> faults;
  std::vector<std::unique_ptr<SimClient>> clients;  // [0] is the harness (prepare), 1..N simulated
  std::exception_ptr failure;                        // a client task that ended by an exception
  TrueTime redis_paused_until{};                     // redis_pause: Redis answers nothing before
  std::vector<Delivery> held;                        // arrived during the pause, in arrival order
  // Redis's own clock: true time plus --server-skew, --server-drift and the server_jump actions.
  ClientClock server_clock;
  // Commands sent over links that faults replaced, and the count the current one started at.
  std::uint64_t commands_retired_links = 0, round_trips_retired_links = 0;
  std::uint64_t commands_before = link->commands_sent(), round_trips_before = link->round_trips();
  std::uint64_t clock_commands = 0;  // SEMSIM.CLOCK inside pipelines: the harness's, not the variant's
  // Set by the link if Redis refuses a SEMSIM.CLOCK (shared: the reply may come after the run).
  std::shared_ptr<std::string> clock_refused = std::make_shared<std::string>();
  // How a client waits for replies sent ahead (Replies::take).
  const Replies::Wait wait_for_replies = [this](const Replies::Slot& slot) { await(&slot); };
  Stopwatch wall;
  Pacer pacer;
  Progress progress;
  RunResult result;
  // With Redis's clock standing still between deliveries, a blocked WAIT would wait for ever.
  std::function<void()> unblock;
  // Lookahead pipelining (virtual mode): the smallest delays with which anything still to run can
  // make a request reach Redis. Zero while the harness, whose network has no delay, may send.
  bool lookahead = o.mode == TimeMode::virtual_time && o.pipeline;
  Micros min_send{0}, min_round_trip{0};
};

RunResult Simulation::run() {
  State s(*this);
  check_inputs();
  s.start_redis_clock();
  s.prepare();
  try {
    s.build_clients();
  } catch (const std::bad_alloc&) {
    const std::size_t built = s.clients.empty() ? 0 : s.clients.size() - 1;  // [0] is the harness
    s.clients.clear();
    s.workload.reset();
    throw OutOfMemory("ran out of memory building the clients: " + std::to_string(built) + " of " +
                      std::to_string(options_.clients) + " fit in the memory this process may use (ulimit -v, a "
                      "cgroup, the machine's RAM), before the run needed any for itself: try --clients " +
                      std::to_string(std::max<std::size_t>(1, built / 2)) + " or fewer");
  }
  s.schedule_server_faults();
  s.schedule_actions();
  s.drive_to_end();
  return s.finish();
}

void Simulation::State::start_redis_clock() {
  if (!redis_clock) return;
  if (o.mode == TimeMode::virtual_time) redis_clock->set(server_clock.read(kRunStart));
  else redis_clock->release();
  if (control && o.mode == TimeMode::virtual_time) unblock = [this] { control->unblock(); };
}

// The harness prepares the semaphore (SCRIPT LOAD, ...) with no skew and no delay.
void Simulation::State::prepare() {
  const LinkModel instant{Distribution::fixed(Micros(0)), Distribution::fixed(Micros(0)), 0, Distribution::fixed(Micros(0))};
  clients.push_back(std::make_unique<SimClient>(scheduler, 0, ClientClock{}, ClientNetwork(instant, 0), client_seed(0, behaviour),
                                                client_seed(0, identifiers)));
  clients[0]->set_server_clock(&server_clock);
  Task<void> task = semaphore.prepare(*clients[0]);
  task.start();
  drive(TrueTime::max());
  if (!task.done() && interrupt_signal()) throw Interrupted(interrupted_by() + " while the variant prepared");
  if (!task.done()) throw SetupError("the variant's preparation did not finish");
  task.result();  // throws SetupError
  recorder.record(0, Micros(0), Op::run, Phase::info, {},
                  run_detail(o) + (prefix_in_run_row ? " prefix=" + key_prefix : std::string()));
}

// Clients 1..N with their clocks, networks and workloads; the harness's own tasks (sampling what
// Redis holds, filling its memory).
void Simulation::State::build_clients() {
  workload = std::make_unique<Workload>(o, semaphore, recorder, scheduler, o.clients);
  std::set<int> scripted;
  for (const auto& a : actions) {
    scripted.insert(a.client);
    if (a.kind == ScriptedAction::Kind::acquire) workload->expect_scripted_acquire(a.client);
  }
  for (int c = 1; c <= o.clients; ++c) {
    Rng setup(client_seed(c, Salt::setup));
    const ClientSpec spec = table.count(c) ? table.at(c) : ClientSpec{};
    const Micros skew((spec.skew ? *spec.skew : o.skew).sample(setup));
    const double drift = static_cast<double>((spec.drift_ppm ? *spec.drift_ppm : o.drift_ppm).sample(setup));
    LinkModel net{spec.delay_out ? *spec.delay_out : o.delay_out.value_or(o.delay),
                  spec.delay_in ? *spec.delay_in : o.delay_in.value_or(o.delay), o.spike_probability, o.spike};
    clients.push_back(std::make_unique<SimClient>(scheduler, c, ClientClock(skew, drift),
                                                  ClientNetwork(std::move(net), client_seed(c, Salt::network)),
                                                  client_seed(c, Salt::behaviour), client_seed(c, Salt::identifiers)));
  }
  for (auto& client : clients) {
    client->on_failure([this](std::exception_ptr e) { if (!failure) failure = e; });
    client->set_server_clock(&server_clock);
  }
  for (int c = 1; c <= o.clients; ++c)
    if (!scripted.count(c)) clients[c]->spawn(workload->loop(*clients[c]));
  bound_lookahead();
  if (o.sample_every.count() > 0 && !semaphore.admission_set().empty())
    clients[0]->spawn(workload->sample(*clients[0], semaphore.admission_set(), o.sample_every));
  if (o.fill_memory) clients[0]->spawn(workload->fill(*clients[0], key_prefix));
  if (semaphore.lease_probe() != Semaphore::LeaseProbe::none) workload->probe_leases(*clients[0]);
}

// Without the harness sending during the run, nothing reaches Redis sooner than the smallest
// outbound delay, and no reply causes a request sooner than the smallest round trip.
void Simulation::State::bound_lookahead() {
  const bool harness_sends = (o.sample_every.count() > 0 && !semaphore.admission_set().empty()) || o.fill_memory ||
                             semaphore.lease_probe() != Semaphore::LeaseProbe::none ||
                             std::any_of(actions.begin(), actions.end(), [](const ScriptedAction& a) { return a.client == 0 && !a.on_server(); });
  if (harness_sends || o.clients == 0) return;
  min_send = Micros::max();
  Micros min_reply = Micros::max();
  for (int c = 1; c <= o.clients; ++c) {
    min_send = std::min(min_send, clients[c]->network().min_outbound());
    min_reply = std::min(min_reply, clients[c]->network().min_inbound());
  }
  min_round_trip = min_send + min_reply;
}

// A failover's replica stops replicating LAG before it; faults at rates arrive as Poisson
// processes, drawn up front from Redis's own stream. Each is a fence: a request the fault loses
// with its connection must not have been sent to Redis ahead of it.
void Simulation::State::schedule_server_faults() {
  for (const ScriptedAction& a : actions)
    if (a.kind == ScriptedAction::Kind::failover)
      scheduler.fence_at(std::max(kRunStart, a.at - *a.arg), [this] { control->cut_off_replica(); });
  Rng server_rng(client_seed(0, Salt::server_faults));
  const auto at_rate = [&](double per_second, ScriptedAction::Kind kind) {
    if (per_second <= 0) return;
    const auto gap = [&] { return Micros(static_cast<long long>(server_rng.exponential(1e6 / per_second))); };
    for (TrueTime t = kRunStart + gap(); t < end; t += gap()) {
      ScriptedAction a{t, 0, kind, std::nullopt, 0};
      if (kind == ScriptedAction::Kind::redis_pause)
        a.arg = std::max(Micros(0), o.redis_pause_length.sample_duration(server_rng));
      scheduler.fence_at(t, [this, a] { server_fault(a); });
    }
  };
  at_rate(o.restart_rate, ScriptedAction::Kind::redis_restart);
  at_rate(o.disconnect_rate, ScriptedAction::Kind::disconnect);
  at_rate(o.redis_pause_rate, ScriptedAction::Kind::redis_pause);
}

// Scripted actions: faults act on the client itself; operations run as tasks of the client;
// server faults and Redis's clock jumps act on Redis or on the connections, and nothing goes
// ahead of them. Then the clients' pauses and crashes at rates.
void Simulation::State::schedule_actions() {
  faults = std::make_unique<Faults>(scheduler, *workload);
  for (const ScriptedAction& a : actions) {
    auto step = [this, a] {
      SimClient& client = *clients[a.client];
      using K = ScriptedAction::Kind;
      switch (a.kind) {
        case K::server_jump:  // Redis's clock: every later request reads it moved
          server_clock.jump(scheduler.now(), *a.arg);
          recorder.record(0, client.now(), Op::server_jump, Phase::ok, {}, "by_us=" + std::to_string(a.arg->count()));
          break;
        case K::redis_restart:
        case K::failover:
        case K::disconnect:
        case K::redis_pause:
          server_fault(a);
          break;
        case K::pause: faults->pause(client, *a.arg); break;
        case K::crash: faults->crash(client); break;
        case K::jump: faults->jump(client, *a.arg); break;
        default:
          client.when_awake([this, &client, a] { client.spawn(workload->scripted(client, a)); });
      }
    };
    if (a.on_server()) scheduler.fence_at(a.at, std::move(step));
    else scheduler.at(a.at, std::move(step));
  }
  for (int c = 1; c <= o.clients; ++c)
    if (o.pause_rate > 0 || o.crash_rate > 0) faults->at_rates(*clients[c], o, client_seed(c, Salt::faults));
}

// Runs events until the queue is empty or `until` (exclusive) is reached, then waits for every
// reply still out (not when interrupted). Throws LinkError when Redis is gone.
void Simulation::State::drive(TrueTime until) {
  while (!scheduler.empty() && scheduler.next_time() < until) {
    if (interrupt_signal()) {
      result.stop_reason = interrupted_by();
      return;
    }
    if (o.mode == TimeMode::paced) {
      // Waiting for the wall clock, the progress line follows it (a paced run may be quiet for long).
      const auto stop = [&] {
        progress.update(pacer.elapsed(), o.duration, grants, scheduler.events_processed());
        return interrupt_signal() != 0;
      };
      if (!pacer.wait_until(scheduler.next_time(), stop)) continue;
      result.max_lag = std::max(result.max_lag, pacer.lag(scheduler.next_time()));
    }
    deliver_next(until);
  }
  await(nullptr);  // what was sent ahead is answered before anything else uses the link
}

// Sends deliveries taken ahead (Scheduler::take_ahead) as one pipeline, in order, and goes on
// without waiting: Redis runs it meanwhile. Each delivery's `done` is queued at the delivery's
// place, as without the lookahead, with replies read when they reach the client (Replies). On the
// embedded server Redis's clock is set to each delivery's instant from inside the pipeline
// (ServerClock::in_band); the first one too if an earlier pipeline may still be running, else
// on the clock page (one command less for Redis: small runs send a request or two at a time).
void Simulation::State::send_ahead(std::vector<Scheduler::Ahead> ahead) {
  std::erase_if(ahead, [](const Scheduler::Ahead& a) { return a.delivery.dropped(); });  // lost with their connection
  std::optional<TrueTime> clock_set;
  if (redis_clock && !ahead.empty() && link->all_answered()) {
    clock_set = ahead.front().time;
    redis_clock->set(server_clock.read(*clock_set));
  }
  for (Scheduler::Ahead& a : ahead) {
    if (redis_clock && clock_set != a.time) {
      clock_set = a.time;
      link->submit({redis_clock->in_band(server_clock.read(a.time))},
                   [refused = clock_refused](std::vector<Reply> r, std::exception_ptr) {
                     if (!r.empty() && r[0].is_error() && refused->empty()) *refused = r[0].text;
                   });
      ++clock_commands;
    }
    auto slot = std::make_shared<Replies::Slot>();
    link->submit(std::move(a.delivery.commands), [slot](std::vector<Reply> r, std::exception_ptr error) {
      *slot = Replies::Slot{true, std::move(r), error};
    });
    scheduler.reply_at(a.time, a.seq, [this, slot, done = std::move(a.delivery.done)] { done(Replies(slot, &wait_for_replies)); });
  }
  link->send_queued();
}

// Runs the link until `slot` is answered, or (null) everything sent. Throws LinkError when Redis
// is gone.
void Simulation::State::await(const Replies::Slot* slot) {
  std::function<bool()> answered;
  if (slot) answered = [slot] { return slot->answered; };
  link->flush_until(answered, std::chrono::ceil<std::chrono::milliseconds>(o.command_timeout), kBlockedAfter, unblock);
  // Requests after a refused setting ran at the wrong instant: no history may go on from there.
  if (!clock_refused->empty()) throw std::runtime_error("Redis refused to set its clock inside a pipeline: " + *clock_refused);
}

// The next step: a lookahead pipeline, or the next instant's events with the requests that
// reach Redis then.
void Simulation::State::deliver_next(TrueTime until) {
  if (lookahead && held.empty() && scheduler.next_is_delivery() && scheduler.next_time() >= redis_paused_until) {
    send_ahead(scheduler.take_ahead({until, min_send, min_round_trip}));
    return;
  }
  // A fence acts on Redis or on the connections: after everything sent ahead of it has run.
  if (scheduler.next_is_fence()) await(nullptr);
  std::vector<Delivery> batch = scheduler.next();
  if (scheduler.now() < redis_paused_until) {
    // Redis does not answer now: what arrives waits, in order, until the pause ends.
    std::move(batch.begin(), batch.end(), std::back_inserter(held));
    batch.clear();
  } else if (!held.empty()) {
    batch.insert(batch.begin(), std::make_move_iterator(held.begin()), std::make_move_iterator(held.end()));
    held.clear();
  }
  if (!batch.empty()) {
    await(nullptr);  // the clock page is written next: nothing sent ahead may still be running
    // Redis reads the instant the requests arrive, never a later one while it runs them.
    if (redis_clock && o.mode == TimeMode::virtual_time) redis_clock->set(server_clock.read(scheduler.now()));
    execute_deliveries(std::move(batch), *link, o.command_timeout, unblock);
  }
  if (failure) std::rethrow_exception(std::exchange(failure, nullptr));
  progress.update(scheduler.now().time_since_epoch(), o.duration, grants, scheduler.events_processed());
}

// Server faults act on Redis (through control), then on every client's connection: each one
// drops, and what was in flight ends as `info`. The row comes first, then those outcomes.
void Simulation::State::server_fault(const ScriptedAction& a) {
  using K = ScriptedAction::Kind;
  const TrueTime now = scheduler.now();
  const Micros harness_now = clients[0]->now();  // the row is the harness's: its clock reads true time
  switch (a.kind) {
    case K::redis_restart: {
      // A crash (SIGKILL): the acknowledged writes in the AOF survive (the OS has them, even with
      // everysec); without persistence nothing does.
      const bool keeps = o.server.persistence != Persistence::none;
      recorder.record(0, harness_now, Op::redis_restart, Phase::ok, {},
                      "persistence=" + std::string(to_string(o.server.persistence)) + (keeps ? "" : " lost_since_us=0"));
      on_a_new_link([this] { control->restart(); });
      if (!keeps) set_up_again();
      drop_connections("redis restarted");
      break;
    }
    case K::failover: {
      // With sentinels, the election and real replication decide what the new primary holds.
      const TrueTime lost_since = std::max(kRunStart, now - *a.arg);
      recorder.record(0, harness_now, Op::failover, Phase::ok, {},
                      o.server.sentinel ? std::string("elected_by=sentinel")
                                        : "lag_us=" + std::to_string(a.arg->count()) + " lost_since_us=" +
                                              std::to_string(lost_since.time_since_epoch().count()));
      on_a_new_link([this] { control->fail_over(); });
      set_up_again();
      drop_connections("failover");
      break;
    }
    case K::disconnect:
      recorder.record(0, harness_now, Op::disconnect, Phase::ok, {}, {});
      on_a_new_link([this] { control->reconnect(); });
      drop_connections("connection dropped");
      break;
    case K::redis_pause:
      recorder.record(0, harness_now, Op::redis_pause, Phase::ok, {}, "length_us=" + std::to_string(a.arg->count()));
      redis_paused_until = std::max(redis_paused_until, now + *a.arg);
      scheduler.fence_at(redis_paused_until, [] {});  // the held requests run then, even if nothing else does
      break;
    default:
      break;
  }
}

// The fault replaces the link: count what the old one sent.
void Simulation::State::on_a_new_link(const std::function<void()>& fault) {
  commands_retired_links += link->commands_sent() - commands_before;
  round_trips_retired_links += link->round_trips() - round_trips_before;
  link = nullptr;
  fault();
  link = &control->link();
  commands_before = link->commands_sent();
  round_trips_before = link->round_trips();
}

// Redis came back without its data: the variant sets itself up again (a script's setup step)
// before any client's request reaches it.
void Simulation::State::set_up_again() {
  LinkClient harness(*link, clients[0]->now(), server_clock.read(scheduler.now()));
  if (redis_clock && o.mode == TimeMode::virtual_time) redis_clock->set(server_clock.read(scheduler.now()));
  Task<void> again = semaphore.after_data_loss(harness);
  again.start();
  if (!again.done()) throw SetupError("the variant's set-up after a server fault did not finish");
  again.result();
}

void Simulation::State::drop_connections(const std::string& why) {
  for (auto& client : clients) client->drop_connection(why);
}

// Drives the run to its end; a failure of Redis or of a client ends it early, with the
// operations then in flight recorded as `info`.
void Simulation::State::drive_to_end() {
  try {
    drive(end);
    for (auto& c : clients) c->check_tasks();
  } catch (const LinkTimeout& e) {
    result.stop_reason = std::string("redis: ") + e.what() + " (--command-timeout; a script that never returns?)";
    result.timed_out = true;
    workload->connection_lost(e.what());
  } catch (const LinkError& e) {
    // A signal closes the link too (replies still on their way would be lost), but Redis did not fail.
    result.stop_reason = interrupt_signal() ? interrupted_by() : std::string("redis: ") + e.what();
    workload->connection_lost(interrupt_signal() ? interrupted_by() : e.what());
  } catch (const std::bad_alloc&) {
    result.stop_reason = "ran out of memory at true time " + std::to_string(ms(scheduler.now().time_since_epoch())) +
                         " ms, with " + std::to_string(o.clients) + " clients built: fewer clients or a shorter run fit";
  } catch (const std::exception& e) {
    result.stop_reason = std::string("a client failed: ") + e.what();
  }
  // An early end may leave requests sent ahead unanswered, a blocked WAIT among them: answer them
  // (unblocked) or close the link, so that the cleanup of the run's keys does not wait behind them.
  if (link && !link->all_answered()) {
    try {
      await(nullptr);
    } catch (const std::exception&) {
      // The run has ended and says why; what matters now is a link free for the cleanup.
    }
  }
}

// The run's last row: complete, or why not, with the commands sent.
RunResult Simulation::State::finish() {
  if (result.stop_reason.empty()) {
    result.completed = true;
    scheduler.advance_to(end);
  }
  // No link: a fault failed while replacing it (what the lost one sent after its last count is unknown).
  result.commands = commands_retired_links + (link ? link->commands_sent() - commands_before : 0) - clock_commands;
  result.round_trips = round_trips_retired_links + (link ? link->round_trips() - round_trips_before : 0);
  const std::string counts = "commands=" + std::to_string(result.commands);
  std::string reason = result.stop_reason;  // quoted in the row: no double quote inside
  for (char& c : reason)
    if (c == '"') c = '\'';
  recorder.record(0, clients[0]->now(), Op::run, result.completed ? Phase::ok : Phase::fail, {},
                  result.completed ? counts : "reason=\"" + reason + "\" " + counts);
  result.events = recorder.events();
  result.wall_s = wall.seconds();
  return result;
}

}  // namespace semsim
