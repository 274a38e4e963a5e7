// Deterministic randomness: one fixed engine (xoshiro256**, its state filled by splitmix64 from
// the seed) and our own distributions, because std::*_distribution differs between standard
// libraries and replays must not. Every client holds three streams, so the engine's state is
// per-client memory: 32 bytes here, where mt19937_64 held 2,504 (docs/performance.md, memory).
// Written out (a few lines from Blackman and Vigna's public-domain reference) because neither
// the standard library nor Debian's Boost has it.
#pragma once

#include <cstdint>

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
  explicit Rng(std::uint64_t seed) {
    for (std::uint64_t& word : s_) {  // splitmix64: never the all-zero state
      seed += 0x9e3779b97f4a7c15ULL;
      std::uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      word = z ^ (z >> 31);
    }
  }
  std::uint64_t next() {  // xoshiro256**
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  // Uniform in [lo, hi] (inclusive).
  std::int64_t uniform_int(std::int64_t lo, std::int64_t hi);
  // Uniform in [0, 1).
  double uniform01();
  double normal(double mean, double sd);  // Box-Muller
  double exponential(double mean);
  bool chance(double p) { return uniform01() < p; }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4];
};

}  // namespace semsim
