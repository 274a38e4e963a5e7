#include "sim/core/simulation.h"

#include <algorithm>
#include <cstdio>
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

std::string run_detail(const RunOptions& o, int quorum) {
  // A variant with a space ("driver:node lock.js") is quoted, as any run row value may be.
  std::string detail = KeyValues().set("variant", o.variant).str() + " mode=" + to_string(o.mode) +
                       " seed=" + std::to_string(o.seed) + " clients=" + std::to_string(o.clients) +
                       " limit=" + std::to_string(o.limit) + " duration_ms=" + std::to_string(ms(o.duration)) +
                       " timeout_ms=" + std::to_string(ms(o.timeout));
  if (o.masters > 1) detail += " masters=" + std::to_string(o.masters);
  if (o.masters > 1 && quorum > 0) detail += " quorum=" + std::to_string(quorum);
  return detail;
}

std::string master_clocks_detail(const RunOptions& o, const RunInputs& inputs) {
  if (o.masters < 2) return {};
  std::string skews, drifts;
  bool any = false;
  for (int m = 1; m <= o.masters; ++m) {
    const MasterSpec spec = inputs.master(m);
    const Micros skew = spec.skew.value_or(o.server_skew);
    const double drift = spec.drift_ppm.value_or(o.server_drift_ppm);
    any = any || skew.count() != 0 || drift != 0;
    char text[32];  // at most 1e6 either way (run_options_io.cpp): no exponent
    std::snprintf(text, sizeof text, "%.3f", drift);
    std::string ppm = text;
    while (ppm.find('.') != std::string::npos && (ppm.back() == '0' || ppm.back() == '.')) ppm.pop_back();
    skews += (m > 1 ? "," : "") + std::to_string(skew.count());
    drifts += (m > 1 ? "," : "") + (ppm == "-0" ? std::string("0") : ppm);
  }
  return any ? " master_skew_us=" + skews + " master_drift_ppm=" + drifts : std::string();
}


Simulation::Simulation(const RunOptions& options, RunInputs inputs, Semaphore& semaphore, Connection& link,
                       Recorder::Sink sink)
    : options_(options),
      semaphore_(semaphore),
      masters_{MasterPorts{&link}},
      sink_(std::move(sink)),
      inputs_(std::move(inputs)) {}

void execute_deliveries(std::vector<Delivery> batch, Connection& link, Micros timeout, const std::function<void()>& unblock) {
  std::erase_if(batch, [](const Delivery& d) { return d.dropped(); });  // lost with their connection
  if (batch.empty()) return;
  // Shared with the callbacks: a flush that throws (Redis gone, a timeout) leaves them pending on
  // the link, which calls them later (with the error), after this frame is gone.
  const auto replies = std::make_shared<std::vector<std::vector<Reply>>>(batch.size());
  for (std::size_t i = 0; i < batch.size(); ++i)
    link.submit(std::move(batch[i].commands),
                [replies, i](std::vector<Reply> r, std::exception_ptr) { (*replies)[i] = std::move(r); });
  link.flush(std::chrono::ceil<std::chrono::milliseconds>(timeout), kBlockedAfter, unblock);
  for (std::size_t i = 0; i < batch.size(); ++i) batch[i].done(Replies(std::move((*replies)[i])));
}

Simulation::~Simulation() = default;

void Simulation::check_inputs() const {
  check_server_actions();
  check_server_clock_range();
}

void Simulation::check_server_clock_range() const {
  if (options_.mode != TimeMode::virtual_time) return;  // paced: Redis keeps its own clock
  for (std::size_t m = 0; m < masters_.size(); ++m) {
    if (!masters_[m].clock) continue;
    semsim::check_server_clock_range(options_, inputs_.actions, masters_[m].clock->settable(), static_cast<int>(m),
                                     inputs_.master(static_cast<int>(m) + 1));
  }
}

