// The state of one driver run (driver_run.h), shared by the files that make it: driver_run.cpp
// (processes, protocol, the loop, the history) and driver_plan.cpp (what the plan sends when: the
// workload, the faults). Private to sim/drivers.
#pragma once

#include <algorithm>

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "algorithms/api/semaphore.h"
#include "sim/core/client_streams.h"
#include "sim/core/random.h"
#include "sim/core/wall_clock.h"
#include "sim/drivers/driver_clock.h"
#include "sim/drivers/driver_process.h"
#include "sim/drivers/driver_protocol.h"
#include "sim/drivers/driver_run.h"
#include "sim/drivers/history_order.h"
#include "sim/drivers/real_clock.h"
#include "sim/drivers/warp_proxy.h"
#include "sim/drivers/warp_stillness.h"
#include "sim/core/client_clock.h"

namespace semsim {

namespace driver_run {

constexpr std::int64_t kSecond = 1'000'000'000;
// How long a driver may take from its start to `driver ok - ready` (a runtime loading its
// modules on a loaded machine takes seconds).
constexpr std::int64_t kReadyLimitNs = 60 * kSecond;
// How long a driver may say nothing of a command semsim sent it (neither invoke nor outcome).
constexpr std::int64_t kCommandLimitNs = 60 * kSecond;
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
// Warp: the virtual CLOCK_MONOTONIC a run starts at (about 3 years: never a real machine's uptime,
// so that a driver reading the real clock is told apart), and the wall clock it shows then
// (2026-01-01T00:00:00Z, as Redis's virtual clock: sim/redis/redis_clock.h).
constexpr std::int64_t kWarpBaseNs = 100'000'000 * kSecond;
constexpr std::int64_t kWarpEpochNs = 1'767'225'600 * kSecond;
// Warp: how long a driver may run (real time) without every thread asleep: longer is a busy loop,
// or a wait warp does not see.
constexpr std::int64_t kTurnLimitNs = 10 * kSecond;

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
// The same for a driver warp cannot hold to virtual time (RunResult::warp_unfit).
struct WarpFailure : DriverFailure {
  using DriverFailure::DriverFailure;
};

inline std::int64_t us(Micros d) { return d.count(); }

}  // namespace driver_run

// A permit a client asked for: the commands about it that are out, and what comes after each.
struct DriverPermit {
  struct Pending {
    std::int64_t sent_ns = 0;  // when the plan had it due (a fresh process's start counts as lag)
    bool invoked = false;
    std::function<void(Phase)> then;
    bool overtaken = false;  // a later fault of the client's plan came first (counted once)
  };
  std::map<DriverOp, Pending> pending;
};

struct DriverClient {
  int id = 0;
  std::unique_ptr<DriverClock> clock;
  std::vector<std::unique_ptr<Proxy>> proxies;  // one per master
  std::vector<WarpProxy*> warp_proxies;        // the same, in warp
  std::vector<std::string> inbox;              // warp: lines read while it ran, handled once all sleep
  bool output_open = true;
  bool stirred = false;  // warp: semsim woke it (a line, data, a signal) since it last slept
  std::unique_ptr<Stillness> stillness;  // warp: whether its processes sleep
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
  std::map<std::string, DriverPermit> permits;
  // The permits it believes it holds, in the order granted: a client may hold several (a scripted
  // acquire while it holds one; a library may grant both), each released after its own hold.
  std::vector<std::string> holding;
  bool holds(const std::string& id) const { return std::find(holding.begin(), holding.end(), id) != holding.end(); }
  void drop(const std::string& id) { std::erase(holding, id); }
  std::string released_last;  // what a scripted `release` while it holds nothing releases again
  std::vector<std::pair<DriverOp, std::string>> backlog;  // commands waiting for `ready`
};

struct DriverRun::State {
  explicit State(DriverRun& r)
      : run(r), o(r.options_), history(r.sink_), warp(r.options_.mode == TimeMode::virtual_time) {}

  void start();
  std::unique_ptr<Proxy> make_proxy(DriverClient& c, std::size_t m);
  void start_process(DriverClient& c);
  void await_ready();
  void begin();
  void schedule();
  void loop();

  // Warp (driver_warp.cpp): the same run in virtual time.
  void warp_ready();
  void warp_loop();
  // Waits until every driver process sleeps, reading their lines and what they send meanwhile.
  void settle();
  bool everyone_still();
  bool pump();
  void take_lines(bool before_start);
  // The earliest instant anything is due, and the one thing due now.
  std::int64_t next_instant() const;
  void warp_step();
  void advance(std::int64_t to_ns);
  std::int64_t wall_at(const DriverClient& c, std::int64_t v) const;
  void wake(DriverClient& c);
  void set_redis_clock(std::size_t m);
  void check_escapes();
  void jump_server_clock(const ScriptedAction& a);
  void finish();
  void end_processes(bool gracefully);

