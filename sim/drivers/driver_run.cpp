#include "sim/drivers/driver_run.h"

#include <poll.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>

#include "algorithms/api/semaphore.h"
#include "sim/core/client_streams.h"
#include "sim/core/interrupt.h"
#include "sim/core/random.h"
#include "sim/drivers/clock_reach.h"
#include "sim/drivers/driver_clock.h"
#include "sim/drivers/driver_process.h"
#include "sim/drivers/driver_protocol.h"
#include "sim/drivers/history_order.h"
#include "sim/drivers/real_clock.h"

namespace semsim {

namespace {

constexpr std::int64_t kSecond = 1'000'000'000;
// How long a driver may take from its start to `driver ok - ready` (a runtime loading its
// modules on a loaded machine takes seconds).
constexpr std::int64_t kReadyLimitNs = 60 * kSecond;
// While a driver starts, its clock is moved this far beyond the plan: at `ready`, a wall clock that
// did not move by it tells a driver the library cannot reach.
constexpr std::int64_t kProbeNs = 3600 * kSecond;
// A driver writes its line within this long of reading its clock, unless semsim stopped it: rows
// older than this (and than any stopped driver's pause) go to the history in order.
constexpr std::int64_t kOrderWindowNs = kSecond;
// How long semsim waits to see a signal land (a group stopped, running again, gone).
constexpr std::int64_t kObserveNs = kSecond;
// At the end: how long drivers have to quit before they are killed.
constexpr std::int64_t kQuitGraceNs = 2 * kSecond;

// A folder of the run's own under the system's temporary folder, removed with it.
struct PrivateDir {
  std::filesystem::path path;
  PrivateDir() {
    std::string name = (std::filesystem::temp_directory_path() / "semsim-drivers-XXXXXX").string();
    if (!::mkdtemp(name.data())) throw SetupError("cannot make a folder for the clients' clock pages in " + name);
    path = name;
  }
  ~PrivateDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
};

// A failure of the run once it started: it ends early, and says this.
struct DriverFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::int64_t us(Micros d) { return d.count(); }

}  // namespace

std::string driver_command(const std::string& variant) {
  return variant.starts_with("driver:") ? variant.substr(7) : std::string();
}

DriverRun::DriverRun(const RunOptions& options, RunInputs inputs, DriverSetup setup, Sink sink)
    : options_(options), inputs_(std::move(inputs)), setup_(std::move(setup)), sink_(std::move(sink)) {}

DriverRun::~DriverRun() = default;

void DriverRun::set_server_control(ServerControl* control, bool processes,
                                   std::function<std::vector<Endpoint>()> masters_now) {
  control_ = control;
  control_processes_ = processes;
  masters_now_ = std::move(masters_now);
}

// As the simulation checks them (Simulation::check_server_actions), and what real time cannot do.
void DriverRun::check_server_actions() const {
  const RunOptions& o = options_;
  if ((o.restart_rate > 0 || o.disconnect_rate > 0 || o.redis_pause_rate > 0) && !control_)
    throw SetupError("server faults at rates need a Redis semsim can act on");
  if (o.restart_rate > 0 && !control_processes_)
    throw SetupError("--restart-rate restarts the embedded Redis's primary: not with --redis or --sentinel");
  if (o.server_skew.count() != 0 || o.server_drift_ppm != 0)
    throw SetupError("--server-skew and --server-drift: a driver run is real time, and Redis's own clock is the "
                     "machine's (docs/drivers.md, what cannot be moved)");
  if (o.fill_memory) throw SetupError("--fill-memory is not available in a driver run");
  int failovers = 0;
  for (const ScriptedAction& a : inputs_.actions) {
    if (!a.on_server()) continue;
    const std::string where = o.actions_file + ":" + std::to_string(a.line) + ": field 'action': ";
    if (a.kind == ScriptedAction::Kind::server_jump)
      throw InputError(where + "server_jump: a driver run is real time, and Redis's own clock is the machine's");
    if (!control_) throw InputError(where + "server faults need a Redis semsim can act on");
    const bool processes = a.kind == ScriptedAction::Kind::redis_restart || a.kind == ScriptedAction::Kind::failover;
    if (processes && !control_processes_)
      throw InputError(where + "redis_restart and failover act on the embedded Redis's processes: not with --redis");
    if (a.kind == ScriptedAction::Kind::failover && ++failovers > o.server.replicas)
      throw InputError(where + "failover number " + std::to_string(failovers) + " needs --replicas " +
                       std::to_string(failovers) + " or more (a replica to promote)");
  }
}

namespace {

// A permit a client asked for: the commands about it that are out, and what comes after each.
struct Permit {
  struct Pending {
    std::int64_t sent_ns = 0;
    bool invoked = false;
    std::function<void(Phase)> then;
  };
  std::map<DriverOp, Pending> pending;
  bool granted = false;
};

struct DriverClient {
  int id = 0;
  std::unique_ptr<DriverClock> clock;
  std::vector<std::unique_ptr<ClientProxy>> proxies;  // one per master
  std::unique_ptr<DriverProcess> process;
  std::uint64_t epoch = 0;  // one more per process: steps planned for a dead one do nothing
  bool ready = false;
  bool crashed = false;
  bool scripted = false;
  int scripted_acquires_left = 0;
  // Its clock as planned: skew and drift from the clock stream, and whether anything moves it.
  Micros skew{0};
  double drift_ppm = 0;
  bool plan_moves_clock = false;
  bool unmoved_noted = false;
  // Pauses: stopped now, until when, since when (true µs), and when it last resumed (ns).
  bool paused = false;
  std::int64_t paused_until_ns = 0, paused_from_us = 0, resumed_ns = 0;
  Rng behaviour{0};
  int permits_asked = 0;
  std::map<std::string, Permit> permits;
  std::string holding;  // the permit it believes it holds, or ""
  std::vector<std::pair<DriverOp, std::string>> backlog;  // commands waiting for `ready`
};

}  // namespace

struct DriverRun::State {
  explicit State(DriverRun& r) : run(r), o(r.options_), history(r.sink_) {}

