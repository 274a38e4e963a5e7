// What a driver run's plan sends when: the clients' workload (sim/core's Workload, as steps and
// callbacks in real time), scripted actions, faults on the processes and on Redis. The same streams
// of the same seed as the simulation.
#include <algorithm>
#include <optional>

#include "sim/drivers/driver_run_state.h"

namespace semsim {

using namespace driver_run;

// The clients' loops, scripted actions, faults at rates, server faults: as the simulation plans them.
void DriverRun::State::schedule() {
  for (int id = 1; id <= o.clients; ++id)
    if (!clients[id]->scripted) think(*clients[id]);
  for (const ScriptedAction& a : run.inputs_.actions) {
    const std::int64_t due = t0 + us(a.at.time_since_epoch()) * kNsPerUs;
    if (a.on_server()) {
      if (a.kind == ScriptedAction::Kind::failover)
        at(t0 + std::max<std::int64_t>(0, us(a.at.time_since_epoch()) - us(*a.arg)) * kNsPerUs,
           [this] { on_redis([this] { run.controls_[0]->cut_off_replica(); }); });
      at(due, [this, a] { server_fault(a); });
      continue;
    }
    DriverClient& c = *clients[a.client];
    using K = ScriptedAction::Kind;
    switch (a.kind) {
      // A staged fault must find what the plan put before it started (overtake).
      case K::pause: at(due, [this, &c, a] { overtake(c, "pause"), pause(c, *a.arg); }); break;
      case K::crash: at(due, [this, &c] { overtake(c, "crash"), crash(c); }); break;
      case K::jump: at(due, [this, &c, a] { overtake(c, "jump"), jump(c, *a.arg); }); break;
      case K::partition: at(due, [this, &c, a] { overtake(c, "partition"), partition(c, a.masters, *a.arg); }); break;
      default: at(due, [this, &c, a] { scripted(c, a); });
    }
  }
  for (int id = 1; id <= o.clients; ++id)
    if (o.pause_rate > 0 || o.crash_rate > 0) faults_at_rates(*clients[id]);
  server_faults_at_rates();
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
    if (now_ns() >= end_ns) return;
    try_acquire(c, 0);
  });
}

void DriverRun::State::try_acquire(DriverClient& c, int tries) {
  const std::string id = new_permit(c);
  send(c, id, DriverOp::acquire, [this, &c, id, tries](Phase phase) {
    if (phase == Phase::ok) {
      hold(c, id, o.hold.sample_duration(c.behaviour), [this, &c] { think(c); });
    } else if (tries < o.retries && now_ns() < end_ns) {
      after(c, at_least_1us(o.retry_delay.sample_duration(c.behaviour)), [this, &c, tries] { try_acquire(c, tries + 1); });
    } else {
      think(c);
    }
  });
}

void DriverRun::State::hold(DriverClient& c, const std::string& id, Micros length, std::function<void()> next) {
  const std::int64_t until = now_ns() + us(length) * kNsPerUs;
  if (o.refresh_every.count() > 0) {
    refresh_step(c, id, until, std::move(next));
    return;
  }
  after(c, length, [this, &c, id, next = std::move(next)] {
    if (c.holds(id)) release(c, id, next);
    else if (next) next();
  });
}