  // Protocol.
  void drain(bool before_start);
  void handle_line(DriverClient& c, const std::string& text);
  void on_ready(DriverClient& c, const DriverLine& line);
  void send(DriverClient& c, const std::string& id, DriverOp op, std::function<void(Phase)> then);
  [[noreturn]] void fail(const DriverClient& c, const std::string& what, const std::string& line = {});
  // A failure that paced mode would not have: WarpUnfit before the start, WarpFailure after it.
  [[noreturn]] void fail_warp(const DriverClient& c, const std::string& what);

  // The workload, as sim/core's Workload runs it.
  void think(DriverClient& c);
  void try_acquire(DriverClient& c, int tries);
  void hold(DriverClient& c, const std::string& id, Micros length, std::function<void()> next);
  void refresh_step(DriverClient& c, const std::string& id, std::int64_t until_ns, std::function<void()> next);
  void release(DriverClient& c, const std::string& id, std::function<void()> next);
  void scripted(DriverClient& c, const ScriptedAction& a);
  void scripted_acquire(DriverClient& c, Micros length, int tries);
  std::string new_permit(DriverClient& c);

  // Faults.
  // A planned fault of the client's is due: its planned commands not yet started were overtaken
  // (RealTimeReport::overtaken). `fault`: "pause", "crash", ...
  void overtake(DriverClient& c, const char* fault);
  // At the end: planned commands due well before it that never started (RealTimeReport::never_ran).
  void count_never_ran();
  // One more in `count` (never_ran or overtaken); the first of both is said with `what` happened.
  void off_plan(std::int64_t& count, const DriverClient& c, DriverOp op, const std::string& id, std::int64_t due_ns,
                const std::string& what);
  void pause(DriverClient& c, Micros length);
  void resume(DriverClient& c);
  void crash(DriverClient& c);
  void jump(DriverClient& c, Micros by);
  void partition(DriverClient& c, const std::vector<int>& masters, Micros length);
  // On each master the action names (master 1 when it names none), as the simulation's.
  void server_fault(const ScriptedAction& a);
  void server_fault(const ScriptedAction& a, std::size_t m);
  void come_back(std::size_t m);
  // A server row about master m: `master=K` first when the run has several (the model's format).
  void record_master(std::int64_t mono_ns, Op op, std::size_t m, const std::string& detail);
  Persistence persistence(std::size_t m) const;
  // Runs `work` on Redis's processes (a restart, a failover), which takes real time.
  void on_redis(const std::function<void()>& work);
  void faults_at_rates(DriverClient& c);
  void server_faults_at_rates();
  void use_masters_now();

  // Time and rows.
  std::int64_t true_us(std::int64_t mono_ns) const { return (mono_ns - t0) / kNsPerUs; }
  // The run's clock: the machine's in real time, the virtual one in warp.
  std::int64_t now_ns() const { return warp ? virtual_ns : monotonic_ns(); }
  std::int64_t now_us() const { return true_us(now_ns()); }
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
  driver_run::PrivateDir pages;  // the clients' clock pages
  std::vector<std::unique_ptr<DriverClient>> clients;  // [0] is Redis's side: no process
  std::vector<std::shared_ptr<Upstream>> upstreams;
  std::multimap<std::int64_t, std::function<void()>> timers;  // by due instant; ties in order
  bool started = false;
  const bool warp;
  std::int64_t virtual_ns = driver_run::kWarpBaseNs;
  bool poked = false;  // warp: semsim woke a driver since everything last slept
  void stir(DriverClient& c) {
    c.stirred = true;
    poked = true;
  }
  std::vector<ClientClock> redis_clocks;  // warp: each master's own clock (skew, drift, server_jump)
  std::int64_t real_start_ns = 0;
  std::int64_t t0 = 0, end_ns = 0;
  std::int64_t wall_origin_us = 0;   // the real wall clock at true time 0
  std::int64_t real_minus_mono = 0;  // CLOCK_REALTIME - CLOCK_MONOTONIC, as semsim reads them
  std::int64_t fault_busy_until_ns = 0, fault_busy_ns = 0;  // semsim acting on Redis's processes
  Progress progress{o.progress};  // a line on a terminal: a driver run takes its --duration in real time
  std::uint64_t grants = 0;
  LagMeter lags;
  std::int64_t step_late_max_ns = 0;
  std::int64_t restarts = 0;
  std::vector<bool> down;  // per master: a restart's downtime (redis_restart's arg) is not over
  RunResult result;
};

}  // namespace semsim
