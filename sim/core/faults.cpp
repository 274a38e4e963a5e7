#include "sim/core/faults.h"

#include "sim/core/client_spec.h"

namespace semsim {

namespace {
Micros exponential_gap(Rng& rng, double per_second) {
  return Micros(static_cast<long long>(rng.exponential(1e6 / per_second)));
}
}  // namespace

void Faults::pause(SimClient& client, Micros length) {
  if (client.crashed()) return;
  const TrueTime until = scheduler_.now() + length;
  workload_.fault(client, Op::pause, "length_us=" + std::to_string(length.count()));
  client.pause_until(until);
  scheduler_.at(until, [this, &client] {
    if (!client.crashed() && !client.paused()) workload_.fault(client, Op::resume);
  });
}

void Faults::crash(SimClient& client) {
  if (client.crashed()) return;
  workload_.fault(client, Op::crash);
  client.crash();
}

void Faults::jump(SimClient& client, Micros by) {
  if (client.crashed()) return;
  client.clock().jump(scheduler_.now(), by);
  workload_.fault(client, Op::jump, "by_us=" + std::to_string(by.count()));
}

void Faults::partition(SimClient& client, const std::vector<int>& masters, Micros length) {
  if (client.crashed()) return;
  const std::string list = master_list(masters);
  const TrueTime until = scheduler_.now() + length;
  for (int m : masters) client.cut(m, until);
  workload_.fault(client, Op::partition, "masters=" + list + " length_us=" + std::to_string(length.count()));
  scheduler_.at(until, [this, &client, list] {
    if (!client.crashed()) workload_.fault(client, Op::heal, "masters=" + list);
  });
}

void Faults::at_rates(SimClient& client, const RunOptions& options, std::uint64_t seed) {
  auto rng = std::make_shared<Rng>(seed);
  if (options.crash_rate > 0)
    scheduler_.at(kRunStart + exponential_gap(*rng, options.crash_rate), [this, &client] { crash(client); });
  if (options.pause_rate > 0) next_pause(client, options, rng, kRunStart + exponential_gap(*rng, options.pause_rate));
}

void Faults::next_pause(SimClient& client, const RunOptions& options, std::shared_ptr<Rng> rng, TrueTime at) {
  scheduler_.at(at, [this, &client, &options, rng] {
    const Micros length = std::max(Micros(0), options.pause_length.sample_duration(*rng));
    pause(client, length);
    next_pause(client, options, rng, scheduler_.now() + length + exponential_gap(*rng, options.pause_rate));
  });
}

}  // namespace semsim