void DriverRun::State::refresh_step(DriverClient& c, const std::string& id, std::int64_t until_ns, std::function<void()> next) {
  const Micros wait = std::min(o.refresh_every, Micros((until_ns - now_ns()) / kNsPerUs));
  after(c, std::max(wait, Micros(0)), [this, &c, id, until_ns, next = std::move(next)] {
    if (!c.holds(id)) {  // lost meanwhile
      if (next) next();
      return;
    }
    if (now_ns() >= until_ns) {
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
  c.drop(id);
  send(c, id, DriverOp::release, [next = std::move(next)](Phase) {
    if (next) next();
  });
}

void DriverRun::State::scripted(DriverClient& c, const ScriptedAction& a) {
  using K = ScriptedAction::Kind;
  if (a.kind == K::acquire) {
    const std::int64_t due = now_ns();
    if (c.crashed) {  // a fresh process, as a restarted service would be: no permit, no memory
      start_process(c);
      ++restarts;
    }
    const Micros length = a.arg ? *a.arg : o.hold.sample_duration(c.behaviour);
    const std::string id = new_permit(c);
    send(c, id, DriverOp::acquire, [this, &c, id, length](Phase phase) {
      if (--c.scripted_acquires_left == 0 && phase != Phase::ok)
        record_fault(c, now_ns(), Op::done, "no further acquire in the script");
      if (phase == Phase::ok) hold(c, id, length, {});
    });
    c.permits[id].pending[DriverOp::acquire].sent_ns = due;  // its lag counts the process's start too
  } else if (a.kind == K::release && !c.holding.empty()) {  // the earliest granted of those it holds
    const std::string id = c.holding.front();  // a copy: release drops it from holding
    release(c, id, {});
  } else if (a.kind == K::refresh && !c.holding.empty()) {
    send(c, c.holding.front(), DriverOp::refresh, {});
  }
}

void DriverRun::State::pause(DriverClient& c, Micros length) {
  if (c.crashed || !c.process) return;
  std::int64_t landed = now_ns();
  if (!c.paused) {
    c.process->stop();
    c.process->await_stopped(kObserveNs);
    landed = now_ns();
    c.paused = true;
    c.paused_from_us = true_us(landed);
  }
  record_fault(c, landed, Op::pause, "length_us=" + std::to_string(us(length)));
  c.paused_until_ns = std::max(c.paused_until_ns, landed + us(length) * kNsPerUs);
  at(landed + us(length) * kNsPerUs, [this, &c, epoch = c.epoch] {
    if (c.epoch == epoch && c.paused && now_ns() >= c.paused_until_ns) resume(c);
  });
}

void DriverRun::State::resume(DriverClient& c) {
  // SIGCONT wakes the group while it is sent: the group may run before kill() even returns, so the
  // instant it landed is the one just before.
  const std::int64_t landed = now_ns();
  c.process->resume();
  c.process->await_running(kObserveNs);
  c.paused = false;
  c.resumed_ns = landed;
  record_fault(c, landed, Op::resume);
  if (warp) stir(c), wake(c);  // it runs again; its timed waits that ended meanwhile end now
}

void DriverRun::State::crash(DriverClient& c) {
  if (c.crashed || !c.process) return;
  c.process->kill();
  c.process->await_gone(kObserveNs);
  record_fault(c, now_ns(), Op::crash);
  c.process.reset();
  if (warp) c.clock->forget_all();  // its threads are gone
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
  if (warp) c.clock->show(virtual_ns, wall_at(c, virtual_ns));
  record_fault(c, now_ns(), Op::jump, "by_us=" + std::to_string(us(by)));
}

// As sim/core's Faults::partition: the client's proxies to those masters pass nothing either way
// until the heal; the driver's library sees a network that went silent.
void DriverRun::State::partition(DriverClient& c, const std::vector<int>& masters, Micros length) {
  if (c.crashed) return;
  const std::string list = master_list(masters);
  const std::int64_t until = now_ns() + us(length) * kNsPerUs;
  std::int64_t landed = now_ns();
  for (int m : masters) landed = std::max(landed, c.proxies[static_cast<std::size_t>(m)]->partition(until));
  record_fault(c, landed, Op::partition, "masters=" + list + " length_us=" + std::to_string(us(length)));
  at(until, [this, &c, list] {
    if (!c.crashed) record_fault(c, now_ns(), Op::heal, "masters=" + list);
  });
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

Persistence DriverRun::State::persistence(std::size_t m) const {
  return run.inputs_.master(static_cast<int>(m) + 1).persistence.value_or(o.server.persistence);
}

void DriverRun::State::record_master(std::int64_t mono_ns, Op op, std::size_t m, const std::string& detail) {
  std::string text = o.masters > 1 ? "master=" + std::to_string(m + 1) : std::string();
  if (!detail.empty()) text += (text.empty() ? "" : " ") + detail;
  record_server(mono_ns, op, std::move(text));
}

void DriverRun::State::server_fault(const ScriptedAction& a) {
  if (a.kind == ScriptedAction::Kind::server_jump) return jump_server_clock(a);
  for (int m : a.masters.empty() ? std::vector<int>{0} : a.masters) server_fault(a, static_cast<std::size_t>(m));
}

// As the simulation's server faults (Simulation::State::server_fault), on master m's real processes
// and on every client's proxy to it; each row at the instant it landed.
void DriverRun::State::server_fault(const ScriptedAction& a, std::size_t m) {
  using K = ScriptedAction::Kind;
  ServerControl& control = *run.controls_[m];
  switch (a.kind) {
    case K::redis_restart: {
      // A crash (SIGKILL): what comes back is what its persistence kept. With downtime it stays down
      // meanwhile (its proxies' connections to it are refused) and comes back when it is over.
      if (down[m]) break;  // already down: a crash changes nothing
      const Persistence kept = persistence(m);
      const Micros downtime = a.arg.value_or(Micros(0));
      record_master(now_ns(), Op::redis_restart, m,
                    "persistence=" + std::string(to_string(kept)) +
                        (downtime.count() > 0 ? " down_us=" + std::to_string(us(downtime)) : "") +
                        (kept != Persistence::none ? "" : " lost_since_us=0"));
      if (downtime.count() > 0) {
        down[m] = true;
        on_redis([&control] { control.go_down(); });  // SIGKILL first: the instant above
        at(now_ns() + us(downtime) * kNsPerUs, [this, m] { come_back(m); });
        break;
      }
      on_redis([this, &control] {
        control.restart();  // SIGKILL first: the instant above
        use_masters_now();
      });
      break;
    }
    case K::failover: {  // one master only (check_action_masters)
      const std::int64_t now = now_ns();
      const std::int64_t lost_since = std::max<std::int64_t>(0, true_us(now) - us(*a.arg));
      record_master(now, Op::failover, m,
                    o.server.sentinel ? std::string("elected_by=sentinel")
                                      : "lag_us=" + std::to_string(us(*a.arg)) + " lost_since_us=" + std::to_string(lost_since));
      on_redis([this, &control] {
        control.fail_over();
        use_masters_now();
      });
      break;
    }
    case K::disconnect: {
      if (down[m]) break;
      std::int64_t landed = now_ns();
      for (std::size_t i = 1; i < clients.size(); ++i) {
        landed = std::max(landed, clients[i]->proxies[m]->cut());
        if (warp) stir(*clients[i]);  // its connections end: its library sees it now
      }
      record_master(landed, Op::disconnect, m, {});
      control.reconnect();
      break;
    }
    case K::redis_pause: {
      const std::int64_t now = now_ns();
      std::optional<std::int64_t> landed;
      for (std::size_t i = 1; i < clients.size(); ++i) {
        const std::int64_t l = clients[i]->proxies[m]->hold_outbound(now + us(*a.arg) * kNsPerUs);
        if (!landed) landed = l;
      }
      record_master(landed.value_or(now), Op::redis_pause, m, "length_us=" + std::to_string(us(*a.arg)));
      break;
    }
    default:
      break;
  }
}

// Redis's clock on master m: every later request reads it moved (as the simulation's).
void DriverRun::State::jump_server_clock(const ScriptedAction& a) {
  for (int m : a.masters.empty() ? std::vector<int>{0} : a.masters) {
    redis_clocks[static_cast<std::size_t>(m)].jump(TrueTime(Micros((virtual_ns - kWarpBaseNs) / kNsPerUs)), *a.arg);
    record_master(now_ns(), Op::server_jump, static_cast<std::size_t>(m), "by_us=" + std::to_string(us(*a.arg)));
  }
}

// A restart's downtime is over: master m starts on its data directory and takes connections.
void DriverRun::State::come_back(std::size_t m) {
  if (!down[m]) return;
  down[m] = false;
  on_redis([this, m] {
    run.controls_[m]->come_back();
    use_masters_now();
  });
}

// As sim/core's Faults::at_rates, from the client's own fault stream.
void DriverRun::State::faults_at_rates(DriverClient& c) {
  auto rng = std::make_shared<Rng>(seed(c.id, streams::faults));
  const auto gap = [](Rng& r, double per_second) { return static_cast<std::int64_t>(r.exponential(1e6 / per_second)); };
  if (o.crash_rate > 0) at(t0 + gap(*rng, o.crash_rate) * kNsPerUs, [this, &c] { crash(c); });
  if (o.pause_rate <= 0) return;
  // The pending step holds the chain; the chain holds itself weakly (a cycle would never be freed).
  auto next = std::make_shared<std::function<void(std::int64_t)>>();
  *next = [this, &c, rng, gap, self = std::weak_ptr(next)](std::int64_t at_us) {
    at(t0 + at_us * kNsPerUs, [this, &c, rng, gap, next = self.lock(), at_us] {
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
      ScriptedAction a{at_us(t), 0, kind, std::nullopt, 0, {}};
      if (kind == ScriptedAction::Kind::redis_pause) a.arg = std::max(Micros(0), o.redis_pause_length.sample_duration(rng));
      if (o.masters > 1) a.masters = {static_cast<int>(rng.uniform_int(0, o.masters - 1))};
      at(t0 + t * kNsPerUs, [this, a] { server_fault(a); });
    }
  };
  at_rate(o.restart_rate, ScriptedAction::Kind::redis_restart);
  at_rate(o.disconnect_rate, ScriptedAction::Kind::disconnect);
  at_rate(o.redis_pause_rate, ScriptedAction::Kind::redis_pause);
}

}  // namespace semsim
