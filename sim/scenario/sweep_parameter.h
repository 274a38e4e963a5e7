// What a sweep (semsim compare) can vary, and how a value becomes run options:
//   skew D:        client clocks offset uniformly in [-D, +D]
//   delay D:       each message delayed uniformly in [0, D], both directions
//   clients N, limit N
//   timeout D, hold D (every hold lasts D), refresh-every D, server-skew D (signed)
// --sweep NAME=V1,V2,... names one; --skews, --delays and --clients-sweep are shorthands.
#pragma once

#include <string>
#include <vector>

#include "sim/core/duration.h"
#include "sim/core/run_options.h"

namespace semsim {

struct SweepValue {
  std::string label;  // as given: folder names and progress lines
  double x = 0;       // for the CSV and the charts: ms for durations, else the number
  Micros duration{0};
  long long count = 0;
};

struct SweepParameter;

struct Sweep {
  const SweepParameter* parameter = nullptr;
  std::vector<SweepValue> values;

  const std::string& name() const;
  std::string meaning() const;  // what a value stands for: "skew V: each client's clock offset ..."
  bool in_ms() const;                                   // durations: values in ms
  void apply(const SweepValue& v, RunOptions& o) const;  // sets the option this sweep varies
};

// "NAME" and "V1,V2,...". `as_typed` is the option as the user wrote it ("--skews 0,1ms",
// "--sweep timeout=1s,x"): every message starts with it. Throws std::invalid_argument.
Sweep parse_sweep(const std::string& name, const std::string& values, const std::string& as_typed);

// sweep.meaning() of the parameter so named; "" for none (merge reads the name from a shard).
std::string sweep_meaning(const std::string& name);

// The names --sweep takes, comma-separated (for --help and errors).
std::string sweep_parameter_names();

}  // namespace semsim
