// A driver run's processes, the protocol on their pipes, the loop, and the history; what the plan
// sends when is driver_plan.cpp's.
#include "sim/drivers/driver_run.h"

#include <poll.h>

#include <algorithm>
#include <cstdlib>
#include <set>

#include "sim/core/interrupt.h"
#include "sim/drivers/clock_reach.h"
#include "sim/drivers/driver_run_state.h"

namespace semsim {

using namespace driver_run;

std::string driver_command(const std::string& variant) {
  return variant.starts_with("driver:") ? variant.substr(7) : std::string();
}

DriverRun::DriverRun(const RunOptions& options, RunInputs inputs, DriverSetup setup, Sink sink)
    : options_(options), inputs_(std::move(inputs)), setup_(std::move(setup)), sink_(std::move(sink)) {}

DriverRun::~DriverRun() = default;

void DriverRun::set_server_control(std::vector<ServerControl*> masters, bool processes,
                                   std::function<std::vector<Endpoint>()> masters_now) {
  controls_ = std::move(masters);
  control_processes_ = processes;
  masters_now_ = std::move(masters_now);
}

// As the simulation checks them (Simulation::check_server_actions), and what real time cannot do.
void DriverRun::check_server_actions() const {
  const RunOptions& o = options_;
  const bool control = !controls_.empty();
  if (control && static_cast<int>(controls_.size()) != o.masters)
    throw SetupError("the run has " + std::to_string(o.masters) + " masters but " + std::to_string(controls_.size()) +
                     " to act on");
  if (static_cast<int>(setup_.masters.size()) != o.masters)
    throw SetupError("the run has " + std::to_string(o.masters) + " masters but " +
                     std::to_string(setup_.masters.size()) + " Redis addresses for the drivers");
  if ((o.restart_rate > 0 || o.disconnect_rate > 0 || o.redis_pause_rate > 0) && !control)
    throw SetupError("server faults at rates need a Redis semsim can act on");
  if (o.restart_rate > 0 && !control_processes_)
    throw SetupError("--restart-rate restarts the embedded Redis's primary: not with --redis or --sentinel");
  const bool warp = o.mode == TimeMode::virtual_time;
  if (warp && static_cast<int>(setup_.redis_clocks.size()) != o.masters)
    throw SetupError("--mode virtual with a driver needs Redis's clock to follow virtual time: the embedded Redis "
                     "(with its clock library), not --redis or --sentinel; use --mode paced (docs/drivers.md, warp)");
  if (!warp && (o.server_skew.count() != 0 || o.server_drift_ppm != 0))
    throw SetupError("--server-skew and --server-drift: a driver run is real time, and Redis's own clock is the "
                     "machine's (docs/drivers.md, what cannot be moved)");
  if (o.fill_memory) throw SetupError("--fill-memory is not available in a driver run");
  for (const auto& [master, spec] : inputs_.masters)
    if (!warp && (spec.skew || spec.drift_ppm))
      throw InputError(o.masters_file + ": master " + std::to_string(master) + ": field '" +
                       (spec.skew ? "skew" : "drift_ppm") + "': a driver run is real time, and Redis's own clock "
                       "is the machine's (docs/drivers.md, what cannot be moved)");
  check_action_masters(o, inputs_.actions);
  int failovers = 0;
  for (const ScriptedAction& a : inputs_.actions) {
    if (!a.on_server()) continue;
    const std::string where = o.actions_file + ":" + std::to_string(a.line) + ": field 'action': ";
    if (a.kind == ScriptedAction::Kind::server_jump && !warp)
      throw InputError(where + "server_jump: a paced driver run is real time, and Redis's own clock is the machine's "
                       "(--mode virtual moves it)");
    if (a.kind == ScriptedAction::Kind::server_jump) continue;
    if (!control) throw InputError(where + "server faults need a Redis semsim can act on");
    const bool processes = a.kind == ScriptedAction::Kind::redis_restart || a.kind == ScriptedAction::Kind::failover;
    if (processes && !control_processes_)
      throw InputError(where + "redis_restart and failover act on the embedded Redis's processes: not with --redis");
    if (a.kind == ScriptedAction::Kind::failover && ++failovers > o.server.replicas)
      throw InputError(where + "failover number " + std::to_string(failovers) + " needs --replicas " +
                       std::to_string(failovers) + " or more (a replica to promote)");
  }
}

RunResult DriverRun::run() {
  check_server_actions();
  State s(*this);  // its processes end with it, whatever is thrown
  try {
    s.start();
    if (s.warp) s.warp_ready();
    else s.await_ready();
  } catch (...) {
    s.end_processes(false);
    throw;
  }
  s.begin();
  s.schedule();
  try {
    if (s.warp) s.warp_loop();
    else s.loop();
  } catch (const std::exception& e) {  // a driver broke the protocol or died, Redis failed
    s.result.stop_reason = e.what();
    s.result.warp_unfit = dynamic_cast<const WarpFailure*>(&e) != nullptr;
  }
  s.finish();
  return s.result;
}

// Every client's clock page, proxies and process; their clocks moved by the probe until `ready`.
void DriverRun::State::start() {
  real_minus_mono = realtime_ns() - monotonic_ns();  // for the clock check at `ready`
  for (const Endpoint& m : run.setup_.masters) upstreams.push_back(std::make_shared<Upstream>(m));
  if (upstreams.empty()) throw SetupError("a driver run needs a Redis to connect its clients to");
  down.assign(upstreams.size(), false);
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
    if (warp) c->clock->warp(seed(id, streams::identifiers));
    for (std::size_t m = 0; m < upstreams.size(); ++m) c->proxies.push_back(make_proxy(*c, m));
    clients.push_back(std::move(c));
  }
  if (warp) {
    for (int m = 1; m <= o.masters; ++m) {
      const MasterSpec spec = run.inputs_.master(m);
      redis_clocks.emplace_back(spec.skew.value_or(o.server_skew), spec.drift_ppm.value_or(o.server_drift_ppm));
    }
    return;  // warp_ready starts them, one at a time
  }
  for (int id = 1; id <= o.clients; ++id) start_process(*clients[id]);
}

