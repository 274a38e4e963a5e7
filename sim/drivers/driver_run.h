// One run whose clients are real processes (--variant "driver:COMMAND"), in real time (paced) or in
// virtual time (warp, --mode virtual: driver_warp.cpp): the counterpart of sim/core's Simulation
// for a user's own library code in its own language.
//
// Each client is `sh -c COMMAND`, talking the line protocol (driver_protocol.h) on its stdin and
// stdout, reaching Redis through a proxy of its own (client_proxy.h), with its wall clock moved by
// the client clock library (driver_clock.h). The plan is the simulation's, drawn from the same
// streams of the same seed: clocks, delays, the workload loop (think, acquire, hold, refresh,
// release), scripted actions, pauses (SIGSTOP/SIGCONT), crashes (SIGKILL; a crashed client's next
// scripted action starts a fresh process), clock jumps and the server faults. What happened is
// what the drivers said, at the instants they said it, and the faults at the instants semsim saw
// them land; what the plan did not foresee (a stalled driver, semsim late) is measured apart
// (real_time_report.h).
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "reports/history/event.h"
#include "sim/core/client_spec.h"
#include "sim/core/run_options.h"
#include "sim/core/server_clock.h"
#include "sim/core/server_control.h"
#include "sim/core/simulation.h"
#include "sim/drivers/client_proxy.h"
#include "sim/drivers/real_time_report.h"

namespace semsim {

// A driver warp cannot hold to virtual time (its clocks unmoved at `ready`, a busy loop, a timer the
// kernel runs in real time): it can run paced (--mode paced). Thrown before the plan starts;
// after it, the run stops early with RunResult::warp_unfit.
struct WarpUnfit : SetupError {
  using SetupError::SetupError;
};

// The COMMAND of a driver variant ("driver:COMMAND"), or "" for any other variant.
std::string driver_command(const std::string& variant);

struct DriverSetup {
  std::string command;                  // run with sh -c
  std::vector<Endpoint> masters;        // where Redis is (one per master); each client gets a proxy to each
  std::string key;                      // SEMSIM_KEY: the run's key, under its prefix
  bool users_redis = false;             // the user's own Redis: proxies read scripts' bodies (ProxyRules)
  std::filesystem::path clock_library;  // libsemsim_client_clock.so
  std::filesystem::path log_dir;        // each driver's stderr: client-N.stderr
  // Warp (--mode virtual): each master's clock, which follows the run's virtual time (the embedded
  // Redis with the clock library); a master without one cannot be warped.
  std::vector<ServerClock*> redis_clocks;
};

class DriverRun {
 public:
  using Sink = std::function<void(const Event&)>;
  DriverRun(const RunOptions& options, RunInputs inputs, DriverSetup setup, Sink sink);
  ~DriverRun();
  // What server faults act on, one control per master in order (as Simulation::set_masters);
  // `processes`: they can restart and fail over (the embedded server). `masters_now` says where each
  // master is after a fault (a failover moves the primary).
  void set_server_control(std::vector<ServerControl*> masters, bool processes,
                          std::function<std::vector<Endpoint>()> masters_now);
  // Throws SetupError (a driver that cannot start, breaks the protocol or exits before its
  // `ready`, or whose clock the library cannot move while the plan moves it) or InputError before the run starts. After
  // that, a failure ends the run early and is said in the result and the history's last row;
  // every driver process is gone when this returns or throws.
  RunResult run();
  const RealTimeReport& real_time() const { return report_; }
  // What the run has to say beside its results (a driver whose clock cannot be moved, for a plan
  // that moves none).
  const std::vector<std::string>& notes() const { return notes_; }
  // The library the drivers named at `ready` (library=NAME@VERSION; the first one said), or "".
  const std::string& library() const { return library_; }

 private:
  struct State;
  void check_server_actions() const;
  const RunOptions& options_;
  RunInputs inputs_;
  DriverSetup setup_;
  Sink sink_;
  std::vector<ServerControl*> controls_;  // one per master; empty: no server faults
  bool control_processes_ = false;
  std::function<std::vector<Endpoint>()> masters_now_;
  RealTimeReport report_;
  std::vector<std::string> notes_;
  std::string library_;
};

}  // namespace semsim