  void start();
  void start_process(DriverClient& c);
  void await_ready();
  void begin();
  void schedule();
  void loop();
  void finish();
  void end_processes(bool gracefully);

  // Protocol.
  void drain(bool before_start);
  void handle_line(DriverClient& c, const std::string& text);
  void on_ready(DriverClient& c, const DriverLine& line);
  void send(DriverClient& c, const std::string& id, DriverOp op, std::function<void(Phase)> then);
  [[noreturn]] void fail(const DriverClient& c, const std::string& what, const std::string& line = {});

  // The workload, as sim/core's Workload runs it.
  void think(DriverClient& c);
  void try_acquire(DriverClient& c, int tries);
  void hold(DriverClient& c, const std::string& id, Micros length, std::function<void()> next);
  void refresh_step(DriverClient& c, const std::string& id, std::int64_t until_ns, std::function<void()> next);
  void release(DriverClient& c, const std::string& id, std::function<void()> next);
  void scripted(DriverClient& c, const ScriptedAction& a);
  std::string new_permit(DriverClient& c);

  // Faults.
  void pause(DriverClient& c, Micros length);
  void resume(DriverClient& c);
  void crash(DriverClient& c);
  void jump(DriverClient& c, Micros by);
  void server_fault(const ScriptedAction& a);
  // Runs `work` on Redis's processes (a restart, a failover), which takes real time.
  void on_redis(const std::function<void()>& work);
  void faults_at_rates(DriverClient& c);
  void server_faults_at_rates();
  void use_masters_now();

  // Time and rows.
  std::int64_t true_us(std::int64_t mono_ns) const { return (mono_ns - t0) / kNsPerUs; }
  std::int64_t now_us() const { return true_us(monotonic_ns()); }
  void at(std::int64_t due_ns, std::function<void()> step) { timers.emplace(due_ns, std::move(step)); }
  // A step of a client's process: nothing if the process it was planned for has died.
  void after(DriverClient& c, Micros delay, std::function<void()> step);
  void record(int client, std::int64_t mono_ns, std::int64_t client_us, Op op, Phase phase, std::string id = {},
              std::string detail = {});
  // A row of semsim's own about a client (a fault): its clock as the page sets it.
  void record_fault(DriverClient& c, std::int64_t mono_ns, Op op, std::string detail = {});
  void record_server(std::int64_t mono_ns, Op op, std::string detail = {});
  std::int64_t watermark_us(std::int64_t drained_ns) const;
  std::uint64_t seed(int client, streams::Salt salt) const { return derive_seed(o.seed, client_stream(client, salt)); }

