// One client's network to Redis: a delay per message and direction, occasional spikes, and
// FIFO order per direction (one TCP connection: a message never overtakes an earlier one).
#pragma once

#include "sim/distribution.h"
#include "sim/random.h"

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
  Micros outbound(Micros sent) { return arrive(sent, model_.out, last_out_); }
  Micros inbound(Micros sent) { return arrive(sent, model_.in, last_in_); }

 private:
  Micros arrive(Micros sent, const Distribution& delay, Micros& last) {
    Micros d = delay.sample_duration(rng_);
    if (model_.spike_probability > 0 && rng_.chance(model_.spike_probability)) d += model_.spike.sample_duration(rng_);
    if (d.count() < 0) d = Micros(0);  // a normal draw below zero: no delay, not time travel
    last = std::max(last, sent + d);
    return last;
  }

  LinkModel model_;
  Rng rng_;
  Micros last_out_{0}, last_in_{0};
};

}  // namespace semsim