// Redis's clock reads base(t) + the jumps so far, base linear in true time (skew and drift): on
// each stretch between two jumps its extremes are at the stretch's ends, so those are checked.
// Sums in 128 bits: the jumps of a hostile file may add up past 64.
void check_server_clock_range(const RunOptions& options, const std::vector<ScriptedAction>& actions,
                              ServerClock::Range range, int master, const MasterSpec& spec) {
  const ClientClock base(spec.skew.value_or(options.server_skew), spec.drift_ppm.value_or(options.server_drift_ppm));
  const std::string whose = options.masters > 1 ? "master " + std::to_string(master + 1) + "'s clock" : "Redis's clock";
  const auto acts_on_master = [master](const ScriptedAction& a) {
    return a.masters.empty() ? master == 0 : std::find(a.masters.begin(), a.masters.end(), master) != a.masters.end();
  };
  const TrueTime end = end_of_run(options);
  const auto outside = [&](TrueTime t, __int128 jumped) {
    const __int128 reading = static_cast<__int128>(base.read(t).count()) + jumped;
    return reading < range.earliest.count() || reading > range.latest.count();
  };
  std::vector<const ScriptedAction*> jumps;  // in time order, as the actions are
  for (const ScriptedAction& a : actions)
    if (a.kind == ScriptedAction::Kind::server_jump && a.arg && a.at <= end && acts_on_master(a)) jumps.push_back(&a);
  if (outside(kRunStart, 0) || outside(jumps.empty() ? end : jumps.front()->at, 0))
    throw InputError("--server-skew and --server-drift push " + whose + " outside what the clock library can represent");
  __int128 jumped = 0;
  for (std::size_t i = 0; i < jumps.size(); ++i) {
    const ScriptedAction& a = *jumps[i];
    jumped += a.arg->count();
    const TrueTime until = i + 1 < jumps.size() ? jumps[i + 1]->at : end;
    if (outside(a.at, jumped) || outside(until, jumped))
      throw InputError(options.actions_file + ":" + std::to_string(a.line) + ": field 'arg': server_jump " +
                       format_duration(*a.arg) + " at " + format_duration(a.at - kRunStart) +
                       " pushes " + whose + " outside what the clock library can represent (from 1970-01-01 to "
                       "2262-04-11: nanoseconds since the epoch in 64 bits; true time 0 reads 2026-01-01)");
  }
}

void Simulation::check_server_actions() const {
  if (static_cast<int>(masters_.size()) != options_.masters)
    throw SetupError("the run has " + std::to_string(options_.masters) + " masters but " +
                     std::to_string(masters_.size()) + " Redis links");
  const bool control = std::all_of(masters_.begin(), masters_.end(), [](const MasterPorts& m) { return m.control; });
  const bool at_rates = options_.restart_rate > 0 || options_.disconnect_rate > 0 || options_.redis_pause_rate > 0;
  if (at_rates && !control) throw SetupError("server faults at rates need a Redis semsim can act on");
  if (options_.restart_rate > 0 && !control_processes_)
    throw SetupError("--restart-rate restarts the embedded Redis's primary: not with --redis or --sentinel");
  check_action_masters(options_, inputs_.actions);
  int failovers = 0;
  for (const ScriptedAction& a : inputs_.actions) {
    const std::string where = options_.actions_file + ":" + std::to_string(a.line) + ": field ";
    if (!a.on_server() || a.kind == ScriptedAction::Kind::server_jump) continue;
    if (!control) throw InputError(where + "'action': server faults need a Redis semsim can act on");
    const bool processes = a.kind == ScriptedAction::Kind::redis_restart || a.kind == ScriptedAction::Kind::failover;
    if (processes && !control_processes_)
      throw InputError(where + "'action': redis_restart and failover act on the embedded Redis's processes: not with --redis");
    if (a.kind == ScriptedAction::Kind::failover && ++failovers > options_.server.replicas)
      throw InputError(where + "'action': failover number " + std::to_string(failovers) + " needs --replicas " +
                       std::to_string(failovers) + " or more (a replica to promote)");
  }
}

void check_action_masters(const RunOptions& options, const std::vector<ScriptedAction>& actions) {
  for (const ScriptedAction& a : actions) {
    const std::string where = options.actions_file + ":" + std::to_string(a.line) + ": field ";
    for (int m : a.masters)
      if (m < 0 || m >= options.masters)
        throw InputError(where + "'masters': master " + std::to_string(m + 1) + " does not exist (masters are 1.." +
                         std::to_string(options.masters) + ")");
    if (a.kind == ScriptedAction::Kind::partition && a.masters.empty())
      throw InputError(where + "'masters': a partition names the masters its client cannot reach (`3`, `4 5`, `all`)");
    if (!a.on_server()) continue;
    if (options.masters > 1 && a.masters.empty())
      throw InputError(where + "'masters': with " + std::to_string(options.masters) +
                       " masters a server action names the masters it acts on (`3`, `4 5`, `all`)");
    if (a.kind == ScriptedAction::Kind::failover && options.masters > 1)
      throw InputError(where + "'action': failover promotes a replica, and the masters of a Redlock run have none");
  }
}