  DriverRun& run;
  const RunOptions& o;
  HistoryOrder history;
  PrivateDir pages;  // the clients' clock pages
  std::vector<std::unique_ptr<DriverClient>> clients;  // [0] is Redis's side: no process
  std::vector<std::shared_ptr<Upstream>> upstreams;
  std::multimap<std::int64_t, std::function<void()>> timers;  // by due instant; ties in order
  bool started = false;
  std::int64_t t0 = 0, end_ns = 0;
  std::int64_t wall_origin_us = 0;   // the real wall clock at true time 0
  std::int64_t real_minus_mono = 0;  // CLOCK_REALTIME - CLOCK_MONOTONIC, as semsim reads them
  std::int64_t fault_busy_until_ns = 0, fault_busy_ns = 0;  // semsim acting on Redis's processes
  LagMeter lags;
  std::int64_t step_late_max_ns = 0;
  std::int64_t restarts = 0;
  RunResult result;
};

RunResult DriverRun::run() {
  check_server_actions();
  State s(*this);  // its processes end with it, whatever is thrown
  try {
    s.start();
    s.await_ready();
  } catch (...) {
    s.end_processes(false);
    throw;
  }
  s.begin();
  s.schedule();
  try {
    s.loop();
  } catch (const std::exception& e) {  // a driver broke the protocol or died, Redis failed
    s.result.stop_reason = e.what();
  }
  s.finish();
  return s.result;
}

// Every client's clock page, proxies and process; their clocks moved by the probe until `ready`.
void DriverRun::State::start() {
  real_minus_mono = realtime_ns() - monotonic_ns();  // for the clock check at `ready`
  for (const Endpoint& m : run.setup_.masters) upstreams.push_back(std::make_shared<Upstream>(m));
  if (upstreams.empty()) throw SetupError("a driver run needs a Redis to connect its clients to");
  std::set<int> scripted;
  for (const ScriptedAction& a : run.inputs_.actions) scripted.insert(a.client);
  clients.push_back(nullptr);
  std::filesystem::create_directories(run.setup_.log_dir);
  for (int id = 1; id <= o.clients; ++id) {
    auto c = std::make_unique<DriverClient>();
    c->id = id;
    c->scripted = scripted.count(id) > 0;
    c->behaviour = Rng(seed(id, streams::behaviour));
    for (const ScriptedAction& a : run.inputs_.actions)
      if (a.client == id && a.kind == ScriptedAction::Kind::acquire) ++c->scripted_acquires_left;
    c->clock = std::make_unique<DriverClock>(pages.path / ("client-" + std::to_string(id)));
    Rng setup(seed(id, streams::setup));  // as the simulation draws a client's clock
    const ClientSpec clock_spec = run.inputs_.clients.count(id) ? run.inputs_.clients.at(id) : ClientSpec{};
    c->skew = Micros((clock_spec.skew ? *clock_spec.skew : o.skew).sample(setup));
    c->drift_ppm = static_cast<double>((clock_spec.drift_ppm ? *clock_spec.drift_ppm : o.drift_ppm).sample(setup));
    c->plan_moves_clock = c->skew.count() != 0 || c->drift_ppm != 0;
    for (const ScriptedAction& a : run.inputs_.actions)
      c->plan_moves_clock |= a.client == id && a.kind == ScriptedAction::Kind::jump;
    const ClientSpec spec = run.inputs_.clients.count(id) ? run.inputs_.clients.at(id) : ClientSpec{};
    const LinkModel net{spec.delay_out ? *spec.delay_out : o.delay_out.value_or(o.delay),
                        spec.delay_in ? *spec.delay_in : o.delay_in.value_or(o.delay), o.spike_probability, o.spike};
    for (std::size_t m = 0; m < upstreams.size(); ++m)
      c->proxies.push_back(std::make_unique<ClientProxy>(
          net, derive_seed(seed(id, streams::network), m), std::const_pointer_cast<const Upstream>(upstreams[m])));
    clients.push_back(std::move(c));
  }
  for (int id = 1; id <= o.clients; ++id) start_process(*clients[id]);
}

void DriverRun::State::start_process(DriverClient& c) {
  std::string addresses;
  for (const auto& p : c.proxies) addresses += (addresses.empty() ? "" : " ") + p->address();
  const char* preload = std::getenv("LD_PRELOAD");
  DriverSpawn spawn;
  spawn.command = run.setup_.command;
  spawn.environment = {
      {"SEMSIM_REDIS", addresses},
      {"SEMSIM_KEY", run.setup_.key},
      {"SEMSIM_LIMIT", std::to_string(o.limit)},
      {"SEMSIM_TIMEOUT_MS", std::to_string(us(o.timeout) / 1000)},
      {"SEMSIM_CLIENT", std::to_string(c.id)},
      {"SEMSIM_CLIENT_CLOCK_PAGE", c.clock->path().string()},
      {"LD_PRELOAD", run.setup_.clock_library.string() + (preload && *preload ? std::string(" ") + preload : "")},
      // The proxy authenticates: the driver needs no password, and gets none.
      {"SEMSIM_REDIS_PASSWORD", ""},
  };
  spawn.stderr_file = run.setup_.log_dir / ("client-" + std::to_string(c.id) + ".stderr");
  c.clock->jump(kProbeNs);
  try {
    c.process = std::make_unique<DriverProcess>(spawn);
  } catch (const std::exception& e) {
    c.clock->jump(-kProbeNs);
    if (!started) throw SetupError("client " + std::to_string(c.id) + ": " + e.what());
    throw DriverFailure("client " + std::to_string(c.id) + ": " + e.what());
  }
  ++c.epoch;
  c.ready = false;
  c.crashed = false;
  if (started)  // a fresh process mid-run must get ready as the first ones had to
    at(monotonic_ns() + kReadyLimitNs, [this, &c, epoch = c.epoch] {
      if (c.epoch == epoch && !c.ready && c.process)
        fail(c, "the driver did not say `driver ok - ready` within " + std::to_string(kReadyLimitNs / kSecond) + " s");
    });
}

void DriverRun::State::await_ready() {
  const std::int64_t limit = monotonic_ns() + kReadyLimitNs;
  for (;;) {
    if (interrupt_signal()) throw Interrupted("interrupted by signal " + std::to_string(interrupt_signal()));
    drain(true);
    const auto waiting = std::find_if(clients.begin() + 1, clients.end(), [](const auto& c) { return !c->ready; });
    if (waiting == clients.end()) return;
    if (monotonic_ns() > limit)
      fail(**waiting, "the driver did not say `driver ok - ready` within " + std::to_string(kReadyLimitNs / kSecond) + " s");
    std::vector<pollfd> fds;
    for (std::size_t i = 1; i < clients.size(); ++i)
      if (clients[i]->process->output_fd() >= 0) fds.push_back({clients[i]->process->output_fd(), POLLIN, 0});
    ::poll(fds.data(), fds.size(), 50);
  }
}

// True time 0: every clock takes its planned skew and drift, and the history begins.
void DriverRun::State::begin() {
  t0 = monotonic_ns();
  real_minus_mono = realtime_ns() - monotonic_ns();
  wall_origin_us = (t0 + real_minus_mono) / kNsPerUs;
  end_ns = t0 + us(o.duration) * kNsPerUs;
  started = true;
  for (int id = 1; id <= o.clients; ++id) clients[id]->clock->set(us(clients[id]->skew) * kNsPerUs, t0, clients[id]->drift_ppm);
  record_server(t0, Op::run, run_detail(o));  // the simulation's first row, word for word
}

// The clients' loops, scripted actions, faults at rates, server faults: as the simulation plans them.
void DriverRun::State::schedule() {
  for (int id = 1; id <= o.clients; ++id)
    if (!clients[id]->scripted) think(*clients[id]);
  for (const ScriptedAction& a : run.inputs_.actions) {
    const std::int64_t due = t0 + us(a.at.time_since_epoch()) * kNsPerUs;
    if (a.on_server()) {
      if (a.kind == ScriptedAction::Kind::failover)
        at(t0 + std::max<std::int64_t>(0, us(a.at.time_since_epoch()) - us(*a.arg)) * kNsPerUs,
           [this] { on_redis([this] { run.control_->cut_off_replica(); }); });
      at(due, [this, a] { server_fault(a); });
      continue;
    }
    DriverClient& c = *clients[a.client];
    using K = ScriptedAction::Kind;
    switch (a.kind) {
      case K::pause: at(due, [this, &c, a] { pause(c, *a.arg); }); break;
      case K::crash: at(due, [this, &c] { crash(c); }); break;
      case K::jump: at(due, [this, &c, a] { jump(c, *a.arg); }); break;
      default: at(due, [this, &c, a] { scripted(c, a); });
    }
  }
  for (int id = 1; id <= o.clients; ++id)
    if (o.pause_rate > 0 || o.crash_rate > 0) faults_at_rates(*clients[id]);
  server_faults_at_rates();
}

void DriverRun::State::loop() {
  std::vector<pollfd> fds;
  for (;;) {
    if (interrupt_signal()) {
      result.stop_reason = "interrupted by signal " + std::to_string(interrupt_signal());
      return;
    }
    std::int64_t now = monotonic_ns();
    while (!timers.empty() && timers.begin()->first <= now && timers.begin()->first < end_ns) {
      auto node = timers.extract(timers.begin());
      step_late_max_ns = std::max(step_late_max_ns, now - std::max(node.key(), fault_busy_until_ns));
      node.mapped()();
      now = monotonic_ns();
    }
    const std::int64_t drained = monotonic_ns();
    drain(false);
    history.release_before(watermark_us(drained));
    if (drained >= end_ns) return;
    fds.clear();
    for (std::size_t i = 1; i < clients.size(); ++i) {
      const DriverProcess* p = clients[i]->process.get();
      if (!p) continue;
      if (p->output_fd() >= 0) fds.push_back({p->output_fd(), POLLIN, 0});
      if (p->input_pending() && p->input_fd() >= 0) fds.push_back({p->input_fd(), POLLOUT, 0});
    }
    std::int64_t next = end_ns;
    if (!timers.empty()) next = std::min(next, timers.begin()->first);
    const std::int64_t wait = std::clamp<std::int64_t>(next - monotonic_ns(), 0, 50 * kNsPerMs);
    const timespec ts{0, static_cast<long>(wait)};
    ::ppoll(fds.data(), fds.size(), &ts, nullptr);
  }
}

// Reads every driver's output and handles its lines; a driver whose output ended has exited.
void DriverRun::State::drain(bool before_start) {
  for (std::size_t i = 1; i < clients.size(); ++i) {
    DriverClient& c = *clients[i];
    if (!c.process) continue;
    c.process->flush_input();
    std::vector<std::string> lines;
    const bool open = c.process->read_lines(lines);
    for (const std::string& line : lines) {
      handle_line(c, line);
      if (!c.process) break;  // crashed by what the line set off
    }
    if (!c.process || open) continue;
    // Its stdout closed: the driver exited (or closed it), which no plan asked for.
    c.process->await_gone(kObserveNs / 4);
    const auto how = c.process->exited();
    fail(c, std::string(before_start ? "the driver ended before it said `driver ok - ready`" : "the driver ended") +
                " (its stdout closed" + (how ? "; it " + *how : "") + ")");
  }
}

void DriverRun::State::fail(const DriverClient& c, const std::string& what, const std::string& line) {
  std::string message = "client " + std::to_string(c.id) + ": " + what;
  if (!line.empty()) message += ": '" + quoted_line(line) + "'";
  if (c.process) {
    const std::string tail = c.process->stderr_tail(3);
    message += tail.empty() ? " (its stderr is empty: " + c.process->stderr_file().string() + ")"
                            : " (its stderr ends: " + tail + ")";
  }
  if (!started) throw SetupError(message);
  throw DriverFailure(message);
}

void DriverRun::State::handle_line(DriverClient& c, const std::string& text) {
  DriverLine line;
  try {
    line = parse_driver_line(text);
  } catch (const ProtocolError& e) {
    fail(c, e.what(), text);
  }
  if (!c.ready) {
    if (!line.is_ready()) fail(c, "a line before `driver ok - ready`", text);
    on_ready(c, line);
    return;
  }
  if (line.is_ready()) fail(c, "said `driver ok - ready` twice", text);
  if (line.mono_ns >= end_ns) return;  // after the run's end: not in its history
  const std::int64_t client_us = line.wall_ms * 1000 - wall_origin_us;
  auto found = c.permits.find(line.id);
  if (found == c.permits.end()) fail(c, "ID '" + quoted_line(line.id) + "' is none semsim sent", text);
  Permit& permit = found->second;
  const Op op = history_op(line.op);
  auto pending = permit.pending.find(line.op);
  if (line.phase == Phase::invoke) {
    if (pending == permit.pending.end() || pending->second.invoked)
      fail(c, "an invoke semsim did not ask for (it sent no " + std::string(to_string(line.op)) + " " + line.id + ")", text);
    pending->second.invoked = true;
    // From the command's write (or the end of a pause it waited out) to the invoke.
    lags.add((line.mono_ns - std::max(pending->second.sent_ns, c.resumed_ns)) / kNsPerUs);
    record(c.id, line.mono_ns, client_us, op, Phase::invoke, line.id);
    return;
  }
  if (pending == permit.pending.end()) {
    // The one line a driver says unasked: its library lost the permit it holds.
    if (line.op != DriverOp::refresh || line.phase != Phase::fail)
      fail(c, "an outcome semsim did not ask for (it sent no " + std::string(to_string(line.op)) + " " + line.id + ")", text);
    if (c.holding != line.id) return;  // released meanwhile: nothing it believes is lost
    c.holding.clear();
    record(c.id, line.mono_ns, client_us, Op::refresh, Phase::fail, line.id, line.detail);
    return;
  }
  if (!pending->second.invoked) fail(c, "an outcome before its invoke", text);
  std::function<void(Phase)> then = std::move(pending->second.then);
  permit.pending.erase(pending);
  if (line.op == DriverOp::acquire && line.phase == Phase::ok) {
    permit.granted = true;
    c.holding = line.id;
  }
  if (line.op == DriverOp::refresh && line.phase == Phase::fail && c.holding == line.id) c.holding.clear();
  record(c.id, line.mono_ns, client_us, op, line.phase, line.id, line.detail);
  if (then) then(line.phase);
}

// `driver ok - ready`: its clock must have moved by the probe; then the plan's clock, and go.
void DriverRun::State::on_ready(DriverClient& c, const DriverLine& line) {
  const std::int64_t observed = line.wall_ms * kNsPerMs - (line.mono_ns + real_minus_mono);
  const std::int64_t expected = c.clock->shift_at(line.mono_ns);
  if (std::llabs(observed - expected) > kProbeNs / 2 && !c.plan_moves_clock) {
    // It cannot be moved, and this plan never moves it: it runs on the machine's clock, as planned.
    if (!c.unmoved_noted)
      run.notes_.push_back("client " + std::to_string(c.id) + ": its wall clock cannot be moved (" +
                           why_clock_did_not_move(c.process->members(), run.setup_.clock_library) +
                           "); this plan gives it no skew, drift or jump, so it runs as it is");
    c.unmoved_noted = true;
  } else if (std::llabs(observed - expected) > kProbeNs / 2)
    fail(c, "its wall clock did not follow semsim's client clock library (it read " +
                std::to_string(observed / kNsPerMs) + " ms from the real one, where the library had put it at " +
                std::to_string(expected / kNsPerMs) + " ms, an hour ahead of the plan to check that it moves): " +
                why_clock_did_not_move(c.process->members(), run.setup_.clock_library) +
                ". semsim cannot give this driver skew, drift or jumps (docs/drivers.md, what cannot be moved)");
  c.clock->jump(-kProbeNs);
  c.ready = true;
  const std::int64_t now = monotonic_ns();
  for (const auto& [op, id] : std::exchange(c.backlog, {})) {
    c.permits[id].pending[op].sent_ns = now;
    c.process->send(command_line(op, id));
  }
}

void DriverRun::State::send(DriverClient& c, const std::string& id, DriverOp op, std::function<void(Phase)> then) {
  Permit::Pending& p = c.permits[id].pending[op];
  p = {monotonic_ns(), false, std::move(then)};
  if (c.ready) c.process->send(command_line(op, id));
  else c.backlog.emplace_back(op, id);
}

void DriverRun::State::after(DriverClient& c, Micros delay, std::function<void()> step) {
  at(monotonic_ns() + us(delay) * kNsPerUs, [&c, epoch = c.epoch, step = std::move(step)] {
    if (c.epoch == epoch && !c.crashed) step();
  });
}

std::string DriverRun::State::new_permit(DriverClient& c) {
  std::string id = "c" + std::to_string(c.id) + "-" + std::to_string(++c.permits_asked);
  c.permits[id];
  return id;
}

namespace {
// At least 1 µs, as the simulation's workload: a client that thinks for 0 must not spin.
Micros at_least_1us(Micros d) { return std::max(d, Micros(1)); }
}  // namespace

void DriverRun::State::think(DriverClient& c) {
  after(c, at_least_1us(o.think.sample_duration(c.behaviour)), [this, &c] {
    if (monotonic_ns() >= end_ns) return;
    try_acquire(c, 0);
  });
}

void DriverRun::State::try_acquire(DriverClient& c, int tries) {
  const std::string id = new_permit(c);
  send(c, id, DriverOp::acquire, [this, &c, id, tries](Phase phase) {
    if (phase == Phase::ok) {
      hold(c, id, o.hold.sample_duration(c.behaviour), [this, &c] { think(c); });
    } else if (tries < o.retries && monotonic_ns() < end_ns) {
      after(c, at_least_1us(o.retry_delay.sample_duration(c.behaviour)), [this, &c, tries] { try_acquire(c, tries + 1); });
    } else {
      think(c);
    }
  });
}

void DriverRun::State::hold(DriverClient& c, const std::string& id, Micros length, std::function<void()> next) {
  const std::int64_t until = monotonic_ns() + us(length) * kNsPerUs;
  if (o.refresh_every.count() > 0) {
    refresh_step(c, id, until, std::move(next));
    return;
  }
  after(c, length, [this, &c, id, next = std::move(next)] {
    if (c.holding == id) release(c, id, next);
    else if (next) next();
  });
}

void DriverRun::State::refresh_step(DriverClient& c, const std::string& id, std::int64_t until_ns, std::function<void()> next) {
  const Micros wait = std::min(o.refresh_every, Micros((until_ns - monotonic_ns()) / kNsPerUs));
  after(c, std::max(wait, Micros(0)), [this, &c, id, until_ns, next = std::move(next)] {
    if (c.holding != id) {  // lost meanwhile
      if (next) next();
      return;
    }
    if (monotonic_ns() >= until_ns) {
      release(c, id, next);
      return;
    }
    send(c, id, DriverOp::refresh, [this, &c, id, until_ns, next](Phase phase) {
      if (phase == Phase::fail) {
        if (next) next();
      } else {
        refresh_step(c, id, until_ns, next);  // ok, or unknown: it goes on believing
      }
    });
  });
}

void DriverRun::State::release(DriverClient& c, const std::string& id, std::function<void()> next) {
  c.holding.clear();
  send(c, id, DriverOp::release, [next = std::move(next)](Phase) {
    if (next) next();
  });
}

void DriverRun::State::scripted(DriverClient& c, const ScriptedAction& a) {
  using K = ScriptedAction::Kind;
  if (a.kind == K::acquire) {
    if (c.crashed) {  // a fresh process, as a restarted service would be: no permit, no memory
      start_process(c);
      ++restarts;
    }
    const Micros length = a.arg ? *a.arg : o.hold.sample_duration(c.behaviour);
    const std::string id = new_permit(c);
    send(c, id, DriverOp::acquire, [this, &c, id, length](Phase phase) {
      if (--c.scripted_acquires_left == 0 && phase != Phase::ok)
        record_fault(c, monotonic_ns(), Op::done, "no further acquire in the script");
      if (phase == Phase::ok) hold(c, id, length, {});
    });
  } else if (a.kind == K::release && !c.holding.empty()) {
    release(c, c.holding, {});
  } else if (a.kind == K::refresh && !c.holding.empty()) {
    send(c, c.holding, DriverOp::refresh, {});
  }
}

void DriverRun::State::pause(DriverClient& c, Micros length) {
  if (c.crashed || !c.process) return;
  std::int64_t landed = monotonic_ns();
  if (!c.paused) {
    c.process->stop();
    c.process->await_stopped(kObserveNs);
    landed = monotonic_ns();
    c.paused = true;
    c.paused_from_us = true_us(landed);
  }
  record_fault(c, landed, Op::pause, "length_us=" + std::to_string(us(length)));
  c.paused_until_ns = std::max(c.paused_until_ns, landed + us(length) * kNsPerUs);
  at(landed + us(length) * kNsPerUs, [this, &c, epoch = c.epoch] {
    if (c.epoch == epoch && c.paused && monotonic_ns() >= c.paused_until_ns) resume(c);
  });
}

void DriverRun::State::resume(DriverClient& c) {
  // SIGCONT wakes the group while it is sent: the group may run before kill() even returns, so the
  // instant it landed is the one just before.
  const std::int64_t landed = monotonic_ns();
  c.process->resume();
  c.process->await_running(kObserveNs);
  c.paused = false;
  c.resumed_ns = landed;
  record_fault(c, landed, Op::resume);
}

void DriverRun::State::crash(DriverClient& c) {
  if (c.crashed || !c.process) return;
  c.process->kill();
  c.process->await_gone(kObserveNs);
  record_fault(c, monotonic_ns(), Op::crash);
  c.process.reset();
  c.crashed = true;
  c.ready = false;
  c.paused = false;
  c.permits.clear();  // silent for ever, as the simulation's crashed client
  c.backlog.clear();
  c.holding.clear();
  ++c.epoch;
}

void DriverRun::State::jump(DriverClient& c, Micros by) {
  if (c.crashed) return;
  c.clock->jump(us(by) * kNsPerUs);
  record_fault(c, monotonic_ns(), Op::jump, "by_us=" + std::to_string(us(by)));
}

void DriverRun::State::use_masters_now() {
  if (!run.masters_now_) return;
  const std::vector<Endpoint> now = run.masters_now_();
  for (std::size_t m = 0; m < now.size() && m < upstreams.size(); ++m) upstreams[m]->set(now[m]);
}

void DriverRun::State::on_redis(const std::function<void()>& work) {
  // On this thread: the embedded Redis's processes die with the thread that started them
  // (PR_SET_PDEATHSIG), and this one lives as long as the run. The proxies and the drivers go on
  // meanwhile; semsim's own steps wait, and their lateness counts from the fault's end.
  const std::int64_t start = monotonic_ns();
  work();
  fault_busy_until_ns = monotonic_ns();
  fault_busy_ns += fault_busy_until_ns - start;
}

// As the simulation's server faults (Simulation::State::server_fault), on the real processes and
// the proxies; each row at the instant it landed.
void DriverRun::State::server_fault(const ScriptedAction& a) {
  using K = ScriptedAction::Kind;
  ServerControl& control = *run.control_;
  switch (a.kind) {
    case K::redis_restart: {
      const bool keeps = o.server.persistence != Persistence::none;
      record_server(monotonic_ns(), Op::redis_restart,
                    "persistence=" + std::string(to_string(o.server.persistence)) + (keeps ? "" : " lost_since_us=0"));
      on_redis([this, &control] {
        control.restart();  // SIGKILL first: the instant above
        use_masters_now();
      });
      break;
    }
    case K::failover: {
      const std::int64_t now = monotonic_ns();
      const std::int64_t lost_since = std::max<std::int64_t>(0, true_us(now) - us(*a.arg));
      record_server(now, Op::failover,
                    o.server.sentinel ? std::string("elected_by=sentinel")
                                      : "lag_us=" + std::to_string(us(*a.arg)) + " lost_since_us=" + std::to_string(lost_since));
      on_redis([this, &control] {
        control.fail_over();
        use_masters_now();
      });
      break;
    }
    case K::disconnect: {
      std::int64_t landed = monotonic_ns();
      for (std::size_t i = 1; i < clients.size(); ++i)
        for (auto& p : clients[i]->proxies) landed = std::max(landed, p->cut());
      record_server(landed, Op::disconnect);
      control.reconnect();
      break;
    }
    case K::redis_pause: {
      const std::int64_t now = monotonic_ns();
      std::optional<std::int64_t> landed;
      for (std::size_t i = 1; i < clients.size(); ++i)
        for (auto& p : clients[i]->proxies) {
          const std::int64_t l = p->hold_outbound(now + us(*a.arg) * kNsPerUs);
          if (!landed) landed = l;
        }
      record_server(landed.value_or(now), Op::redis_pause, "length_us=" + std::to_string(us(*a.arg)));
      break;
    }
    default:
      break;
  }
}

// As sim/core's Faults::at_rates, from the client's own fault stream.
void DriverRun::State::faults_at_rates(DriverClient& c) {
  auto rng = std::make_shared<Rng>(seed(c.id, streams::faults));
  const auto gap = [](Rng& r, double per_second) { return static_cast<std::int64_t>(r.exponential(1e6 / per_second)); };
  if (o.crash_rate > 0) at(t0 + gap(*rng, o.crash_rate) * kNsPerUs, [this, &c] { crash(c); });
  if (o.pause_rate <= 0) return;
  auto next = std::make_shared<std::function<void(std::int64_t)>>();
  *next = [this, &c, rng, gap, next](std::int64_t at_us) {
    at(t0 + at_us * kNsPerUs, [this, &c, rng, gap, next, at_us] {
      const Micros length = std::max(Micros(0), o.pause_length.sample_duration(*rng));
      pause(c, length);
      (*next)(at_us + us(length) + gap(*rng, o.pause_rate));
    });
  };
  (*next)(gap(*rng, o.pause_rate));
}

// As the simulation draws them: Poisson arrivals from Redis's own stream, kind after kind.
void DriverRun::State::server_faults_at_rates() {
  Rng rng(seed(0, streams::server_faults));
  const auto at_rate = [&](double per_second, ScriptedAction::Kind kind) {
    if (per_second <= 0) return;
    const auto gap = [&] { return static_cast<std::int64_t>(rng.exponential(1e6 / per_second)); };
    for (std::int64_t t = gap(); t < us(o.duration); t += gap()) {
      ScriptedAction a{at_us(t), 0, kind, std::nullopt, 0};
      if (kind == ScriptedAction::Kind::redis_pause) a.arg = std::max(Micros(0), o.redis_pause_length.sample_duration(rng));
      at(t0 + t * kNsPerUs, [this, a] { server_fault(a); });
    }
  };
  at_rate(o.restart_rate, ScriptedAction::Kind::redis_restart);
  at_rate(o.disconnect_rate, ScriptedAction::Kind::disconnect);
  at_rate(o.redis_pause_rate, ScriptedAction::Kind::redis_pause);
}

void DriverRun::State::record(int client, std::int64_t mono_ns, std::int64_t client_us, Op op, Phase phase,
                              std::string id, std::string detail) {
  Event e;
  e.true_us = true_us(mono_ns);
  e.client = client;
  e.op = op;
  e.phase = phase;
  e.client_us = client_us;
  e.identifier = std::move(id);
  e.detail = std::move(detail);
  history.add(std::move(e));
}

void DriverRun::State::record_fault(DriverClient& c, std::int64_t mono_ns, Op op, std::string detail) {
  record(c.id, mono_ns, true_us(mono_ns) + c.clock->shift_at(mono_ns) / kNsPerUs, op, Phase::ok, {}, std::move(detail));
}

void DriverRun::State::record_server(std::int64_t mono_ns, Op op, std::string detail) {
  record(0, mono_ns, true_us(mono_ns), op, op == Op::run ? Phase::info : Phase::ok, {}, std::move(detail));
}

// Rows before this may go out: every line written before `drained_ns` has been read, a driver
// writes within kOrderWindowNs of reading its clock, and a stopped one may still write a line it
// stamped before its pause.
std::int64_t DriverRun::State::watermark_us(std::int64_t drained_ns) const {
  std::int64_t mark = true_us(drained_ns - kOrderWindowNs);
  for (std::size_t i = 1; i < clients.size(); ++i) {
    const DriverClient& c = *clients[i];
    if (c.paused || (c.resumed_ns && drained_ns < c.resumed_ns + kOrderWindowNs)) mark = std::min(mark, c.paused_from_us);
  }
  return mark;
}

// Asks every driver to quit (or, when the run failed or was interrupted, kills it at once), and
// waits until every process of every group is gone.
void DriverRun::State::end_processes(bool gracefully) {
  if (gracefully) {
    for (std::size_t i = 1; i < clients.size(); ++i) {
      DriverClient& c = *clients[i];
      if (!c.process) continue;
      if (c.paused) c.process->kill();  // a stopped process cannot quit
      c.process->send(kQuitLine);
      c.process->close_input();
    }
    const std::int64_t limit = monotonic_ns() + kQuitGraceNs;
    for (std::size_t i = 1; i < clients.size(); ++i) {
      DriverClient& c = *clients[i];
      if (!c.process) continue;
      std::vector<std::string> ignored;  // what it says after the run's end is not in its history
      while (monotonic_ns() < limit && !c.process->await_gone(20 * kNsPerMs)) c.process->read_lines(ignored);
    }
  }
  for (std::size_t i = 1; i < clients.size(); ++i)
    if (clients[i] && clients[i]->process) {
      clients[i]->process->kill();
      clients[i]->process->await_gone(kObserveNs);
      clients[i]->process.reset();
    }
}

void DriverRun::State::finish() {
  const bool completed = result.stop_reason.empty();
  if (completed) {
    // What drivers wrote before the end is still in the pipes.
    drain(false);
  }
  end_processes(completed);
  std::uint64_t commands = 0;
  std::int64_t proxy_late = 0;
  for (std::size_t i = 1; i < clients.size(); ++i)
    for (const auto& p : clients[i]->proxies) {
      const ProxyStats s = p->stats();
      commands += s.commands;
      proxy_late = std::max(proxy_late, s.late_max_ns);
    }
  result.completed = completed;
  result.commands = commands;
  std::string reason = result.stop_reason;  // quoted in the row: no double quote inside
  for (char& ch : reason)
    if (ch == '"') ch = '\'';
  const std::string counts = "commands=" + std::to_string(commands);
  history.flush();
  Event last;
  last.true_us = std::max(completed ? us(o.duration) : std::min(now_us(), us(o.duration)), history.last_emitted_us());
  last.client_us = last.true_us;
  last.op = Op::run;
  last.phase = completed ? Phase::ok : Phase::fail;
  last.detail = completed ? counts : "reason=\"" + reason + "\" " + counts;
  history.add(last);
  history.flush();
  result.events = history.rows();
  result.wall_s = static_cast<double>(monotonic_ns() - t0) / 1e9;
  result.max_lag = Micros(step_late_max_ns / kNsPerUs);

  RealTimeReport& r = run.report_;
  lags.fill(r);
  r.step_late_max_us = step_late_max_ns / kNsPerUs;
  r.proxy_late_max_us = proxy_late / kNsPerUs;
  r.late_lines = history.late_rows();
  r.late_lines_max_us = history.late_max_us();
  r.restarts = restarts;
  r.server_fault_ms = fault_busy_ns / kNsPerMs;
}

}  // namespace semsim
