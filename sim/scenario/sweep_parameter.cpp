#include "sim/scenario/sweep_parameter.h"
#include "sim/scenario/run_options_io.h"

#include <sstream>
#include <stdexcept>

namespace semsim {

enum class ValueKind { length, signed_duration, count };  // length: a duration, not negative

struct SweepParameter {
  std::string name;
  ValueKind kind;
  long long max_count;  // for counts (the minimum is 1)
  void (*apply)(const SweepValue&, RunOptions&);
  const char* meaning;  // what a value V stands for, for report.html
};

namespace {

const std::vector<SweepParameter>& parameters() {
  using K = ValueKind;
  static const std::vector<SweepParameter> all = {
      {"skew", K::length, 0,
       [](const SweepValue& v, RunOptions& o) {
         const std::string d = format_duration(v.duration);
         o.skew = v.duration.count() == 0 ? Distribution::fixed(Micros(0)) : Distribution::parse("uniform:-" + d + ".." + d);
       },
       "skew V: each client's clock offset drawn uniformly from [-V, +V] (skew 5 ms: --skew uniform:-5ms..5ms)"},
      {"delay", K::length, 0,
       [](const SweepValue& v, RunOptions& o) {
         o.delay = v.duration.count() == 0 ? Distribution::fixed(Micros(0))
                                           : Distribution::parse("uniform:0ms.." + format_duration(v.duration));
       },
       "delay V: each message, either way, delayed by a time drawn uniformly from [0, V] (--delay uniform:0ms..V)"},
      {"clients", K::count, kMaxClients, [](const SweepValue& v, RunOptions& o) { o.clients = static_cast<int>(v.count); },
       "clients V: V simulated clients"},
      {"limit", K::count, 1'000'000, [](const SweepValue& v, RunOptions& o) { o.limit = static_cast<int>(v.count); },
       "limit V: at most V holders at once"},
      {"timeout", K::length, 0, [](const SweepValue& v, RunOptions& o) { o.timeout = v.duration; },
       "timeout V: the semaphore's timeout, how long a permit lasts unrefreshed"},
      {"hold", K::length, 0, [](const SweepValue& v, RunOptions& o) { o.hold = Distribution::fixed(v.duration); },
       "hold V: every hold lasts exactly V (--hold fixed:V)"},
      {"refresh-every", K::length, 0, [](const SweepValue& v, RunOptions& o) { o.refresh_every = v.duration; },
       "refresh-every V: a holder refreshes its permit every V"},
      {"server-skew", K::signed_duration, 0, [](const SweepValue& v, RunOptions& o) { o.server_skew = v.duration; },
       "server-skew V: Redis's clock V ahead of true time (behind when negative)"},
  };
  return all;
}

SweepValue parse_value(const SweepParameter& p, const std::string& text) {
  SweepValue v;
  v.label = text;
  if (p.kind == ValueKind::count) {
    v.count = parse_integer(text, 1, p.max_count);
    v.x = static_cast<double>(v.count);
    return v;
  }
  v.duration = parse_duration(text);
  if (p.kind == ValueKind::length && v.duration.count() < 0) throw std::invalid_argument("must not be negative");
  v.x = static_cast<double>(v.duration.count()) / 1000.0;
  return v;
}

}  // namespace

const std::string& Sweep::name() const { return parameter->name; }
std::string Sweep::meaning() const { return parameter->meaning; }

std::string sweep_meaning(const std::string& name) {
  for (const SweepParameter& p : parameters())
    if (p.name == name) return p.meaning;
  return {};
}
bool Sweep::in_ms() const { return parameter->kind != ValueKind::count; }
void Sweep::apply(const SweepValue& v, RunOptions& o) const { parameter->apply(v, o); }

std::string sweep_parameter_names() {
  std::string out;
  for (const SweepParameter& p : parameters()) out += (out.empty() ? "" : ", ") + p.name;
  return out;
}

Sweep parse_sweep(const std::string& name, const std::string& values, const std::string& as_typed) {
  Sweep sweep;
  for (const SweepParameter& p : parameters())
    if (p.name == name) sweep.parameter = &p;
  if (!sweep.parameter)
    throw std::invalid_argument(as_typed + ": cannot sweep '" + name + "'; one of " + sweep_parameter_names());
  std::stringstream in(values);
  for (std::string item; std::getline(in, item, ',');) {
    if (item.empty()) continue;
    try {
      const SweepValue v = parse_value(*sweep.parameter, item);
      // Each point has its own runs, folders and row of statistics.
      for (const SweepValue& before : sweep.values)
        if (before.x == v.x) throw std::invalid_argument("the same value as '" + before.label + "'");
      sweep.values.push_back(v);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(as_typed + ": '" + item + "': " + e.what());
    }
  }
  if (sweep.values.empty()) throw std::invalid_argument(as_typed + ": no value to sweep");
  return sweep;
}

}  // namespace semsim