// One run, in the order its steps happen: the harness prepares the semaphore, the clients are
// built, faults and actions are scheduled, then the scheduler drives everything to the end.
struct Simulation::State {
  // One Redis master: its ports, its own clock, its own faults, and what its link has counted.
  struct Master {
    Connection* link;
    ServerClock* redis_clock;
    ServerControl* control;
    // Redis's own clock: true time plus its skew, drift and the server_jump actions on it.
    ClientClock server_clock;
    Persistence persistence;
    TrueTime paused_until{};       // redis_pause: it answers nothing before
    std::vector<Delivery> held{};  // arrived during the pause, in arrival order
    bool down = false;             // a restart with downtime: connections are refused
    // Commands sent over links that faults replaced, and the count the current one started at.
    std::uint64_t commands_retired = 0, round_trips_retired = 0;
    std::uint64_t commands_before = 0, round_trips_before = 0;
    // With Redis's clock standing still between deliveries, a blocked WAIT would wait for ever.
    std::function<void()> unblock{};
    Replies::Wait wait{};  // how a client waits for replies sent ahead (Replies::take)
  };

  State(Simulation& sim)
      : o(sim.options_),
        semaphore(sim.semaphore_),
        key_prefix(sim.key_prefix_),
        prefix_in_run_row(sim.prefix_in_run_row_),
        table(sim.inputs_.clients),
        actions(sim.inputs_.actions),
        inputs(sim.inputs_),
        sink(sim.sink_),
        recorder(scheduler, [this](const Event& e) {
          if (e.op == Op::acquire && e.phase == Phase::ok) ++grants;
          sink(e);
        }),
        progress(o.progress) {
    for (std::size_t m = 0; m < sim.masters_.size(); ++m) {
      const MasterPorts& ports = sim.masters_[m];
      const MasterSpec master_spec = sim.inputs_.master(static_cast<int>(m) + 1);
      Master master{.link = ports.link, .redis_clock = ports.clock, .control = ports.control,
                    .server_clock = ClientClock(master_spec.skew.value_or(o.server_skew),
                                                master_spec.drift_ppm.value_or(o.server_drift_ppm)),
                    .persistence = master_spec.persistence.value_or(o.server.persistence)};
      master.commands_before = ports.link->commands_sent();
      master.round_trips_before = ports.link->round_trips();
      master.wait = [this, m](const Replies::Slot& slot) { await(m, &slot); };
      masters.push_back(std::move(master));
    }
  }

  void start_redis_clock();
  void prepare();
  void build_clients();
  std::vector<ClientNetwork> networks_of(int c);
  void bound_lookahead();
  void schedule_server_faults();
  void schedule_actions();
  void drive(TrueTime until);
  void drive_to_end();
  void send_ahead(std::vector<Scheduler::Ahead>& ahead);
  void deliver(std::vector<Delivery> batch);
  void await(std::size_t m, const Replies::Slot* slot);
  void await_all();
  RunResult finish();

  std::uint64_t client_seed(int c, Salt salt) const { return derive_seed(o.seed, client_stream(c, salt)); }
  void deliver_next(TrueTime until);
  void server_fault(const ScriptedAction& a);
  void server_fault(const ScriptedAction& a, std::size_t m);
  void jump_server_clock(const ScriptedAction& a);
  void on_a_new_link(std::size_t m, const std::function<void()>& fault);
  void come_back(std::size_t m);
  void set_up_again(std::size_t m);
  void drop_connections(std::size_t m, const std::string& why);
  // A server row: on client 0, `master=K` first when the run has several.
  void record_server(Op op, std::size_t m, const std::string& detail);
  std::vector<int> targets(const ScriptedAction& a) const { return a.masters.empty() ? std::vector<int>{0} : a.masters; }
  bool any_held() const {
    return std::any_of(masters.begin(), masters.end(), [](const Master& m) { return !m.held.empty(); });
  }
  TrueTime paused_until() const {
    TrueTime t{};
    for (const Master& m : masters) t = std::max(t, m.paused_until);
    return t;
  }
  bool virtual_clock(const Master& m) const { return m.redis_clock && o.mode == TimeMode::virtual_time; }

  const RunOptions& o;
  const TrueTime end = end_of_run(o);
  Semaphore& semaphore;
  const std::string& key_prefix;
  const bool prefix_in_run_row;
  const std::map<int, ClientSpec>& table;
  const std::vector<ScriptedAction>& actions;
  const RunInputs& inputs;  // all of them, for link_model
  Recorder::Sink& sink;

