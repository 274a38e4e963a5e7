// A distribution of durations (or of plain numbers, e.g. drift in ppm): fixed:D, uniform:D1..D2,
// normal:MEAN,SD, exp:MEAN. A bare value means fixed.
#pragma once

#include <optional>
#include <string>

#include "sim/core/duration.h"
#include "sim/core/random.h"

namespace semsim {

class Distribution {
 public:
  enum class Kind { fixed, uniform, normal, exponential };
  enum class Unit { duration, number };  // number: values are plain numbers scaled by 1

  // Plain numbers (drift in ppm) are within this bound either way: a clock at most twice as fast.
  static constexpr double kMaxNumber = 1e6;

  Distribution() = default;
  static Distribution fixed(Micros d) { return Distribution(Kind::fixed, d.count(), 0, Unit::duration); }
  // Throws std::invalid_argument saying what is wrong.
  static Distribution parse(const std::string& text, Unit unit = Unit::duration);

  // A draw; durations in µs (normal draws may be negative: clamp where a delay is meant).
  long long sample(Rng& rng) const;
  Micros sample_duration(Rng& rng) const { return Micros(sample(rng)); }
  std::string text() const { return text_; }
  // Whether a draw can come out below zero by design (a normal's tails aside): fixed or uniform
  // below zero, a normal with a negative mean. Delays, holds and pauses must not.
  bool negative() const { return a_ < 0; }
  // The smallest draw possible: a normal has no bound (the lowest long long).
  long long lowest() const;
  // The largest draw possible; nullopt for a normal or an exponential, which have no bound.
  std::optional<long long> highest() const;
  // The one value a fixed distribution draws; nullopt for the others.
  std::optional<long long> fixed_value() const {
    return kind_ == Kind::fixed ? std::optional<long long>(a_) : std::nullopt;
  }

 private:
  Distribution(Kind k, long long a, long long b, Unit u);
  Kind kind_ = Kind::fixed;
  long long a_ = 0, b_ = 0;
  Unit unit_ = Unit::duration;
  std::string text_ = "fixed:0ms";
};

}  // namespace semsim