// Client c's link to master m as the simulation makes it: a proxy in real time, or warp's.
std::unique_ptr<Proxy> DriverRun::State::make_proxy(DriverClient& c, std::size_t m) {
  const LinkModel link = link_model(o, run.inputs_, c.id, static_cast<int>(m) + 1);
  const std::uint64_t stream = derive_seed(seed(c.id, streams::network), m);
  auto upstream = std::const_pointer_cast<const Upstream>(upstreams[m]);
  if (!warp)
    return std::make_unique<ClientProxy>(link, stream, std::move(upstream),
                                         ProxyRules{run.setup_.key, ::getpid(), run.setup_.users_redis});
  auto proxy = std::make_unique<WarpProxy>(link, stream, std::move(upstream), ProxyRules{run.setup_.key},
                                           [this] { return virtual_ns; }, kWarpBaseNs, [this, m] { set_redis_clock(m); });
  c.warp_proxies.push_back(proxy.get());
  return proxy;
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
  // Warp: libuv's io_uring runs timers and reads the library cannot see (docs/drivers.md, warp).
  if (warp) spawn.environment.emplace_back("UV_USE_IO_URING", "0");
  spawn.fixed_addresses = warp;  // node's OpenSSL mixes a thread's address into what it draws
  spawn.stderr_file = run.setup_.log_dir / ("client-" + std::to_string(c.id) + ".stderr");
  spawn.append_stderr = c.epoch > 0;  // a fresh process after a crash: the same run's file goes on
  if (!warp) c.clock->jump(kProbeNs);
  if (warp) c.clock->show(virtual_ns, wall_at(c, virtual_ns));
  try {
    c.process = std::make_unique<DriverProcess>(spawn);
  } catch (const std::exception& e) {
    if (!warp) c.clock->jump(-kProbeNs);
    if (!started) throw SetupError("client " + std::to_string(c.id) + ": " + e.what());
    throw DriverFailure("client " + std::to_string(c.id) + ": " + e.what());
  }
  ++c.epoch;
  if (warp) c.stillness = std::make_unique<Stillness>(c.process->keeper());
  c.ready = false;
  c.crashed = false;
  c.output_open = true;
  c.inbox.clear();
  stir(c);
  if (started)  // a fresh process mid-run must get ready as the first ones had to
    at(now_ns() + kReadyLimitNs, [this, &c, epoch = c.epoch] {
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
  real_start_ns = monotonic_ns();
  if (warp) {
    // On a whole millisecond of the wall clocks: a driver's WALL_MS (whole ms) then shows its skew exactly.
    advance(kWarpBaseNs + (virtual_ns - kWarpBaseNs + kNsPerMs - 1) / kNsPerMs * kNsPerMs);
    t0 = virtual_ns;
    wall_origin_us = (kWarpEpochNs + (t0 - kWarpBaseNs)) / kNsPerUs;
    end_ns = t0 + us(o.duration) * kNsPerUs;
    started = true;
    for (int id = 1; id <= o.clients; ++id) {
      DriverClient& c = *clients[id];
      c.clock->set(us(c.skew) * kNsPerUs, t0, c.drift_ppm);
      c.clock->show(virtual_ns, wall_at(c, virtual_ns));
    }
    // The masters' clocks (--masters-file) move in warp alone: the timeline draws them on their lanes.
    record_server(t0, Op::run, run_detail(o) + master_clocks_detail(o, run.inputs_));
    return;
  }
  t0 = monotonic_ns();
  real_minus_mono = realtime_ns() - monotonic_ns();
  wall_origin_us = (t0 + real_minus_mono) / kNsPerUs;
  end_ns = t0 + us(o.duration) * kNsPerUs;
  started = true;
  for (int id = 1; id <= o.clients; ++id) clients[id]->clock->set(us(clients[id]->skew) * kNsPerUs, t0, clients[id]->drift_ppm);
  record_server(t0, Op::run, run_detail(o));  // the simulation's first row, word for word
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
    progress.update(Micros(true_us(drained)), o.duration, grants, history.rows());
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
    for (const auto& p : c.proxies)  // a command its proxy refused ends the run
      if (const std::string why = p->refusal(); !why.empty()) fail(c, why);
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

namespace {

std::string failure_message(const DriverClient& c, const std::string& what, const std::string& line) {
  std::string message = "client " + std::to_string(c.id) + ": " + what;
  if (!line.empty()) message += ": '" + quoted_line(line) + "'";
  if (c.process) {
    const std::string tail = c.process->stderr_tail(3);
    message += tail.empty() ? " (its stderr is empty: " + c.process->stderr_file().string() + ")"
                            : " (its stderr ends: " + tail + ")";
  }
  return message;
}

}  // namespace

void DriverRun::State::fail(const DriverClient& c, const std::string& what, const std::string& line) {
  if (!started) throw SetupError(failure_message(c, what, line));
  throw DriverFailure(failure_message(c, what, line));
}

void DriverRun::State::fail_warp(const DriverClient& c, const std::string& what) {
  const std::string message = failure_message(c, what + ". It cannot run in virtual time: run it with --mode paced "
                                                        "(docs/drivers.md, warp)", {});
  if (!started) throw WarpUnfit(message);
  throw WarpFailure(message);
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
  DriverPermit& permit = found->second;
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
    if (!c.holds(line.id)) return;  // released meanwhile: nothing it believes is lost
    c.drop(line.id);
    record(c.id, line.mono_ns, client_us, Op::refresh, Phase::fail, line.id, line.detail);
    return;
  }
  if (!pending->second.invoked) fail(c, "an outcome before its invoke", text);
  std::function<void(Phase)> then = std::move(pending->second.then);
  permit.pending.erase(pending);
  if (line.op == DriverOp::acquire && line.phase == Phase::ok) c.holding.push_back(line.id);
  if (line.op == DriverOp::refresh && line.phase == Phase::fail) c.drop(line.id);
  record(c.id, line.mono_ns, client_us, op, line.phase, line.id, line.detail);
  if (then) then(line.phase);
}

// `driver ok - ready`: its clock must have moved by the probe; then the plan's clock, and go.
void DriverRun::State::on_ready(DriverClient& c, const DriverLine& line) {
  if (run.library_.empty()) run.library_ = line.library;
  if (warp) {
    // Its clocks must read warp's: the instant it said this line at, on both.
    const std::int64_t wall_ms = wall_at(c, virtual_ns) / kNsPerMs;
    if (line.mono_ns != virtual_ns || line.wall_ms != wall_ms)
      fail_warp(c, "its clocks do not read warp's virtual time (it said MONO_NS " + std::to_string(line.mono_ns) +
                       " and WALL_MS " + std::to_string(line.wall_ms) + " where warp's clocks read " +
                       std::to_string(virtual_ns) + " and " + std::to_string(wall_ms) + "): " +
                       why_clock_did_not_move(c.process->members(), run.setup_.clock_library));
    c.ready = true;
    for (const auto& [op, id] : std::exchange(c.backlog, {})) c.process->send(command_line(op, id));
    stir(c);
    return;
  }
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
  // Their lag counts from when the plan had them due: a fresh process's start is the run's delay.
  for (const auto& [op, id] : std::exchange(c.backlog, {})) c.process->send(command_line(op, id));
}

void DriverRun::State::send(DriverClient& c, const std::string& id, DriverOp op, std::function<void(Phase)> then) {
  DriverPermit::Pending& p = c.permits[id].pending[op];
  const std::int64_t now = now_ns();
  p = {now, false, std::move(then)};
  // A driver silent about a command for as long as one may take to say `ready` has hung (a
  // library blocked for good): the run stops, naming it, rather than waiting on it to the end.
  at(now + kCommandLimitNs, [this, &c, id, op, now, epoch = c.epoch] {
    if (c.epoch != epoch || !c.process || (c.paused && c.paused_until_ns > now)) return;
    const auto permit = c.permits.find(id);
    if (permit == c.permits.end()) return;
    const auto pending = permit->second.pending.find(op);
    if (pending == permit->second.pending.end() || pending->second.sent_ns != now) return;
    fail(c, "the driver said nothing of `" + std::string(to_string(op)) + " " + id + "` (" +
                (pending->second.invoked ? "no outcome after its invoke" : "no invoke") + ") within " +
                std::to_string(kCommandLimitNs / kSecond) + " s of semsim sending it");
  });
  if (c.ready) {
    c.process->send(command_line(op, id));
    stir(c);
  } else {
    c.backlog.emplace_back(op, id);
  }
}

void DriverRun::State::off_plan(std::int64_t& count, const DriverClient& c, DriverOp op, const std::string& id,
                                std::int64_t due_ns, const std::string& what) {
  if (run.report_.never_ran + run.report_.overtaken == 0)
    run.report_.first_off_plan = "client " + std::to_string(c.id) + "'s " + std::string(to_string(op)) + " " + id +
                                 ", due at " + std::to_string(true_us(due_ns) / 1000) + " ms, " + what;
  ++count;
}

void DriverRun::State::overtake(DriverClient& c, const char* fault) {
  const std::int64_t now = now_ns();
  for (auto& [id, permit] : c.permits)
    for (auto& [op, p] : permit.pending) {
      if (p.invoked || p.overtaken || p.sent_ns >= now) continue;
      p.overtaken = true;
      off_plan(run.report_.overtaken, c, op, id, p.sent_ns,
               "had not started when its planned " + std::string(fault) + " came at " +
                   std::to_string(true_us(now) / 1000) + " ms");
    }
}

void DriverRun::State::count_never_ran() {
  const std::int64_t due_by = end_ns - RealTimeReport::kLaggingUs * 1000;
  for (std::size_t i = 1; i < clients.size(); ++i) {
    const DriverClient& c = *clients[i];
    for (const auto& [id, permit] : c.permits)
      for (const auto& [op, p] : permit.pending)
        // Due while a pause that lasts to the end held its client: that was the plan.
        if (!p.invoked && p.sent_ns < due_by && !(c.paused && true_us(p.sent_ns) >= c.paused_from_us))
          off_plan(run.report_.never_ran, c, op, id, p.sent_ns, "never started");
  }
}

void DriverRun::State::after(DriverClient& c, Micros delay, std::function<void()> step) {
  at(now_ns() + us(delay) * kNsPerUs, [&c, epoch = c.epoch, step = std::move(step)] {
    if (c.epoch == epoch && !c.crashed) step();
  });
}

void DriverRun::State::record(int client, std::int64_t mono_ns, std::int64_t client_us, Op op, Phase phase,
                              std::string id, std::string detail) {
  grants += op == Op::acquire && phase == Phase::ok;
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
  if (completed) count_never_ran();
  // Warp: time stands still once the run is over, so a driver cannot finish quitting (its last
  // words to Redis would wait for ever): it ends at once.
  end_processes(completed && !warp);
  std::uint64_t commands = 0, outsiders = 0;
  std::int64_t proxy_late = 0;
  for (std::size_t i = 1; i < clients.size(); ++i)
    for (const auto& p : clients[i]->proxies) {
      const ProxyStats s = p->stats();
      commands += s.commands;
      outsiders += s.outsiders;
      proxy_late = std::max(proxy_late, s.late_max_ns);
    }
  if (outsiders)
    run.notes_.push_back(std::to_string(outsiders) + " connection(s) to the drivers' proxies came from a process "
                         "that is neither semsim nor one it started: each was refused and closed before Redis was reached");
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
  result.wall_s = static_cast<double>(monotonic_ns() - real_start_ns) / 1e9;
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
