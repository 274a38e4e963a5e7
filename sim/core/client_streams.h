// The salts of a client's random streams (random.h's client_stream): what each one is drawn for.
// A driver run draws its plan from the same streams as the simulation, so that one seed means one
// plan (clocks, delays, think and hold times, faults) whether the clients are simulated or real.
// Client 0 (Redis's side) also draws the server faults at rates from its own stream.
#pragma once

#include <cstdint>

namespace semsim::streams {

enum Salt : std::uint64_t { setup = 0, network = 1, behaviour = 2, faults = 3, server_faults = 4, identifiers = 5 };

}  // namespace semsim::streams
