// Deterministic randomness: one fixed engine (mt19937_64) and our own distributions, because
// std::*_distribution differs between standard libraries and replays must not.
#pragma once

#include <cstdint>
#include <random>

namespace semsim {

// A stream's seed derived from the run seed and a stream id (splitmix64), so that adding a
// client does not change the other clients' draws.
std::uint64_t derive_seed(std::uint64_t root, std::uint64_t stream);

// A client's stream ids: 16 per client (salts for its clock, network, behaviour, faults).
inline std::uint64_t client_stream(int client, std::uint64_t salt = 0) {
  return 1000 + static_cast<std::uint64_t>(client) * 16 + salt;
}

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : engine_(seed) {}
  std::uint64_t next() { return engine_(); }
  // Uniform in [lo, hi] (inclusive).
  std::int64_t uniform_int(std::int64_t lo, std::int64_t hi);
  // Uniform in [0, 1).
  double uniform01();
  double normal(double mean, double sd);  // Box-Muller
  double exponential(double mean);
  bool chance(double p) { return uniform01() < p; }

 private:
  std::mt19937_64 engine_;
};

}  // namespace semsim