  Scheduler scheduler;
  Recorder recorder;
  std::uint64_t grants = 0;
  std::vector<Master> masters;
  std::unique_ptr<Workload> workload;
  std::unique_ptr<Faults> faults;
  std::vector<std::unique_ptr<SimClient>> clients;  // [0] is the harness (prepare), 1..N simulated
  std::exception_ptr failure;                        // a client task that ended by an exception
  // Set by the link if Redis refuses a SEMSIM.AT (shared: the reply may come after the run).
  std::shared_ptr<std::string> clock_refused = std::make_shared<std::string>();
  Stopwatch wall;
  Pacer pacer;
  Progress progress;
  RunResult result;
  // Lookahead pipelining (virtual mode): the smallest delays with which anything still to run can
  // make a request reach Redis. Zero while the harness, whose network has no delay, may send.
  bool lookahead = o.mode == TimeMode::virtual_time && o.pipeline;
  Micros min_send{0}, min_round_trip{0};
  std::vector<Scheduler::Ahead> ahead;  // each batch sent ahead, reused
};

RunResult Simulation::run() {
  check_inputs();
  State s(*this);
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
  for (Master& m : masters) {
    if (m.redis_clock) {
      if (o.mode == TimeMode::virtual_time) m.redis_clock->set(m.server_clock.read(kRunStart));
      else m.redis_clock->release();
    }
    if (m.control && o.mode == TimeMode::virtual_time) m.unblock = [control = m.control] { control->unblock(); };
  }
}

// The harness prepares the semaphore (SCRIPT LOAD, ...) with no skew and no delay.
void Simulation::State::prepare() {
  const LinkModel instant{Distribution::fixed(Micros(0)), Distribution::fixed(Micros(0)), 0, Distribution::fixed(Micros(0))};
  std::vector<ClientNetwork> networks;
  for (std::size_t m = 0; m < masters.size(); ++m) networks.emplace_back(instant, 0);
  clients.push_back(std::make_unique<SimClient>(scheduler, 0, ClientClock{}, std::move(networks), client_seed(0, behaviour),
                                                client_seed(0, identifiers)));
  std::vector<const ClientClock*> server_clocks;
  for (const Master& m : masters) server_clocks.push_back(&m.server_clock);
  clients[0]->set_server_clocks(server_clocks);
  // No master timeout yet: the harness's network is instant, and a timeout's (empty) event would
  // move true time past the run's start.
  Task<void> task = semaphore.prepare(*clients[0]);
  task.start();
  drive(TrueTime::max());
  if (!task.done() && interrupt_signal()) throw Interrupted(interrupted_by() + " while the variant prepared");
  if (!task.done()) throw SetupError("the variant's preparation did not finish");
  task.result();  // throws SetupError
  recorder.record(0, Micros(0), Op::run, Phase::info, {},
                  run_detail(o, semaphore.quorum(o.masters)) + master_clocks_detail(o, inputs) +
                      (prefix_in_run_row ? " prefix=" + key_prefix : std::string()));
}

LinkModel link_model(const RunOptions& o, const RunInputs& inputs, int client, int master) {
  const auto own = inputs.clients.find(client);
  const ClientSpec spec = own == inputs.clients.end() ? ClientSpec{} : own->second;
  const auto row = inputs.links.find({client, master});
  const LinkSpec link = row == inputs.links.end() ? LinkSpec{} : row->second;
  return {link.delay_out ? *link.delay_out : spec.delay_out ? *spec.delay_out : o.delay_out.value_or(o.delay),
          link.delay_in ? *link.delay_in : spec.delay_in ? *spec.delay_in : o.delay_in.value_or(o.delay),
          o.spike_probability, o.spike};
}

// A client's link to each master (link_model). Master 1's network draws from the client's network
// stream, as in a one-master run; master K's from a stream derived from it.
std::vector<ClientNetwork> Simulation::State::networks_of(int c) {
  std::vector<ClientNetwork> networks;
  for (int m = 0; m < o.masters; ++m) {
    const std::uint64_t seed = client_seed(c, Salt::network);
    networks.emplace_back(link_model(o, inputs, c, m + 1),
                          m == 0 ? seed : derive_seed(seed, static_cast<std::uint64_t>(m)));
  }
  return networks;
}

