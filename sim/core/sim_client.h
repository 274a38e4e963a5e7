// A simulated client: its own clock, network, random stream and pause/crash state. It is the
// Client and the Redis that the algorithms see: every request goes through the scheduler,
// reaching Redis after the outbound delay and resuming the client after the inbound delay.
#pragma once

#include <coroutine>
#include <functional>
#include <map>
#include <string>
#include <memory>
#include <vector>

#include "algorithms/api/client.h"
#include "sim/core/client_clock.h"
#include "sim/core/network.h"
#include "sim/core/random.h"
#include "sim/core/scheduler.h"

namespace semsim {

class SimClient final : public Client, private Redis {
 public:
  // `seed`: the client's behaviour (think, hold, retries); `identifier_seed`: its identifiers, a
  // stream of their own so that a variant drawing more identifiers changes no workload.
  SimClient(Scheduler& scheduler, int id, ClientClock clock, ClientNetwork network, std::uint64_t seed,
            std::uint64_t identifier_seed);

  int id() const { return id_; }
  Rng& rng() { return rng_; }
  ClientClock& clock() { return clock_; }
  const ClientNetwork& network() const { return network_; }

  // Client
  Redis& redis() override { return *this; }
  Micros now() const override { return clock_.read(scheduler_.now()); }
  Task<void> sleep(Micros d) override;
  std::string new_identifier() override;
  std::optional<Micros> server_now() const override {
    return server_clock_ ? server_clock_->read(scheduler_.now()) : scheduler_.now().time_since_epoch();
  }
  // Redis's own clock (skew, drift and jumps of the server), read as server_now.
  void set_server_clock(const ClientClock* clock) { server_clock_ = clock; }

  // Faults. A paused client runs nothing until the pause ends (replies wait for it); a crashed
  // one never runs again. Messages already on the wire still arrive.
  void pause_until(TrueTime t) { paused_until_ = std::max(paused_until_, t); }
  bool paused() const { return scheduler_.now() < paused_until_; }
  // Runs `f` now, or when the pause ends; never if the client has crashed.
  void when_awake(std::function<void()> f);
  void crash() { crashed_ = true; }
  bool crashed() const { return crashed_; }
  // The connection drops (a server fault): requests not yet at Redis never arrive, replies not
  // yet back never come, and every request in flight ends now with ConnectionLost (when the
  // client is awake). The next request goes over a new connection.
  void drop_connection(const std::string& why);

  // Starts a top-level task of this client (its workload, a scripted action); kept until the
  // client dies so that a suspended frame is never freed under a pending event.
  void spawn(Task<void> task);
  // Rethrows the first error that escaped a finished top-level task, if any.
  void check_tasks();
  // Called at once with the error of a top-level task that ended by an exception, so that the
  // run stops there instead of going on with a silent client.
  void on_failure(std::function<void(std::exception_ptr)> handler) { on_failure_ = std::move(handler); }

 private:
  struct Exchange;
  Task<std::vector<Reply>> transaction(std::vector<Command> commands) override;
  Task<std::vector<Reply>> pipeline(std::vector<Command> commands) override;
  void send(Exchange& exchange, std::coroutine_handle<> h);
  void finish(std::uint64_t id);
  void wake(std::coroutine_handle<> h);
  static Task<void> guarded(Task<void> task, SimClient& self);

  Scheduler& scheduler_;
  int id_;
  const ClientClock* server_clock_ = nullptr;
  ClientClock clock_;
  ClientNetwork network_;
  Rng rng_;
  Rng identifiers_;
  TrueTime paused_until_{};
  bool crashed_ = false;
  std::vector<Task<void>> tasks_;
  std::size_t prune_at_ = 64;  // spawn() drops finished tasks when there are this many
  std::uint64_t connection_ = 0;  // which connection: one more for every drop
  std::uint64_t next_exchange_ = 0;
  std::map<std::uint64_t, std::pair<Exchange*, std::coroutine_handle<>>> in_flight_;  // by send order
  std::function<void(std::exception_ptr)> on_failure_;
};

}  // namespace semsim
