#include "sim/core/simulation.h"

#include <algorithm>
#include <memory>
#include <set>

#include "sim/core/client_spec.h"
#include "sim/core/faults.h"
#include "sim/core/interrupt.h"
#include "sim/core/link_client.h"
#include "sim/core/wall_clock.h"
#include "sim/core/workload.h"

namespace semsim {

namespace {

// Salts of the per-client random streams: setup (clock), network, behaviour, faults.
// Client 0 (Redis's side) also draws the server faults at rates from its own stream.
enum Salt : std::uint64_t { setup = 0, network = 1, behaviour = 2, faults = 3, server_faults = 4 };

long long ms(Micros d) { return d.count() / 1000; }

// A healthy replica acknowledges a WAIT within microseconds; this leaves room for a loaded machine.
constexpr std::chrono::milliseconds kBlockedAfter{250};

}  // namespace

std::string run_detail(const RunOptions& o) {
  return "variant=" + o.variant + " mode=" + to_string(o.mode) + " seed=" + std::to_string(o.seed) +
         " clients=" + std::to_string(o.clients) + " limit=" + std::to_string(o.limit) +
         " duration_ms=" + std::to_string(ms(o.duration)) + " timeout_ms=" + std::to_string(ms(o.timeout));
}

struct Simulation::State {
  Scheduler scheduler;
  Recorder recorder;
  std::unique_ptr<Workload> workload;
  std::vector<std::unique_ptr<SimClient>> clients;  // [0] is the harness (prepare), 1..N simulated
  std::exception_ptr failure;                        // a client task that ended by an exception
  Micros redis_paused_until{0};                      // redis_pause: Redis answers nothing before
  std::vector<Delivery> held;                        // arrived during the pause, in arrival order

  explicit State(Recorder::Sink sink) : recorder(scheduler, std::move(sink)) {}
};

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
  for (std::size_t i = 0; i < batch.size(); ++i) batch[i].done(std::move(replies[i]));
}

// Sends deliveries taken ahead (Scheduler::take_ahead) as one pipeline, in order, and queues each
// reply at its delivery's place: its `done` runs when the delivery's turn comes, as without the
// lookahead. Throws LinkError when Redis is gone, as execute_deliveries does.
void send_ahead(Scheduler& scheduler, std::vector<Scheduler::Ahead> ahead, Connection& link, Micros timeout,
                const std::function<void()>& unblock) {
  std::erase_if(ahead, [](const Scheduler::Ahead& a) { return a.delivery.dropped(); });  // lost with their connection
  if (ahead.empty()) return;
  auto replies = std::make_shared<std::vector<std::vector<Reply>>>(ahead.size());
  for (std::size_t i = 0; i < ahead.size(); ++i)
    link.submit(std::move(ahead[i].delivery.commands),
                [replies, i](std::vector<Reply> r, std::exception_ptr) { (*replies)[i] = std::move(r); });
  link.flush(std::chrono::ceil<std::chrono::milliseconds>(timeout), kBlockedAfter, unblock);
  for (std::size_t i = 0; i < ahead.size(); ++i)
    scheduler.reply_at(ahead[i].time, ahead[i].seq,
                       [replies, i, done = std::move(ahead[i].delivery.done)] { done(std::move((*replies)[i])); });
}

Simulation::~Simulation() = default;

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

