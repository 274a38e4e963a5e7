// A simulated client: its own clock, network, random stream and pause/crash state. It is the
// Client and the Redis that the algorithms see: every request goes through the scheduler,
// reaching Redis after the outbound delay and resuming the client after the inbound delay.
#pragma once

#include <coroutine>
#include <functional>
#include <string>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "algorithms/api/client.h"
#include "sim/core/client_clock.h"
#include "sim/core/network.h"
#include "sim/core/random.h"
#include "sim/core/scheduler.h"

namespace semsim {

class SimClient final : public Client {
 public:
  // `seed`: the client's behaviour (think, hold, retries); `identifier_seed`: its identifiers, a
  // stream of their own so that a variant drawing more identifiers changes no workload.
  // `networks`: its link to each master (one for a one-master run).
  SimClient(Scheduler& scheduler, int id, ClientClock clock, std::vector<ClientNetwork> networks, std::uint64_t seed,
            std::uint64_t identifier_seed);
  SimClient(Scheduler& scheduler, int id, ClientClock clock, ClientNetwork network, std::uint64_t seed,
            std::uint64_t identifier_seed);
  ~SimClient() override;

  int id() const { return id_; }
  Rng& rng() { return rng_; }
  ClientClock& clock() { return clock_; }
  const ClientNetwork& network(int master = 0) const { return links_.at(static_cast<std::size_t>(master))->network; }

  // Client
  Redis& redis() override { return *links_.front(); }
  int masters() const override { return static_cast<int>(links_.size()); }
  Redis& redis(int master) override { return *links_.at(static_cast<std::size_t>(master)); }
  Micros now() const override { return clock_.read(scheduler_.now()); }
  Task<void> sleep(Micros d) override;
  std::string new_identifier() override;
  std::optional<Micros> server_now() const override { return server_now(0); }
  std::optional<Micros> server_now(int master) const override;
  void note(std::string detail) override;
  // What the variant noted for the operation it is running, once (Workload: the outcome row).
  std::string take_notes() { return std::exchange(notes_, {}); }
  // Redis's own clock (skew, drift and jumps of the server), read as server_now; one per master.
  void set_server_clock(const ClientClock* clock) { set_server_clocks({clock}); }
  void set_server_clocks(std::vector<const ClientClock*> clocks) { server_clocks_ = std::move(clocks); }
  // A request that no answer reaches within `timeout` of true time ends with NoAnswer (runs of
  // several masters, and partitions); unset: the client waits as long as the run lasts.
  void set_master_timeout(std::optional<Micros> timeout) { master_timeout_ = timeout; }

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
  // client is awake). The next request goes over a new connection. On every master, or on one.
  void drop_connection(const std::string& why);
  void drop_connection(int master, const std::string& why);
  // The link to `master` is cut until `until` (a partition): a message that leaves either end
  // meanwhile is lost, and the request waits for its master timeout.
  void cut(int master, TrueTime until);

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
  // The client's link to one master: the Redis a variant sees through redis(master).
  struct Link final : Redis {
    Link(SimClient& client, int master, ClientNetwork network)
        : client(client), master(master), network(std::move(network)) {}
    Task<std::vector<Reply>> transaction(std::vector<Command> commands) override;
    Task<std::vector<Reply>> pipeline(std::vector<Command> commands) override;
    Task<Reply> call(Command command) override;
    bool cut_at(TrueTime t) const { return t < cut_until; }
    SimClient& client;
    int master;
    ClientNetwork network;
    std::uint64_t connection = 0;  // which connection: one more for every drop
    TrueTime cut_until{};
  };
  // A request between its send and the moment its client reads the outcome.
  struct InFlight {
    Exchange* exchange;
    std::coroutine_handle<> handle;
    bool settled = false;  // answered, lost or timed out: the client resumes when awake
  };
  void send(Exchange& exchange, std::coroutine_handle<> h);
  // Delivery `i` of request `id` has its replies at Redis; they travel back to the client.
  void answer(std::uint64_t id, std::size_t i, Replies replies);
  bool waiting(std::uint64_t id) const;
  // The exchange of request `id` while it waits for its outcome; null once it has one, or is gone.
  Exchange* waiting_exchange(std::uint64_t id);
  void finish(std::uint64_t id);
  void time_out(std::uint64_t id);
  // The outcome is in: the client reads it when awake (unless the exchange is gone meanwhile).
  void settle(std::uint64_t id);
  void lose_in_flight(int master, const std::string& why);
  void forget(std::uint64_t id);
  InFlight* find_in_flight(std::uint64_t id);  // null once it is gone
  InFlight& in_flight(std::uint64_t id);       // throws std::out_of_range once it is gone
  void wake(std::coroutine_handle<> h);
  static Task<void> guarded(Task<void> task, SimClient& self);

  Scheduler& scheduler_;
  int id_;
  std::vector<const ClientClock*> server_clocks_;
  ClientClock clock_;
  std::vector<std::unique_ptr<Link>> links_;
  Rng rng_;
  Rng identifiers_;
  TrueTime paused_until_{};
  bool crashed_ = false;
  std::optional<Micros> master_timeout_;
  std::string notes_;
  std::vector<Task<void>> tasks_;
  std::size_t prune_at_ = 64;  // spawn() drops finished tasks when there are this many
  std::uint64_t next_exchange_ = 0;
  // By send order (ids only grow): a client has a few requests in flight at most, so a sorted
  // vector, which costs no allocation a request (a map costs one).
  std::vector<std::pair<std::uint64_t, InFlight>> in_flight_;
  std::function<void(std::exception_ptr)> on_failure_;
};

}  // namespace semsim
