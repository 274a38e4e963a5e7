// One client's network to Redis: a delay per message and direction, occasional spikes, and
// FIFO order per direction (one TCP connection: a message never overtakes an earlier one).
#pragma once

#include <algorithm>

#include "sim/core/distribution.h"
#include "sim/core/random.h"
#include "sim/core/true_time.h"

namespace semsim {

struct LinkModel {
  Distribution out, in;  // client -> Redis, Redis -> client
  double spike_probability = 0;
  Distribution spike;
};

class ClientNetwork {
 public:
  ClientNetwork(LinkModel model, std::uint64_t seed) : model_(std::move(model)), rng_(seed) {}
  // When a message sent at `sent` reaches Redis / gets back to the client.
  TrueTime outbound(TrueTime sent) { return arrive(sent, model_.out, last_out_); }
  TrueTime inbound(TrueTime sent) { return arrive(sent, model_.in, last_in_); }
  // The shortest delay a message can have each way (FIFO order and spikes only add, unless a
  // spike can be negative): the lookahead's bound.
  Micros min_outbound() const { return lowest(model_.out); }
  Micros min_inbound() const { return lowest(model_.in); }

 private:
  Micros lowest(const Distribution& delay) const {
    const long long d = delay.lowest(), spike = model_.spike.lowest();
    if (d <= 0) return Micros(0);
    if (model_.spike_probability == 0 || spike >= 0) return Micros(d);
    return Micros(spike <= -d ? 0 : d + spike);
  }

  TrueTime arrive(TrueTime sent, const Distribution& delay, TrueTime& last) {
    Micros d = delay.sample_duration(rng_);
    if (model_.spike_probability > 0 && rng_.chance(model_.spike_probability)) d += model_.spike.sample_duration(rng_);
    if (d.count() < 0) d = Micros(0);  // a normal draw below zero: no delay, not time travel
    last = std::max(last, sent + d);
    return last;
  }

  LinkModel model_;
  Rng rng_;
  TrueTime last_out_{}, last_in_{};
};

}  // namespace semsim