// Clients 1..N with their clocks, networks and workloads; the harness's own tasks (sampling what
// Redis holds, filling its memory).
void Simulation::State::build_clients() {
  workload = std::make_unique<Workload>(o, semaphore, recorder, scheduler, o.clients);
  std::set<int> scripted;
  bool partitions = false;
  for (const auto& a : actions) {
    scripted.insert(a.client);
    if (a.kind == ScriptedAction::Kind::acquire) workload->expect_scripted_acquire(a.client);
    partitions |= a.kind == ScriptedAction::Kind::partition;
  }
  for (int c = 1; c <= o.clients; ++c) {
    Rng setup(client_seed(c, Salt::setup));
    const ClientSpec spec = table.count(c) ? table.at(c) : ClientSpec{};
    const Micros skew((spec.skew ? *spec.skew : o.skew).sample(setup));
    const double drift = static_cast<double>((spec.drift_ppm ? *spec.drift_ppm : o.drift_ppm).sample(setup));
    clients.push_back(std::make_unique<SimClient>(scheduler, c, ClientClock(skew, drift), networks_of(c),
                                                  client_seed(c, Salt::behaviour), client_seed(c, Salt::identifiers)));
  }
  std::vector<const ClientClock*> server_clocks;
  for (const Master& m : masters) server_clocks.push_back(&m.server_clock);
  for (auto& client : clients) {
    client->on_failure([this](std::exception_ptr e) { if (!failure) failure = e; });
    client->set_server_clocks(server_clocks);
    // The variant's own (a library with none waits for ever); the harness's (client 0) the run's.
    if (o.masters > 1 || partitions)
      client->set_master_timeout(client->id() == 0 ? std::optional<Micros>(o.master_timeout)
                                                   : semaphore.master_timeout(o.master_timeout));
  }
  if (o.masters == 1) clients[0]->set_master_timeout(std::nullopt);  // the harness is never partitioned
  for (int c = 1; c <= o.clients; ++c)
    if (!scripted.count(c)) clients[c]->spawn(workload->loop(*clients[c]));
  bound_lookahead();
  if (o.sample_every.count() > 0 && semaphore.sampled())
    clients[0]->spawn(workload->sample(*clients[0], o.sample_every));
  if (o.fill_memory) clients[0]->spawn(workload->fill(*clients[0], key_prefix));
  if (semaphore.lease_probe() != Semaphore::LeaseProbe::none) workload->probe_leases(*clients[0]);
}

// Without the harness sending during the run, nothing reaches Redis sooner than the smallest
// outbound delay, and no reply causes a request sooner than the smallest round trip.
void Simulation::State::bound_lookahead() {
  const bool harness_sends = (o.sample_every.count() > 0 && semaphore.sampled()) || o.fill_memory ||
                             semaphore.lease_probe() != Semaphore::LeaseProbe::none ||
                             std::any_of(actions.begin(), actions.end(), [](const ScriptedAction& a) { return a.client == 0 && !a.on_server(); });
  if (harness_sends || o.clients == 0) return;
  min_send = Micros::max();
  Micros min_reply = Micros::max();
  for (int c = 1; c <= o.clients; ++c)
    for (int m = 0; m < o.masters; ++m) {
      min_send = std::min(min_send, clients[c]->network(m).min_outbound());
      min_reply = std::min(min_reply, clients[c]->network(m).min_inbound());
    }
  min_round_trip = min_send + min_reply;
}

