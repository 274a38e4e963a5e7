#include "sim/search/run_preconditions.h"

#include <algorithm>
#include <filesystem>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <set>

#include "sim/scenario/client_table.h"
#include "sim/scenario/scenario.h"
#include "sim/search/scenario_gen.h"

namespace semsim {

using Kind = ScriptedAction::Kind;  // as scenario_gen.cpp (one unity source: the same alias)

namespace {

// A distribution's span, and a note when it has no largest draw (its span is then its least).
Span span_of(const Distribution& d, const std::string& what, std::vector<std::string>& unbounded) {
  const long long lo = std::max<long long>(0, d.lowest());
  const std::optional<long long> hi = d.highest();
  if (!hi) {
    unbounded.push_back(what + " " + d.text() + " has no largest draw");
    return Span{lo, lo};
  }
  return Span{std::min<long long>(lo, std::max<long long>(0, *hi)), std::max<long long>(0, *hi)};
}

// A clock's skew (signed, µs) or drift (ppm) distribution at its two ends.
std::pair<long long, long long> ends_of(const Distribution& d, const std::string& what, std::vector<std::string>& unbounded) {
  const std::optional<long long> hi = d.highest();
  if (!hi) {
    unbounded.push_back(what + " " + d.text() + " has no largest draw");
    return {0, 0};
  }
  return {d.lowest(), *hi};
}

std::uint32_t mask_of(const std::vector<int>& masters) {
  std::uint32_t bits = 0;
  for (int m : masters)
    if (m >= 0 && m < 32) bits |= 1u << m;
  return bits;
}

}  // namespace

RunPromise run_preconditions(const RunOptions& o, const RunInputs& inputs) {
  const Preconditions pre = preconditions_for(o.variant);
  RunPromise out;
  out.text = pre.text.empty() ? std::string("none") : pre.text;
  out.promised = pre.lease_budget || pre.clock_spread || pre.no_delay || pre.bounded_delay || pre.within_validity ||
                 pre.master_clock_rate || pre.no_master_jumps || pre.delayed_restarts;
  if (!out.promised) return out;

  // Draws without a largest value, where a kept precondition bounds them.
  std::vector<std::string> unbounded, ignored;
  const bool hold_bounded = pre.lease_budget || pre.within_validity;
  const bool delay_bounded = pre.lease_budget || pre.no_delay || pre.bounded_delay;
  const bool clock_bounded = pre.clock_spread || pre.master_clock_rate;
  const auto notes = [&](bool bounded) -> std::vector<std::string>& { return bounded ? unbounded : ignored; };
  GenCase c;
  c.clients = o.clients;
  c.limit = o.limit;
  c.duration_us = o.duration.count();
  c.timeout_us = o.timeout.count();
  c.hold = span_of(o.hold, "hold", notes(hold_bounded));
  c.refresh_every_us = o.refresh_every.count();
  if (o.spike_probability > 0) {
    c.spike_percent = std::max(1, static_cast<int>(std::lround(o.spike_probability * 100)));
    c.spike = span_of(o.spike, "delay spike", notes(delay_bounded));
  }
  c.pause_rate_per_10s = o.pause_rate > 0 ? std::max(1, static_cast<int>(std::ceil(o.pause_rate * 10))) : 0;
  c.crash_rate_per_10s = o.crash_rate > 0 ? std::max(1, static_cast<int>(std::ceil(o.crash_rate * 10))) : 0;
  c.server_drift_ppm = static_cast<std::int64_t>(std::llround(o.server_drift_ppm));
  c.aof_always = o.server.persistence == Persistence::aof_always;
  c.masters = o.masters;

  // Clients: each of clients.csv's as its row says, the others as the options say; a clock whose
  // skew is a range stands at both of its ends (two clients of the case), so that the spread of
  // the case is the largest the run can draw.
  const auto add_clients = [&](const ClientSpec& spec, int how_many, const std::string& who) {
    const Distribution& skew = spec.skew ? *spec.skew : o.skew;
    const Distribution& drift = spec.drift_ppm ? *spec.drift_ppm : o.drift_ppm;
    const Distribution& out_d = spec.delay_out ? *spec.delay_out : o.delay_out ? *o.delay_out : o.delay;
    const Distribution& in_d = spec.delay_in ? *spec.delay_in : o.delay_in ? *o.delay_in : o.delay;
    const auto [skew_lo, skew_hi] = ends_of(skew, who + "skew", notes(pre.clock_spread));
    const auto [drift_lo, drift_hi] = ends_of(drift, who + "drift", notes(clock_bounded));
    GenClient k;
    k.drift_ppm = std::max(std::llabs(drift_lo), std::llabs(drift_hi));
    k.delay_out = span_of(out_d, who + "delay out", notes(delay_bounded));
    k.delay_in = span_of(in_d, who + "delay in", notes(delay_bounded));
    k.skew_us = skew_lo;
    c.per_client.push_back(k);
    if (how_many > 1 && skew_hi != skew_lo) {
      k.skew_us = skew_hi;
      c.per_client.push_back(k);
    }
  };
  int listed = 0;
  for (const auto& [client, spec] : inputs.clients)
    if (client >= 1 && client <= o.clients) {
      ++listed;
      add_clients(spec, o.clients, "client " + std::to_string(client) + "'s ");
    }
  if (o.clients > listed) add_clients(ClientSpec{}, o.clients - listed, "");
  std::sort(unbounded.begin(), unbounded.end());
  unbounded.erase(std::unique(unbounded.begin(), unbounded.end()), unbounded.end());

  for (const ScriptedAction& a : inputs.actions) {
    GenAction g;
    g.at_us = (a.at - kRunStart).count();
    g.client = a.client;
    g.kind = a.kind;
    g.arg_us = a.arg ? a.arg->count() : a.kind == Kind::acquire ? c.hold.hi_us : 0;
    g.masters = o.masters > 1 ? mask_of(a.masters) : 0;
    c.actions.push_back(g);
  }
  // Faults of Redis at random rates: as one of each, on every master, down for no time.
  const std::uint32_t all = o.masters > 1 ? (1u << o.masters) - 1 : 0;
  for (const auto& [rate, kind] : {std::pair{o.restart_rate, Kind::redis_restart}, {o.disconnect_rate, Kind::disconnect},
                                   {o.redis_pause_rate, Kind::redis_pause}})
    if (rate > 0) c.actions.push_back(GenAction{.at_us = 0, .client = 0, .kind = kind, .arg_us = 0, .masters = all});
  for (int m = 1; m < o.masters + 1 && o.masters > 1; ++m) {
    const MasterSpec spec = inputs.master(m);
    c.per_master.push_back(GenMaster{.drift_ppm = static_cast<std::int64_t>(std::llround(spec.drift_ppm.value_or(o.server_drift_ppm))),
                                     .aof_always = spec.persistence.value_or(o.server.persistence) == Persistence::aof_always});
  }

  out.broken = broken_preconditions(c, pre, o.lock_timeout.count(), o.master_timeout.count(), o.drift_factor);
  // A draw without a largest value breaks the precondition that bounds it, whatever its least.
  out.broken.insert(out.broken.begin(), unbounded.begin(), unbounded.end());
  return out;
}

void note_point(VariantPromise& p, double value, const RunPromise& judged) {
  p.promised = judged.promised;
  p.text = judged.text;
  if (judged.broken.empty()) return;
  std::string why;
  for (const std::string& b : judged.broken) why += (why.empty() ? "" : "; ") + b;
  p.outside[value] = why;
}

std::vector<VariantPromise> promises_of_runs(const std::vector<RunVerdict>& runs, const std::string& out) {
  std::vector<VariantPromise> promises;
  std::set<std::pair<std::string, double>> judged;
  for (const RunVerdict& run : runs) {
    if (run.folder.empty() || !judged.insert({run.variant, run.value}).second) continue;
    auto p = std::find_if(promises.begin(), promises.end(), [&](const VariantPromise& v) { return v.variant == run.variant; });
    if (p == promises.end()) p = promises.insert(promises.end(), VariantPromise{.variant = run.variant, .text = {}, .outside = {}});
    try {
      const Scenario ini = load_scenario((std::filesystem::path(out) / run.folder / "run.ini").string());
      if (ini.runs.empty()) continue;
      note_point(*p, run.value, run_preconditions(ini.runs.front(), read_run_inputs(ini.runs.front())));
    } catch (const std::exception&) {  // unjudged, as the header says: the merge itself stands
    }
  }
  return promises;
}

}  // namespace semsim