RunResult Simulation::run() {
  const RunOptions& o = options_;
  const auto& table = table_;
  const auto& actions = actions_;

  std::uint64_t grants = 0;
  State s([&](const Event& e) {
    if (e.op == Op::acquire && e.phase == Phase::ok) ++grants;
    sink_(e);
  });
  const Micros end = o.duration;
  // Redis's own clock: true time plus --server-skew, --server-drift and the server_jump actions.
  ClientClock server_clock(o.server_skew, o.server_drift_ppm);
  if (redis_clock_) {
    if (o.mode == TimeMode::virtual_time) redis_clock_->set(server_clock.read(Micros(0)));
    else redis_clock_->release();
  }
  // Commands sent over links that faults replaced, and the count the current one started at.
  std::uint64_t commands_retired_links = 0, round_trips_retired_links = 0;
  std::uint64_t commands_before = link_->commands_sent(), round_trips_before = link_->round_trips();
  check_server_actions();
  Stopwatch wall;
  Pacer pacer;
  Progress progress(o.progress);
  RunResult result;

  // With Redis's clock standing still between deliveries, a blocked WAIT would wait for ever.
  std::function<void()> unblock;
  if (control_ && redis_clock_ && o.mode == TimeMode::virtual_time) unblock = [this] { control_->unblock(); };
  // Lookahead pipelining (virtual mode): the smallest delays with which anything still to run can
  // make a request reach Redis. Zero while the harness, whose network has no delay, may send.
  const bool lookahead = o.mode == TimeMode::virtual_time && o.pipeline;
  Micros min_send{0}, min_round_trip{0};
  // Runs events until the queue is empty or `until` (exclusive) is reached.
  const auto drive = [&](Micros until) {
    while (!s.scheduler.empty() && s.scheduler.next_time() < until) {
      if (interrupt_signal()) {
        result.stop_reason = "interrupted by signal " + std::to_string(interrupt_signal());
        return;
      }
      if (o.mode == TimeMode::paced) {
        if (!pacer.wait_until(s.scheduler.next_time(), [] { return interrupt_signal() != 0; })) continue;
        result.max_lag = std::max(result.max_lag, pacer.lag(s.scheduler.next_time()));
      }
      if (lookahead && s.held.empty() && s.scheduler.next_is_delivery() &&
          s.scheduler.next_time() >= s.redis_paused_until) {
        const Micros t = s.scheduler.next_time();
        // Redis's clock is one page that every command reads: with it, one pipeline is one instant.
        const Micros last = redis_clock_ ? t : Micros::max();
        if (redis_clock_) redis_clock_->set(server_clock.read(t));
        send_ahead(s.scheduler, s.scheduler.take_ahead({until, last, min_send, min_round_trip}), *link_,
                   options_.command_timeout, unblock);  // LinkError: Redis is gone
        continue;
      }
      std::vector<Delivery> batch = s.scheduler.next();
      if (s.scheduler.now() < s.redis_paused_until) {
        // Redis does not answer now: what arrives waits, in order, until the pause ends.
        std::move(batch.begin(), batch.end(), std::back_inserter(s.held));
        batch.clear();
      } else if (!s.held.empty()) {
        batch.insert(batch.begin(), std::make_move_iterator(s.held.begin()), std::make_move_iterator(s.held.end()));
        s.held.clear();
      }
      if (!batch.empty()) {
        // Redis reads the instant the requests arrive, never a later one while it runs them.
        if (redis_clock_ && o.mode == TimeMode::virtual_time) redis_clock_->set(server_clock.read(s.scheduler.now()));
        execute_deliveries(std::move(batch), *link_, options_.command_timeout, unblock);  // LinkError: Redis is gone
      }
      if (s.failure) std::rethrow_exception(std::exchange(s.failure, nullptr));
      progress.update(s.scheduler.now(), end, s.scheduler.events_processed(), grants);
    }
  };

  const auto client_seed = [&](int c, Salt salt) { return derive_seed(o.seed, client_stream(c, salt)); };

  // The harness prepares the semaphore (SCRIPT LOAD, ...) with no skew and no delay.
  const LinkModel instant{Distribution::fixed(Micros(0)), Distribution::fixed(Micros(0)), 0, Distribution::fixed(Micros(0))};
  s.clients.push_back(std::make_unique<SimClient>(s.scheduler, 0, ClientClock{}, ClientNetwork(instant, 0), client_seed(0, behaviour)));
  s.clients[0]->set_server_clock(&server_clock);
  {
    Task<void> prepare = semaphore_.prepare(*s.clients[0]);
    prepare.start();
    drive(Micros::max());
    if (!prepare.done()) throw SetupError("the variant's preparation did not finish");
    prepare.result();  // throws SetupError
  }
  s.recorder.record(0, Micros(0), Op::run, Phase::info, {}, run_detail(o));

  s.workload = std::make_unique<Workload>(o, semaphore_, s.recorder, s.scheduler, o.clients);
  std::set<int> scripted;
  for (const auto& a : actions) {
    scripted.insert(a.client);
    if (a.kind == ScriptedAction::Kind::acquire) s.workload->expect_scripted_acquire(a.client);
  }

  for (int c = 1; c <= o.clients; ++c) {
    Rng setup(client_seed(c, Salt::setup));
    const ClientSpec spec = table.count(c) ? table.at(c) : ClientSpec{};
    const Micros skew((spec.skew ? *spec.skew : o.skew).sample(setup));
    const double drift = static_cast<double>((spec.drift_ppm ? *spec.drift_ppm : o.drift_ppm).sample(setup));
    LinkModel net{spec.delay_out ? *spec.delay_out : o.delay_out.value_or(o.delay),
                  spec.delay_in ? *spec.delay_in : o.delay_in.value_or(o.delay), o.spike_probability, o.spike};
    s.clients.push_back(std::make_unique<SimClient>(s.scheduler, c, ClientClock(skew, drift),
                                                    ClientNetwork(std::move(net), client_seed(c, Salt::network)),
                                                    client_seed(c, Salt::behaviour)));
  }
  for (auto& client : s.clients) {
    client->on_failure([&s](std::exception_ptr e) { if (!s.failure) s.failure = e; });
    client->set_server_clock(&server_clock);
  }
  for (int c = 1; c <= o.clients; ++c)
    if (!scripted.count(c)) s.clients[c]->spawn(s.workload->loop(*s.clients[c]));
  const bool harness_sends = (o.sample_every.count() > 0 && !semaphore_.admission_set().empty()) || o.fill_memory ||
                             std::any_of(actions.begin(), actions.end(), [](const ScriptedAction& a) { return a.client == 0 && !a.on_server(); });
  if (!harness_sends && o.clients > 0) {
    min_send = Micros::max();
    Micros min_reply = Micros::max();
    for (int c = 1; c <= o.clients; ++c) {
      min_send = std::min(min_send, s.clients[c]->network().min_outbound());
      min_reply = std::min(min_reply, s.clients[c]->network().min_inbound());
    }
    min_round_trip = min_send + min_reply;
  }
  if (o.sample_every.count() > 0 && !semaphore_.admission_set().empty())
    s.clients[0]->spawn(s.workload->sample(*s.clients[0], semaphore_.admission_set(), o.sample_every));
  if (o.fill_memory) s.clients[0]->spawn(s.workload->fill(*s.clients[0], key_prefix_));

  // Server faults act on Redis (through control_), then on every client's connection: each one
  // drops, and what was in flight ends as `info`. The row comes first, then those outcomes.
  const auto on_a_new_link = [&](auto fault) {  // the fault replaces the link: count what the old one sent
    commands_retired_links += link_->commands_sent() - commands_before;
    round_trips_retired_links += link_->round_trips() - round_trips_before;
    link_ = nullptr;
    fault();
    link_ = &control_->link();
    commands_before = link_->commands_sent();
    round_trips_before = link_->round_trips();
  };
  // Redis came back without its data: the variant sets itself up again (a script's setup step)
  // before any client's request reaches it.
  const auto set_up_again = [&] {
    LinkClient harness(*link_, s.scheduler.now(), server_clock.read(s.scheduler.now()));
    if (redis_clock_ && o.mode == TimeMode::virtual_time) redis_clock_->set(server_clock.read(s.scheduler.now()));
    Task<void> again = semaphore_.after_data_loss(harness);
    again.start();
    if (!again.done()) throw SetupError("the variant's set-up after a server fault did not finish");
    again.result();
  };
  const auto drop_connections = [&](const std::string& why) {
    for (auto& client : s.clients) client->drop_connection(why);
  };
  const auto server_fault = [&](const ScriptedAction& a) {
    using K = ScriptedAction::Kind;
    const Micros now = s.scheduler.now();
    switch (a.kind) {
      case K::redis_restart: {
        // A crash (SIGKILL): the acknowledged writes in the AOF survive (the OS has them, even with
        // everysec); without persistence nothing does.
        const bool keeps = o.server.persistence != Persistence::none;
        s.recorder.record(0, now, Op::redis_restart, Phase::ok, {},
                          "persistence=" + std::string(to_string(o.server.persistence)) + (keeps ? "" : " lost_since_us=0"));
        on_a_new_link([&] { control_->restart(); });
        if (!keeps) set_up_again();
        drop_connections("redis restarted");
        break;
      }
      case K::failover:
        // With sentinels, the election and real replication decide what the new primary holds.
        s.recorder.record(0, now, Op::failover, Phase::ok, {},
                          o.server.sentinel ? std::string("elected_by=sentinel")
                                            : "lag_us=" + std::to_string(a.arg->count()) + " lost_since_us=" +
                                                  std::to_string(std::max(Micros(0), now - *a.arg).count()));
        on_a_new_link([&] { control_->fail_over(); });
        set_up_again();
        drop_connections("failover");
        break;
      case K::disconnect:
        s.recorder.record(0, now, Op::disconnect, Phase::ok, {}, {});
        on_a_new_link([&] { control_->reconnect(); });
        drop_connections("connection dropped");
        break;
      case K::redis_pause:
        s.recorder.record(0, now, Op::redis_pause, Phase::ok, {}, "length_us=" + std::to_string(a.arg->count()));
        s.redis_paused_until = std::max(s.redis_paused_until, now + *a.arg);
        s.scheduler.fence_at(s.redis_paused_until, [] {});  // the held requests run then, even if nothing else does
        break;
      default:
        break;
    }
  };
  // A failover loses the writes of its last LAG: its replica stops replicating then.
  for (const ScriptedAction& a : actions)
    if (a.kind == ScriptedAction::Kind::failover)
      s.scheduler.fence_at(std::max(Micros(0), a.at - *a.arg), [&] { control_->cut_off_replica(); });

  // Server faults at rates: Poisson arrivals, drawn up front from Redis's own stream.
  Rng server_rng(client_seed(0, Salt::server_faults));
  const auto at_rate = [&](double per_second, ScriptedAction::Kind kind) {
    if (per_second <= 0) return;
    const auto gap = [&] { return Micros(static_cast<long long>(server_rng.exponential(1e6 / per_second))); };
    for (Micros t = gap(); t < end; t += gap()) {
      ScriptedAction a{t, 0, kind, std::nullopt, 0};
      if (kind == ScriptedAction::Kind::redis_pause)
        a.arg = std::max(Micros(0), o.redis_pause_length.sample_duration(server_rng));
      s.scheduler.at(t, [&server_fault, a] { server_fault(a); });
    }
  };
  at_rate(o.restart_rate, ScriptedAction::Kind::redis_restart);
  at_rate(o.disconnect_rate, ScriptedAction::Kind::disconnect);
  at_rate(o.redis_pause_rate, ScriptedAction::Kind::redis_pause);

  // Scripted actions: faults act on the client itself; operations run as tasks of the client.
  Faults faults(s.scheduler, *s.workload);
  for (const ScriptedAction& a : actions) {
    // Server faults and Redis's clock jumps act on Redis or on the connections: nothing goes ahead of them.
    const auto schedule = [&](Micros t, std::function<void()> step) {
      if (a.on_server()) s.scheduler.fence_at(t, std::move(step));
      else s.scheduler.at(t, std::move(step));
    };
    schedule(a.at, [&s, &faults, &server_clock, &server_fault, a] {
      SimClient& client = *s.clients[a.client];
      using K = ScriptedAction::Kind;
      switch (a.kind) {
        case K::server_jump:  // Redis's clock: every later request reads it moved
          server_clock.jump(s.scheduler.now(), *a.arg);
          s.recorder.record(0, client.now(), Op::server_jump, Phase::ok, {}, "by_us=" + std::to_string(a.arg->count()));
          break;
        case K::redis_restart:
        case K::failover:
        case K::disconnect:
        case K::redis_pause:
          server_fault(a);
          break;
        case K::pause: faults.pause(client, *a.arg); break;
        case K::crash: faults.crash(client); break;
        case K::jump: faults.jump(client, *a.arg); break;
        default:
          client.when_awake([&s, &client, a] { client.spawn(s.workload->scripted(client, a)); });
      }
    });
  }
  for (int c = 1; c <= o.clients; ++c)
    if (o.pause_rate > 0 || o.crash_rate > 0) faults.at_rates(*s.clients[c], o, client_seed(c, Salt::faults));

  try {
    drive(end);
    for (auto& c : s.clients) c->check_tasks();
  } catch (const LinkTimeout& e) {
    result.stop_reason = std::string("redis: ") + e.what() + " (--command-timeout; a script that never returns?)";
    result.timed_out = true;
    s.workload->connection_lost(e.what());
  } catch (const LinkError& e) {
    result.stop_reason = std::string("redis: ") + e.what();
    s.workload->connection_lost(e.what());
  } catch (const std::exception& e) {
    result.stop_reason = std::string("a client failed: ") + e.what();
  }
  if (result.stop_reason.empty()) {
    result.completed = true;
    s.scheduler.advance_to(end);
  }
  result.commands = commands_retired_links + link_->commands_sent() - commands_before;
  result.round_trips = round_trips_retired_links + link_->round_trips() - round_trips_before;
  const std::string counts = "commands=" + std::to_string(result.commands);
  std::string reason = result.stop_reason;  // quoted in the row: no double quote inside
  for (char& c : reason)
    if (c == '"') c = '\'';
  s.recorder.record(0, s.scheduler.now(), Op::run, result.completed ? Phase::ok : Phase::fail, {},
                    result.completed ? counts : "reason=\"" + reason + "\" " + counts);
  result.events = s.recorder.events();
  result.wall_s = wall.seconds();
  return result;
}

}  // namespace semsim