// A failover's replica stops replicating LAG before it; faults at rates arrive as Poisson
// processes, drawn up front from Redis's own stream (with several masters, each fault on a master
// drawn from it too). Each is a fence: a request the fault loses with its connection must not have
// been sent to Redis ahead of it.
void Simulation::State::schedule_server_faults() {
  for (const ScriptedAction& a : actions)
    if (a.kind == ScriptedAction::Kind::failover)
      scheduler.fence_at(std::max(kRunStart, a.at - *a.arg), [this] { masters[0].control->cut_off_replica(); });
  Rng server_rng(client_seed(0, Salt::server_faults));
  const auto at_rate = [&](double per_second, ScriptedAction::Kind kind) {
    if (per_second <= 0) return;
    const auto gap = [&] { return Micros(static_cast<long long>(server_rng.exponential(1e6 / per_second))); };
    for (TrueTime t = kRunStart + gap(); t < end; t += gap()) {
      ScriptedAction a{t, 0, kind, std::nullopt, 0, {}};
      if (kind == ScriptedAction::Kind::redis_pause)
        a.arg = std::max(Micros(0), o.redis_pause_length.sample_duration(server_rng));
      if (o.masters > 1) a.masters = {static_cast<int>(server_rng.uniform_int(0, o.masters - 1))};
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
        case K::server_jump: jump_server_clock(a); break;
        case K::redis_restart:
        case K::failover:
        case K::disconnect:
        case K::redis_pause:
          server_fault(a);
          break;
        case K::pause: faults->pause(client, *a.arg); break;
        case K::crash: faults->crash(client); break;
        case K::jump: faults->jump(client, *a.arg); break;
        case K::partition: faults->partition(client, a.masters, *a.arg); break;
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

// Redis's clock on each master named: every later request reads it moved.
void Simulation::State::jump_server_clock(const ScriptedAction& a) {
  for (int m : targets(a)) {
    masters[static_cast<std::size_t>(m)].server_clock.jump(scheduler.now(), *a.arg);
    record_server(Op::server_jump, static_cast<std::size_t>(m), "by_us=" + std::to_string(a.arg->count()));
  }
}

void Simulation::State::record_server(Op op, std::size_t m, const std::string& detail) {
  // The row is the harness's: its clock reads true time.
  std::string text = o.masters > 1 ? "master=" + std::to_string(m + 1) : std::string();
  if (!detail.empty()) text += (text.empty() ? "" : " ") + detail;
  recorder.record(0, clients[0]->now(), op, Phase::ok, {}, text);
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
  await_all();  // what was sent ahead is answered before anything else uses the links
}

// Sends deliveries taken ahead (Scheduler::take_ahead) as one pipeline per master, in order, and
// goes on without waiting: Redis runs them meanwhile. Each delivery's `done` is queued at the
// delivery's place, as without the lookahead, with replies read when they reach the client
// (Replies). On the embedded server Redis's clock is set to each delivery's instant from inside
// the pipeline, in its first command (ServerClock::at); the first delivery's too if an earlier
// pipeline may still be running, else on the clock page. A master that is down refuses them.
void Simulation::State::send_ahead(std::vector<Scheduler::Ahead>& ahead) {
  std::erase_if(ahead, [](const Scheduler::Ahead& a) { return a.delivery.dropped(); });  // lost with their connection
  std::vector<std::optional<TrueTime>> clock_set(masters.size());
  std::vector<bool> sent(masters.size(), false);
  for (Scheduler::Ahead& a : ahead) {
    const auto m = static_cast<std::size_t>(a.delivery.master);
    Master& master = masters[m];
    if (master.down) {
      scheduler.reply_at(a.time, a.seq, [m, done = std::move(a.delivery.done)] {
        done(Replies::failed(std::make_exception_ptr(
            ConnectionLost("connection refused: master " + std::to_string(m + 1) + " is down"))));
      });
      continue;
    }
    if (master.redis_clock && !sent[m] && master.link->all_answered()) {
      clock_set[m] = a.time;
      master.redis_clock->set(master.server_clock.read(a.time));
    }
    sent[m] = true;
    const bool set_here = master.redis_clock && clock_set[m] != a.time && !a.delivery.commands.empty();
    if (set_here) {
      clock_set[m] = a.time;
      Command& first = a.delivery.commands.front();
      first = master.redis_clock->at(master.server_clock.read(a.time), std::move(first));
    }
    auto slot = std::make_shared<Replies::Slot>();
    master.link->submit(std::move(a.delivery.commands),
                        [slot, set_here, refused = clock_refused](std::vector<Reply> r, std::exception_ptr error) {
                          // Refused, the prefixed command did not run and says why (SEMSIM.AT's error).
                          if (set_here && !r.empty() && r[0].is_error() && r[0].text.find("SEMSIM.AT") != std::string::npos &&
                              refused->empty())
                            *refused = r[0].text;
                          *slot = Replies::Slot{true, std::move(r), error};
                        });
    scheduler.reply_at(a.time, a.seq, [slot, wait = &master.wait, done = std::move(a.delivery.done)] {
      done(Replies(slot, wait));
    });
  }
  for (std::size_t m = 0; m < masters.size(); ++m)
    if (sent[m]) masters[m].link->send_queued();
  ahead.clear();  // all moved on; the capacity stays for the next batch
}

// Runs master m's link until `slot` is answered, or (null) everything sent. Throws LinkError when
// Redis is gone.
void Simulation::State::await(std::size_t m, const Replies::Slot* slot) {
  Master& master = masters[m];
  if (!master.link) return;  // down: nothing of it is out
  std::function<bool()> answered;
  if (slot) answered = [slot] { return slot->answered; };
  master.link->flush_until(answered, std::chrono::ceil<std::chrono::milliseconds>(o.command_timeout), kBlockedAfter,
                           master.unblock);
  // Requests after a refused setting ran at the wrong instant: no history may go on from there.
  if (!clock_refused->empty()) throw std::runtime_error("Redis refused to set its clock inside a pipeline: " + *clock_refused);
}

void Simulation::State::await_all() {
  for (std::size_t m = 0; m < masters.size(); ++m) await(m, nullptr);
}

// The next step: a lookahead pipeline, or the next instant's events with the requests that
// reach Redis then.
void Simulation::State::deliver_next(TrueTime until) {
  if (lookahead && !any_held() && scheduler.next_is_delivery() && scheduler.next_time() >= paused_until()) {
    scheduler.take_ahead({until, min_send, min_round_trip}, ahead);
    send_ahead(ahead);
    return;
  }
  // A fence acts on Redis or on the connections: after everything sent ahead of it has run.
  if (scheduler.next_is_fence()) await_all();
  std::vector<Delivery> batch = scheduler.next();
  // A paused Redis does not answer now: what arrives waits, in order, until its pause ends; then
  // it runs first.
  std::vector<Delivery> now;
  for (Master& master : masters)
    if (scheduler.now() >= master.paused_until && !master.held.empty()) {
      std::move(master.held.begin(), master.held.end(), std::back_inserter(now));
      master.held.clear();
    }
  for (Delivery& d : batch) {
    Master& master = masters[static_cast<std::size_t>(d.master)];
    if (scheduler.now() < master.paused_until) master.held.push_back(std::move(d));
    else now.push_back(std::move(d));
  }
  if (!now.empty()) deliver(std::move(now));
  if (failure) std::rethrow_exception(std::exchange(failure, nullptr));
  progress.update(scheduler.now().time_since_epoch(), o.duration, grants, scheduler.events_processed());
}

// Runs deliveries due now on their masters, each master's pipelined in order, then hands each its
// replies in the batch's order. A master that is down refuses them.
void Simulation::State::deliver(std::vector<Delivery> batch) {
  await_all();  // the clock page is written next: nothing sent ahead may still be running
  std::vector<bool> used(masters.size(), false);
  for (const Delivery& d : batch) used[static_cast<std::size_t>(d.master)] = true;
  // Redis reads the instant the requests arrive, never a later one while it runs them.
  for (std::size_t m = 0; m < masters.size(); ++m)
    if (used[m] && !masters[m].down && virtual_clock(masters[m]))
      masters[m].redis_clock->set(masters[m].server_clock.read(scheduler.now()));
  std::erase_if(batch, [](const Delivery& d) { return d.dropped(); });  // lost with their connection
  // Shared with the callbacks: when one master's flush throws (it went away, a timeout), the
  // others' requests are still pending on their links, which answer them later, after this frame.
  const auto replies = std::make_shared<std::vector<std::vector<Reply>>>(batch.size());
  std::fill(used.begin(), used.end(), false);
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const auto m = static_cast<std::size_t>(batch[i].master);
    if (masters[m].down) continue;
    used[m] = true;
    masters[m].link->submit(std::move(batch[i].commands),
                            [replies, i](std::vector<Reply> r, std::exception_ptr) { (*replies)[i] = std::move(r); });
  }
  for (std::size_t m = 0; m < masters.size(); ++m)
    if (used[m])
      masters[m].link->flush(std::chrono::ceil<std::chrono::milliseconds>(o.command_timeout), kBlockedAfter,
                             masters[m].unblock);
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const auto m = static_cast<std::size_t>(batch[i].master);
    if (masters[m].down)
      batch[i].done(Replies::failed(std::make_exception_ptr(
          ConnectionLost("connection refused: master " + std::to_string(m + 1) + " is down"))));
    else
      batch[i].done(Replies(std::move((*replies)[i])));
  }
}

// Server faults act on Redis (through control), then on every client's connection: each one
// drops, and what was in flight ends as `info`. The row comes first, then those outcomes. With
// several masters, on each master the action names, in order.
void Simulation::State::server_fault(const ScriptedAction& a) {
  for (int m : targets(a)) server_fault(a, static_cast<std::size_t>(m));
}

void Simulation::State::server_fault(const ScriptedAction& a, std::size_t m) {
  using K = ScriptedAction::Kind;
  const TrueTime now = scheduler.now();
  Master& master = masters[m];
  switch (a.kind) {
    case K::redis_restart: {
      // A crash (SIGKILL): the acknowledged writes in the AOF survive (the OS has them, even with
      // everysec); without persistence nothing does. With downtime it stays down meanwhile,
      // refusing connections, and comes back when it is over.
      const bool keeps = master.persistence != Persistence::none;
      const Micros down = a.arg.value_or(Micros(0));
      if (master.down) break;  // already down: a crash changes nothing
      record_server(Op::redis_restart, m,
                    "persistence=" + std::string(to_string(master.persistence)) +
                        (down.count() > 0 ? " down_us=" + std::to_string(down.count()) : "") +
                        (keeps ? "" : " lost_since_us=0"));
      if (down.count() > 0) {
        master.down = true;
        on_a_new_link(m, [&master] { master.control->go_down(); });
        drop_connections(m, "redis restarted");
        scheduler.fence_at(now + down, [this, m] { come_back(m); });
        break;
      }
      on_a_new_link(m, [&master] { master.control->restart(); });
      if (!keeps) set_up_again(m);
      drop_connections(m, "redis restarted");
      break;
    }
    case K::failover: {
      // With sentinels, the election and real replication decide what the new primary holds.
      const TrueTime lost_since = std::max(kRunStart, now - *a.arg);
      record_server(Op::failover, m,
                    o.server.sentinel ? std::string("elected_by=sentinel")
                                      : "lag_us=" + std::to_string(a.arg->count()) + " lost_since_us=" +
                                            std::to_string(lost_since.time_since_epoch().count()));
      on_a_new_link(m, [&master] { master.control->fail_over(); });
      set_up_again(m);
      drop_connections(m, "failover");
      break;
    }
    case K::disconnect:
      if (master.down) break;
      record_server(Op::disconnect, m, {});
      on_a_new_link(m, [&master] { master.control->reconnect(); });
      drop_connections(m, "connection dropped");
      break;
    case K::redis_pause:
      record_server(Op::redis_pause, m, "length_us=" + std::to_string(a.arg->count()));
      master.paused_until = std::max(master.paused_until, now + *a.arg);
      scheduler.fence_at(master.paused_until, [] {});  // the held requests run then, even if nothing else does
      break;
    default:
      break;
  }
}

// The fault replaces master m's link: count what the old one sent. Null while it is down.
void Simulation::State::on_a_new_link(std::size_t m, const std::function<void()>& fault) {
  Master& master = masters[m];
  if (master.link) {
    master.commands_retired += master.link->commands_sent() - master.commands_before;
    master.round_trips_retired += master.link->round_trips() - master.round_trips_before;
  }
  master.link = nullptr;
  fault();
  if (master.down) return;
  master.link = &master.control->link();
  master.commands_before = master.link->commands_sent();
  master.round_trips_before = master.link->round_trips();
}

// A restart's downtime is over: the master starts on its data directory and takes connections.
void Simulation::State::come_back(std::size_t m) {
  Master& master = masters[m];
  if (!master.down) return;
  master.down = false;
  master.control->come_back();
  master.link = &master.control->link();
  master.commands_before = master.link->commands_sent();
  master.round_trips_before = master.link->round_trips();
  if (master.persistence == Persistence::none) set_up_again(m);
}

// Redis came back without its data: the variant sets itself up again (a script's setup step)
// before any client's request reaches it, on that master alone.
void Simulation::State::set_up_again(std::size_t m) {
  Master& master = masters[m];
  LinkClient harness(*master.link, clients[0]->now(), master.server_clock.read(scheduler.now()));
  if (virtual_clock(master)) master.redis_clock->set(master.server_clock.read(scheduler.now()));
  Task<void> again = semaphore.after_data_loss(harness);
  again.start();
  if (!again.done()) throw SetupError("the variant's set-up after a server fault did not finish");
  again.result();
}

void Simulation::State::drop_connections(std::size_t m, const std::string& why) {
  for (auto& client : clients) {
    if (masters.size() == 1) client->drop_connection(why);
    else client->drop_connection(static_cast<int>(m), why);
  }
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
  for (std::size_t m = 0; m < masters.size(); ++m) {
    if (!masters[m].link || masters[m].link->all_answered()) continue;
    try {
      await(m, nullptr);
    } catch (const std::exception&) {
      // The run has ended and says why; what matters now is a link free for the cleanup.
    }
  }
}

// The run's last row: complete, or why not, with the commands sent. A master still down comes
// back (without a row: the run is over) so that the run's keys can be cleaned.
RunResult Simulation::State::finish() {
  if (result.stop_reason.empty()) {
    result.completed = true;
    scheduler.advance_to(end);
  }
  // No link: a fault failed while replacing it (what the lost one sent after its last count is unknown).
  for (const Master& m : masters) {
    result.commands += m.commands_retired + (m.link ? m.link->commands_sent() - m.commands_before : 0);
    result.round_trips += m.round_trips_retired + (m.link ? m.link->round_trips() - m.round_trips_before : 0);
  }
  const std::string counts = "commands=" + std::to_string(result.commands);
  std::string reason = result.stop_reason;  // quoted in the row: no double quote inside
  for (char& c : reason)
    if (c == '"') c = '\'';
  recorder.record(0, clients[0]->now(), Op::run, result.completed ? Phase::ok : Phase::fail, {},
                  result.completed ? counts : "reason=\"" + reason + "\" " + counts);
  result.events = recorder.events();
  result.wall_s = wall.seconds();
  for (Master& m : masters)
    if (m.down) {
      m.down = false;
      try {
        m.control->come_back();
      } catch (const std::exception&) {
        // The cleanup of the run's keys says what is left where.
      }
    }
  return result;
}

}  // namespace semsim
