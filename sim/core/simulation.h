// One run: builds the clients (clocks, networks, workloads, faults) from the options, drives
// them against Redis through the scheduler, and records every event. Virtual mode: time jumps
// from event to event and the same seed gives the same history. Paced: time follows the wall clock.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include <map>
#include <vector>

#include "algorithms/api/semaphore.h"
#include "sim/core/client_spec.h"
#include "sim/core/connection.h"
#include "sim/core/network.h"
#include "sim/core/recorder.h"
#include "sim/core/run_options.h"
#include "sim/core/server_clock.h"
#include "sim/core/server_control.h"

namespace semsim {

struct RunResult {
  bool completed = false;   // reached the end of its duration
  std::string stop_reason;  // why not: "interrupted by signal 2", "redis: ..."
  std::uint64_t commands = 0;
  std::uint64_t round_trips = 0;  // pipelines sent to Redis and answered
  std::uint64_t events = 0;
  double wall_s = 0;
  Micros max_lag{0};  // paced mode: how far the simulation fell behind the wall clock
  bool timed_out = false;  // Redis did not answer within --command-timeout
  // A driver's run stopped because warp could not hold it to virtual time (paced can run it).
  bool warp_unfit = false;
};

// One Redis master as the simulation drives it. A one-master run has one; a Redlock run
// (--masters N) has N, each driven exactly as the one of a one-master run.
struct MasterPorts {
  Connection* link = nullptr;  // every request to this master goes through it
  // Redis's clock, when it can follow virtual time (the embedded server): set before every
  // delivery in virtual mode, left on the real clock in paced mode.
  ServerClock* clock = nullptr;
  // What server faults act on; without it a run with one is refused. Its link replaces `link`
  // from then on.
  ServerControl* control = nullptr;
};

// The clients did not fit in the memory this process may use (exit 2, saying how many did).
struct OutOfMemory : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Simulation {
 public:
  // `inputs`: the clients table and scripted actions; `link` is the connection every request
  // goes through (master 1: set_masters gives more); `sink` gets every event.
  Simulation(const RunOptions& options, RunInputs inputs, Semaphore& semaphore, Connection& link,
             Recorder::Sink sink);
  ~Simulation();
  // Throws SetupError / InputError before anything ran, OutOfMemory if the clients do not fit;
  // after that, failures end the run and are reported in the result (and in the history's last
  // row), running out of memory included.
  RunResult run();
  // What run() checks first, callable before any output is written (after the setters below):
  // server faults in actions.csv that this run cannot apply, and server_jump actions that would
  // push Redis's clock out of what it can be set to (ServerClock::settable). InputError naming
  // the actions file, line and field.
  void check_inputs() const;
  // Master 1's clock and fault control (MasterPorts).
  void set_redis_clock(ServerClock* clock) { masters_.at(0).clock = clock; }
  // `processes`: whether the control can restart and fail over (the embedded server), or only
  // drop connections (a user's server).
  void set_server_control(ServerControl* control, bool processes) {
    masters_.at(0).control = control;
    control_processes_ = processes;
  }
  // Every master, in order (options.masters of them).
  void set_masters(std::vector<MasterPorts> masters, bool processes) {
    masters_ = std::move(masters);
    control_processes_ = processes;
  }
  // The run's keys' prefix (where --fill-memory writes its keys); `in_run_row`: said in the
  // history's run row too (prefix=).
  void set_key_prefix(std::string prefix, bool in_run_row = false) {
    key_prefix_ = std::move(prefix);
    prefix_in_run_row_ = in_run_row;
  }

 private:
  struct State;
  // Server faults in actions.csv that this run cannot apply: InputError naming the line.
  void check_server_actions() const;
  // Redis's clock (skew, drift, server_jump) within what it can be set to: InputError naming the line.
  void check_server_clock_range() const;
  const RunOptions& options_;
  Semaphore& semaphore_;
  std::vector<MasterPorts> masters_;
  std::string key_prefix_;
  bool prefix_in_run_row_ = false;
  bool control_processes_ = false;
  Recorder::Sink sink_;
  RunInputs inputs_;
};

// Throws InputError (naming the actions file, line and field 'arg') if Redis's clock, as the run's
// server skew, drift and server_jump actions move it, leaves `range` at any instant of the run.
// `master` (0-based) and `spec` (its masters.csv row): whose clock, in a multi-master run.
void check_server_clock_range(const RunOptions& options, const std::vector<ScriptedAction>& actions,
                              ServerClock::Range range, int master = 0, const MasterSpec& spec = {});

// Client `client`'s link to master `master` (both 1-based), model and driver runs alike: the links
// table's row for the pair, else the client's own delays (clients.csv, else the options).
LinkModel link_model(const RunOptions& options, const RunInputs& inputs, int client, int master);

// Throws InputError (naming the actions file, line and field) for an action whose masters do not fit
// the run: a master out of 1..N, a partition that names none, a server action that names none over
// several masters, a failover over several masters (they have no replicas). Model and driver runs alike.
void check_action_masters(const RunOptions& options, const std::vector<ScriptedAction>& actions);

// Runs deliveries that are due at one instant on Redis, pipelined in order, then hands each its
// replies. Throws LinkError when Redis is gone.
// `unblock` (if any) is called each quarter of a second that Redis leaves unanswered: a
// blocked WAIT whose timeout cannot pass while Redis's clock stands still.
void execute_deliveries(std::vector<Delivery> batch, Connection& link, Micros timeout,
                        const std::function<void()>& unblock = {});

// The detail of the history's first row: the run's parameters as key=value pairs; with several
// masters also `masters=N` and the variant's `quorum=Q` (given: 0 leaves it out).
std::string run_detail(const RunOptions& options, int quorum = 0);
// With several masters whose clocks are not all true time: " master_skew_us=S1,S2,...
// master_drift_ppm=D1,D2,..." (one value per master, masters.csv's or else --server-skew and
// --server-drift), which the timeline draws on each master's lane; "" otherwise.
std::string master_clocks_detail(const RunOptions& options, const RunInputs& inputs);

}  // namespace semsim
