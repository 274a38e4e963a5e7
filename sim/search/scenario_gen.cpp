#include "sim/search/scenario_gen.h"

#include <algorithm>
#include <bit>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "algorithms/api/semaphore.h"

namespace semsim {

namespace fs = std::filesystem;
using Kind = ScriptedAction::Kind;

namespace {

constexpr std::int64_t kMs = 1000;

std::int64_t clamp_abs(std::int64_t v, std::int64_t bound) { return std::clamp(v, -bound, bound); }

Span clamp_span(Span s, std::int64_t hi) {
  s.hi_us = std::min(s.hi_us, hi);
  s.lo_us = std::min(s.lo_us, s.hi_us);
  return s;
}

// Durations in whole milliseconds: readable counterexamples, and shrinking has fewer steps.
rc::Gen<std::int64_t> ms_in(int lo, int hi_inclusive) {
  return rc::gen::map(rc::gen::inRange(lo, hi_inclusive + 1), [](int v) { return std::int64_t(v) * kMs; });
}
// A signed magnitude that shrinks towards 0 from either side.
rc::Gen<std::int64_t> signed_ms(int max_ms) {
  return rc::gen::apply([](std::int64_t m, bool negative) { return negative ? -m : m; }, ms_in(0, max_ms),
                        rc::gen::arbitrary<bool>());
}
rc::Gen<Span> span_ms(int lo_min, int lo_max, int max_width) {
  return rc::gen::apply([](std::int64_t lo, std::int64_t width) { return Span{lo, lo + width}; }, ms_in(lo_min, lo_max),
                        ms_in(0, max_width));
}

rc::Gen<GenAction> gen_action(int clients, std::int64_t duration_us) {
  const int duration_ms = static_cast<int>(duration_us / kMs);
  return rc::gen::exec([=] {
    GenAction a;
    // Acquires first: actions shrink towards the most telling kind.
    a.kind = *rc::gen::weightedElement<Kind>(
        {{5, Kind::acquire}, {2, Kind::pause}, {1, Kind::crash}, {1, Kind::jump}, {1, Kind::release}, {1, Kind::refresh}});
    a.at_us = *ms_in(0, std::max(0, duration_ms - 1));
    a.client = *rc::gen::inRange(1, clients + 1);
    switch (a.kind) {
      case Kind::acquire: a.arg_us = *ms_in(1, 1000); break;
      case Kind::pause: a.arg_us = *ms_in(1, 500); break;
      case Kind::jump: a.arg_us = *signed_ms(500); break;
      default: break;
    }
    return a;
  });
}

// The shortest timeout the generator draws: one step on a variant's own scale (GenSettings).
constexpr std::int64_t kScaleBase = 20 * kMs;

// A drawn case on the variant's scale (GenSettings::time_step_us): the times of its workload
// multiplied by step / 20 ms. Clocks, the network and Redis's own faults keep their magnitudes:
// they are the world's, not the library's.
// A timeout given (GenSettings::timeout_us) sets the scale: the case's proportions to its timeout stay.
GenCase on_scale(GenCase c, const GenSettings& s) {
  const bool given = s.timeout_us > 0 && c.timeout_us > 0;
  if (s.time_step_us <= kScaleBase && !given) return c;
  const double factor = given ? static_cast<double>(s.timeout_us) / static_cast<double>(c.timeout_us)
                              : static_cast<double>(s.time_step_us) / kScaleBase;
  const auto up = [&](std::int64_t& us) { us = static_cast<std::int64_t>(static_cast<double>(us) * factor); };
  for (std::int64_t* us : {&c.duration_us, &c.timeout_us, &c.hold.lo_us, &c.hold.hi_us, &c.think.lo_us,
                           &c.think.hi_us, &c.refresh_every_us, &c.pause_length.lo_us, &c.pause_length.hi_us})
    up(*us);
  for (GenAction& a : c.actions) {
    up(a.at_us);
    if (a.kind == Kind::acquire || a.kind == Kind::pause) up(a.arg_us);
  }
  return c;
}

}  // namespace

std::string Span::text() const {
  if (lo_us == hi_us) return "fixed:" + format_duration(Micros(lo_us));
  return "uniform:" + format_duration(Micros(lo_us)) + ".." + format_duration(Micros(hi_us));
}

int GenCase::scripted_acquires() const {
  return static_cast<int>(std::count_if(actions.begin(), actions.end(), [](auto& a) { return a.kind == Kind::acquire; }));
}

Preconditions preconditions_for(const std::string& variant) { return variant_info(variant).preconditions; }

namespace {
// Each a name and the precondition it is.
const std::vector<std::pair<std::string, bool Preconditions::*>>& precondition_names() {
  static const std::vector<std::pair<std::string, bool Preconditions::*>> names = {
      {"lease-budget", &Preconditions::lease_budget},       {"clock-spread", &Preconditions::clock_spread},
      {"no-delay", &Preconditions::no_delay},               {"bounded-delay", &Preconditions::bounded_delay},
      {"within-validity", &Preconditions::within_validity}, {"master-clock-rate", &Preconditions::master_clock_rate},
      {"no-master-jumps", &Preconditions::no_master_jumps}, {"delayed-restarts", &Preconditions::delayed_restarts},
  };
  return names;
}
}  // namespace

std::vector<std::string> droppable_preconditions() {
  std::vector<std::string> out;
  for (const auto& [name, field] : precondition_names()) out.push_back(name);
  return out;
}

void drop_precondition(Preconditions& pre, const std::string& name) {
  for (const auto& [known, field] : precondition_names())
    if (known == name) {
      pre.*field = false;
      return;
    }
  std::string all;
  for (const std::string& n : droppable_preconditions()) all += (all.empty() ? "" : ", ") + n;
  throw std::invalid_argument("'" + name + "' is not a precondition (known: " + all + ")");
}

std::string preconditions_help() {
  std::string out;
  const auto line = [&](const VariantInfo& v) {
    out += "  " + v.name + ": " + v.preconditions.text + "\n      asserts: safety" +
           (v.liveness ? ", liveness" : "") + (v.lease_honesty ? ", lease honesty" : "") + "\n";
  };
  for (const VariantInfo& v : variant_registry()) line(v);
  line(variant_info("script:"));
  return out;
}

namespace {

// Redlock's drift allowance for a ttl, in µs: factor * ttl (whole ms) + 2 ms, as redlock-rb.
std::int64_t redlock_drift_us(std::int64_t ttl_us, double factor) {
  const std::int64_t ttl_ms = (ttl_us + 999) / 1000;
  return (static_cast<std::int64_t>(static_cast<double>(ttl_ms) * factor) + 2) * 1000;
}

// How long a holder may hold (and pause) inside its validity: ttl - master timeout - drift. An
// acquire's elapsed is at most the master timeout (a vote comes in or times out by then).
std::int64_t validity_budget_us(const GenCase& c, const GenSettings& s) {
  return c.timeout_us - s.master_timeout_us - redlock_drift_us(c.timeout_us, s.drift_factor);
}

// Redlock's assumptions (Preconditions::within_validity ...), each kept by clamping.
void normalize_redlock(GenCase& c, const GenSettings& s) {
  const Preconditions& p = s.pre;
  if (p.no_master_jumps) std::erase_if(c.actions, [](auto& a) { return a.kind == Kind::server_jump || a.kind == Kind::jump; });
  if (p.master_clock_rate) {
    // Masters and clients each within half the factor: a key's lifetime and the holder's measure
    // of it differ by at most the factor.
    const auto bound = static_cast<std::int64_t>(s.drift_factor * 1e6 / 2);
    for (auto& m : c.per_master) m.drift_ppm = clamp_abs(m.drift_ppm, bound);
    for (auto& k : c.per_client) k.drift_ppm = clamp_abs(k.drift_ppm, bound);
  }
  if (p.delayed_restarts)
    for (auto& a : c.actions) {
      if (a.kind != Kind::redis_restart) continue;
      bool volatile_master = c.masters == 1;
      for (int m = 0; m < c.masters && c.masters > 1; ++m)
        if ((a.masters >> m & 1u) && !c.per_master[static_cast<std::size_t>(m)].aof_always) volatile_master = true;
      if (volatile_master) a.arg_us = std::max(a.arg_us, c.timeout_us);  // down for a ttl
    }
  if (p.within_validity) {
    // Hold (or refresh period) + pauses inside the validity; no pauses at random rates (they
    // could stack inside one hold).
    const std::int64_t budget = std::max<std::int64_t>(kMs, validity_budget_us(c, s));
    c.pause_rate_per_10s = 0;
    const std::int64_t hold = budget * 3 / 4, pauses = budget - hold;
    c.hold = clamp_span(c.hold, hold);
    if (c.refresh_every_us > 0) c.refresh_every_us = std::clamp<std::int64_t>(c.refresh_every_us, 1, hold);
    std::map<int, std::int64_t> paused;
    for (auto& a : c.actions) {
      if (a.kind == Kind::acquire) a.arg_us = std::min(a.arg_us, hold);
      if (a.kind == Kind::pause) a.arg_us = std::min(a.arg_us, pauses - paused[a.client]), paused[a.client] += a.arg_us;
    }
    std::erase_if(c.actions, [](auto& a) { return a.kind == Kind::pause && a.arg_us <= 0; });
  }
}

}  // namespace

GenCase normalize(GenCase c, const GenSettings& s) {
  c.clients = std::max(1, c.clients);
  c.limit = s.lock ? 1 : std::clamp(c.limit, 1, std::max(1, c.clients - 1));
  c.duration_us = std::max<std::int64_t>(c.duration_us, kMs);
  c.timeout_us = std::max<std::int64_t>(c.timeout_us, kMs);
  if (s.limit > 0) c.limit = s.limit;
  if (s.timeout_us > 0) c.timeout_us = s.timeout_us;
  if (const std::int64_t step = s.time_step_us; step > 0)  // the nearest whole number of steps, at least one
    c.timeout_us = std::max<std::int64_t>(1, (c.timeout_us + step / 2) / step) * step;
  c.per_client.resize(c.clients);
  c.masters = std::max(1, s.masters);
  const std::uint32_t all_masters = c.masters > 1 ? (1u << c.masters) - 1 : 0;
  c.per_master.resize(c.masters > 1 ? static_cast<std::size_t>(c.masters) : 0);
  for (auto& a : c.actions) a.masters &= all_masters;
  std::erase_if(c.actions, [&](const GenAction& a) {
    if (c.masters > 1) {
      // Master faults and partitions name masters; a failover needs a replica, which masters have none of.
      if (a.kind == Kind::partition || a.kind >= Kind::server_jump) {
        if (a.masters == 0 || a.kind == Kind::failover || a.kind == Kind::disconnect) return true;
        if (a.kind == Kind::partition) return a.client < 1 || a.client > c.clients;
        return a.client != 0;
      }
      return a.client < 1 || a.client > c.clients;
    }
    if (a.kind == Kind::partition) return true;
    if (a.kind == Kind::server_jump) return !s.server_jumps || a.client != 0;
    if (a.kind > Kind::server_jump) return !s.server_faults || a.client != 0;
    return a.client < 1 || a.client > c.clients;
  });
  // A partition scripts its client, as every client row does: only a client with acquires in the
  // script gets one, so that partitions do not silence the workload.
  std::erase_if(c.actions, [&](const GenAction& p) {
    return p.kind == Kind::partition && std::none_of(c.actions.begin(), c.actions.end(), [&](const GenAction& a) {
             return a.kind == Kind::acquire && a.client == p.client;
           });
  });
  if (!s.server_jumps || c.masters > 1) c.server_drift_ppm = 0;
  if (!s.server_faults || c.masters > 1) c.aof_always = false;
  // Redlock's timeout must leave a validity beyond the master timeout and the drift.
  if (c.masters > 1) c.timeout_us = std::max<std::int64_t>(c.timeout_us, 4 * s.master_timeout_us);
  for (auto& a : c.actions) a.at_us = std::clamp<std::int64_t>(a.at_us, 0, c.duration_us - 1);
  std::stable_sort(c.actions.begin(), c.actions.end(), [](auto& a, auto& b) { return a.at_us < b.at_us; });

  const Preconditions& p = s.pre;
  const std::int64_t t = c.timeout_us;
  if (!s.allow_delay || p.no_delay) {
    for (auto& k : c.per_client) k.delay_out = k.delay_in = Span{};
    c.spike_percent = 0;
  }
  if (c.spike_percent == 0) c.spike = Span{};
  c.think.lo_us = std::max<std::int64_t>(c.think.lo_us, kMs), c.think.hi_us = std::max(c.think.hi_us, c.think.lo_us);
  if (p.no_delay) {
    c.pause_rate_per_10s = 0;
    std::erase_if(c.actions, [](auto& a) { return a.kind == Kind::pause; });
  }
  if (p.lease_budget || p.bounded_delay) {
    // Each direction at most T/16 (delay T/32 + spike T/32): a round trip stays under T/8.
    std::int64_t bound = p.lease_budget ? t / 32 : t;
    if (p.bounded_delay) bound = std::min(bound, s.lock_timeout_us / 400);  // 4 pieces per round trip
    for (auto& k : c.per_client) k.delay_out = clamp_span(k.delay_out, bound), k.delay_in = clamp_span(k.delay_in, bound);
    c.spike = clamp_span(c.spike, bound);
  }
  if (p.lease_budget) {
    c.hold = clamp_span(c.hold, t / 4);
    if (c.refresh_every_us > 0) c.refresh_every_us = std::clamp<std::int64_t>(c.refresh_every_us, 1, t / 4);
    c.pause_rate_per_10s = 0;  // random pauses could stack inside one hold: not boundable
    std::map<int, std::int64_t> paused;
    for (auto& a : c.actions) {
      if (a.kind == Kind::acquire) a.arg_us = std::min(a.arg_us, t / 4);
      if (a.kind == Kind::pause) a.arg_us = std::min(a.arg_us, t / 8 - paused[a.client]), paused[a.client] += a.arg_us;
    }
    std::erase_if(c.actions, [](auto& a) { return a.kind == Kind::pause && a.arg_us <= 0; });
  }
  if (p.clock_spread) {
    // Every client's offset stays within +-T/8 (skew T/16, drift T/32, jumps T/32): spread <= T/4.
    const std::int64_t drift_bound = (t / 32) * 1'000'000 / c.duration_us;
    for (auto& k : c.per_client) k.skew_us = clamp_abs(k.skew_us, t / 16), k.drift_ppm = clamp_abs(k.drift_ppm, drift_bound);
    std::map<int, std::int64_t> jumped;
    for (auto& a : c.actions)
      if (a.kind == Kind::jump) {
        const std::int64_t left = t / 32 - jumped[a.client];
        a.arg_us = clamp_abs(a.arg_us, left);
        jumped[a.client] += a.arg_us < 0 ? -a.arg_us : a.arg_us;
      }
    std::erase_if(c.actions, [](auto& a) { return a.kind == Kind::jump && a.arg_us == 0; });
  }
  normalize_redlock(c, s);
  return c;
}

bool meets(const GenCase& c, const GenSettings& s, std::string* why) {
  const auto fail = [&](std::string w) {
    if (why) *why = std::move(w);
    return false;
  };
  const Preconditions& p = s.pre;
  const std::int64_t t = c.timeout_us;
  std::int64_t worst_trip = 0;  // the longest round trip any client may see
  for (const auto& k : c.per_client)
    worst_trip = std::max(worst_trip, k.delay_out.hi_us + k.delay_in.hi_us + (c.spike_percent ? 2 * c.spike.hi_us : 0));
  std::map<int, std::int64_t> paused, jumped;
  for (const auto& a : c.actions) {
    if (a.kind == Kind::pause) paused[a.client] += a.arg_us;
    if (a.kind == Kind::jump) jumped[a.client] += a.arg_us < 0 ? -a.arg_us : a.arg_us;
  }
  std::int64_t worst_pause = 0;
  for (auto& [client, us] : paused) worst_pause = std::max(worst_pause, us);
  // Each reason names the rule and the case's figures: "hold 23ms >= lease 20ms".
  const auto d = [](std::int64_t us) { return format_duration(Micros(us)); };
  const std::string random_pauses = "random pauses (" + std::to_string(c.pause_rate_per_10s) + " per 10 s per client)";
  if ((p.no_delay || !s.allow_delay) && worst_trip > 0)
    return fail("network delay: a round trip of up to " + d(worst_trip) + " where the promise allows none");
  if (p.no_delay && worst_pause > 0) return fail("pauses: " + d(worst_pause) + " where the promise allows none");
  if (p.no_delay && c.pause_rate_per_10s > 0) return fail(random_pauses + " where the promise allows none");
  if (p.bounded_delay && worst_trip > s.lock_timeout_us / 100)
    return fail("delay near the lock timeout: a round trip of up to " + d(worst_trip) + " > lock timeout " +
                d(s.lock_timeout_us) + " / 100");
  std::int64_t spread = 0;
  if (p.clock_spread) {
    std::int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (std::size_t i = 0; i < c.per_client.size(); ++i) {
      const auto& k = c.per_client[i];
      const std::int64_t drift = std::abs(k.drift_ppm) * c.duration_us / 1'000'000;
      const std::int64_t jump = jumped.count(int(i) + 1) ? jumped[int(i) + 1] : 0;
      lo = std::min(lo, k.skew_us - drift - jump);
      hi = std::max(hi, k.skew_us + drift + jump);
    }
    spread = c.per_client.empty() ? 0 : hi - lo;
    if (spread >= t) return fail("clock spread " + d(spread) + " >= timeout " + d(t));
  }
  if (p.lease_budget) {
    std::int64_t hold = c.refresh_every_us > 0 ? c.refresh_every_us : c.hold.hi_us;
    for (const auto& a : c.actions)
      if (a.kind == Kind::acquire && c.refresh_every_us == 0) hold = std::max(hold, a.arg_us);
    if (c.pause_rate_per_10s > 0) return fail(random_pauses + ", which no lease can bound");
    if (hold + worst_pause + worst_trip + spread >= t) {
      // Only the terms the case has: "hold 23ms >= lease 20ms", "hold 10ms + pauses 15ms = 25ms >= ...".
      std::string terms = (c.refresh_every_us > 0 ? "refresh period " : "hold ") + d(hold);
      int n = 1;
      for (const auto& [name, us] : {std::pair<const char*, std::int64_t>{"pauses", worst_pause},
                                     {"round trip", worst_trip}, {"clock spread", spread}})
        if (us > 0) terms += std::string(" + ") + name + " " + d(us), ++n;
      return fail(terms + (n > 1 ? " = " + d(hold + worst_pause + worst_trip + spread) : std::string()) + " >= lease " + d(t));
    }
  }
  // Redlock's assumptions.
  if (p.no_master_jumps)
    for (const auto& a : c.actions)
      if (a.kind == Kind::server_jump || a.kind == Kind::jump) return fail("a clock jump");
  if (p.master_clock_rate) {
    const auto bound = static_cast<std::int64_t>(s.drift_factor * 1e6 / 2);
    for (const auto& m : c.per_master)
      if (std::abs(m.drift_ppm) > bound) return fail("a master's clock drifts beyond the drift factor");
    for (const auto& k : c.per_client)
      if (std::abs(k.drift_ppm) > bound) return fail("a client's clock drifts beyond the drift factor");
  }
  if (p.delayed_restarts)
    for (const auto& a : c.actions) {
      if (a.kind != Kind::redis_restart || a.arg_us >= c.timeout_us) continue;
      for (int m = 0; m < c.masters; ++m)
        if (c.masters == 1 || ((a.masters >> m & 1u) && !c.per_master[static_cast<std::size_t>(m)].aof_always))
          return fail("a master restarts without its data before a ttl has passed");
    }
  if (p.within_validity) {
    std::int64_t hold = c.refresh_every_us > 0 ? c.refresh_every_us : c.hold.hi_us;
    for (const auto& a : c.actions)
      if (a.kind == Kind::acquire && c.refresh_every_us == 0) hold = std::max(hold, a.arg_us);
    if (c.pause_rate_per_10s > 0) return fail("random pauses");
    if (hold + worst_pause > validity_budget_us(c, s)) return fail("hold + pauses beyond the validity");
  }
  return true;
}

std::vector<std::string> broken_preconditions(const GenCase& c, const Preconditions& pre, std::int64_t lock_timeout_us,
                                              std::int64_t master_timeout_us, double drift_factor) {
  std::vector<std::string> broken;
  // One condition at a time, so that each one broken is named, not only the first.
  for (bool Preconditions::*flag : {&Preconditions::no_delay, &Preconditions::bounded_delay, &Preconditions::clock_spread,
                                    &Preconditions::lease_budget, &Preconditions::within_validity,
                                    &Preconditions::master_clock_rate, &Preconditions::no_master_jumps,
                                    &Preconditions::delayed_restarts}) {
    if (!(pre.*flag)) continue;
    GenSettings alone;
    alone.pre.*flag = true;
    alone.lock_timeout_us = lock_timeout_us;
    alone.masters = c.masters;
    alone.master_timeout_us = master_timeout_us;
    alone.drift_factor = drift_factor;
    std::string why;
    if (!meets(c, alone, &why) && std::find(broken.begin(), broken.end(), why) == broken.end()) broken.push_back(why);
  }
  // Over several masters their faults are Redlock's to survive, inside its assumptions above.
  if (c.masters > 1) return broken;
  if (c.server_drift_ppm != 0) broken.push_back("Redis's clock drifts");
  for (const GenAction& a : c.actions)
    if (a.kind >= Kind::server_jump) {
      const std::string what = "a fault of Redis itself (" + std::string(action_kind(a.kind).name) + ")";
      if (std::find(broken.begin(), broken.end(), what) == broken.end()) broken.push_back(what);
    }
  return broken;
}

std::string preconditions_verdict(const GenCase& c, const std::string& variant, std::int64_t lock_timeout_us) {
  const Preconditions pre = preconditions_for(variant);
  const std::string text = pre.text.empty() ? std::string("none") : pre.text;
  // A variant under no precondition (basic) is not promised safe anywhere: no case "keeps" it.
  bool promised = false;
  for (const auto& [name, field] : precondition_names()) promised = promised || pre.*field;
  if (!promised) return "none promised (" + text + "): the source articles do not claim this variant is safe";
  const std::vector<std::string> broken = broken_preconditions(c, pre, lock_timeout_us);
  if (broken.empty()) return "kept (" + text + "): the source articles promise safety for this case";
  std::string out = "broken: ";
  for (std::size_t i = 0; i < broken.size(); ++i) out += (i ? "; " : "") + broken[i];
  return out + " (outside the source articles' promise: " + text + ")";
}

rc::Gen<GenCase> gen_case(const GenSettings& settings) {
  return rc::gen::map(
      rc::gen::exec([settings] {
        GenCase c;
        // The client count first: it shrinks first, and every later pick depends on it.
        c.clients = *rc::gen::inRange(1, settings.max_clients + 1);
        c.limit = *rc::gen::inRange(1, std::max(1, c.clients - 1) + 1);
        c.duration_us = *ms_in(200, 2000);
        c.timeout_us = *ms_in(20, 1000);
        c.hold = *span_ms(1, 200, 200);
        // At least 1 ms: a refused client with no think time and no delay would retry at the same
        // virtual instant for ever.
        c.think = *span_ms(1, 50, 100);
        c.seed = *rc::gen::inRange<std::uint64_t>(1, 1'000'000);
        for (int i = 0; i < c.clients; ++i) {
          GenClient k;
          k.skew_us = *signed_ms(300);
          k.drift_ppm = *rc::gen::apply([](int m, bool neg) { return std::int64_t(neg ? -m : m); },
                                        rc::gen::inRange(0, 2001), rc::gen::arbitrary<bool>());
          k.delay_out = *span_ms(0, 20, 20);
          k.delay_in = *span_ms(0, 20, 20);
          c.per_client.push_back(k);
        }
        if (*rc::gen::inRange(0, 4) == 3) {  // a quarter of the cases refresh (shrinks to "no")
          c.refresh_every_us = *ms_in(5, 500);
        }
        c.spike_percent = *rc::gen::inRange(0, 21);
        c.spike = *span_ms(0, 100, 100);
        c.pause_rate_per_10s = *rc::gen::inRange(0, 11);
        c.pause_length = *span_ms(1, 300, 200);
        c.crash_rate_per_10s = *rc::gen::inRange(0, 4);
        c.actions = *rc::gen::resize(8, rc::gen::container<std::vector<GenAction>>(gen_action(c.clients, c.duration_us)));
        if (settings.server_jumps) {  // drawn only then: other searches keep their cases, seed for seed
          c.server_drift_ppm = *rc::gen::apply([](int m, bool neg) { return std::int64_t(neg ? -m : m); },
                                               rc::gen::inRange(0, 2001), rc::gen::arbitrary<bool>());
          const int jumps = *rc::gen::inRange(0, 3);
          for (int i = 0; i < jumps; ++i)
            c.actions.push_back({*ms_in(0, static_cast<int>(c.duration_us / kMs) - 1), 0, Kind::server_jump,
                                 *signed_ms(2000)});
        }
        if (settings.masters > 1) {  // drawn only then: other searches keep their cases, seed for seed
          c.masters = settings.masters;
          // A lock over several masters splits its votes when clients ask together, and grants
          // nobody: clients think longer, and hold for a good part of a ttl that leaves a validity.
          c.timeout_us = *ms_in(200, 800);
          c.hold = *span_ms(20, 600, 200);
          c.think = *span_ms(5, 100, 100);
          // Faults on any masters, or on a quorum of them half the time: a fault under a holder
          // matters once it takes a majority's votes, which a uniform pick seldom names.
          const int quorum = settings.masters / 2 + 1;
          const auto any = rc::gen::inRange<std::uint32_t>(1, 1u << settings.masters);
          const auto mask = rc::gen::oneOf(any, rc::gen::suchThat(any, [quorum](std::uint32_t m) {
                                             return std::popcount(m) >= quorum;
                                           }));
          // One clock rate for the case (up to twice as fast, or half as slow), taken by each master
          // or not: masters that run fast together expire a holder's keys under it.
          const std::int64_t rate = *rc::gen::apply([](int v, bool slow) { return std::int64_t(slow ? -v / 2 : v); },
                                                    rc::gen::inRange(0, 1'000'001), rc::gen::arbitrary<bool>());
          for (int m = 0; m < settings.masters; ++m) {
            const bool at_rate = *rc::gen::arbitrary<bool>();
            c.per_master.push_back({at_rate ? rate : 0, *rc::gen::arbitrary<bool>()});
          }
          const int faults = *rc::gen::inRange(0, settings.masters + 1);
          const int last_ms = static_cast<int>(c.duration_us / kMs) - 1;
          for (int i = 0; i < faults; ++i) {
            const Kind kind = *rc::gen::element(Kind::partition, Kind::server_jump, Kind::redis_restart, Kind::redis_pause);
            GenAction a{*ms_in(0, last_ms), 0, kind, 0, *mask};
            if (kind == Kind::partition) a.client = *rc::gen::inRange(1, c.clients + 1), a.arg_us = *ms_in(1, 500);
            if (kind == Kind::server_jump) a.arg_us = *signed_ms(2000);
            // Back at once half the time: a master that is down when the others ask votes for nobody.
            if (kind == Kind::redis_restart) a.arg_us = *rc::gen::arbitrary<bool>() ? *ms_in(0, 500) : 0;
            if (kind == Kind::redis_pause) a.arg_us = *ms_in(1, 300);
            c.actions.push_back(a);
          }
        }
        if (settings.server_faults) {  // drawn only then, as the jumps above
          c.aof_always = *rc::gen::arbitrary<bool>();
          const int faults = *rc::gen::inRange(0, 3);
          for (int i = 0; i < faults; ++i) {
            const Kind kind = *rc::gen::element(Kind::disconnect, Kind::redis_pause, Kind::failover, Kind::redis_restart);
            const std::int64_t arg = kind == Kind::failover ? *ms_in(0, 500) : kind == Kind::redis_pause ? *ms_in(1, 300) : 0;
            c.actions.push_back({*ms_in(0, static_cast<int>(c.duration_us / kMs) - 1), 0, kind, arg});
          }
        }
        return c;
      }),
      [settings](GenCase c) { return normalize(on_scale(std::move(c), settings), settings); });
}

namespace {

// The generator draws an argument for these kinds only (acquire: its hold).
bool has_arg(const GenAction& a) {
  return a.kind == Kind::acquire || action_kind(a.kind).arg != ActionArg::optional ||
         (a.kind == Kind::redis_restart && a.arg_us > 0);  // a downtime
}

// The masters of a bitmask, 0-based.
std::vector<int> masters_of(std::uint32_t mask) {
  std::vector<int> out;
  for (int m = 0; m < 32; ++m)
    if (mask >> m & 1u) out.push_back(m);
  return out;
}

// "4 5": as the actions file's masters column writes them.
std::string masters_text(std::uint32_t mask) {
  std::string out;
  for (int m : masters_of(mask)) out += (out.empty() ? "" : " ") + std::to_string(m + 1);
  return out;
}

}  // namespace

CaseRun case_run(const GenCase& c, const std::string& variant, std::int64_t lock_timeout_us, const std::string& out) {
  CaseRun run;
  RunOptions& o = run.options;
  o.variant = variant;
  o.clients = c.clients;
  o.limit = c.limit;
  o.duration = Micros(c.duration_us);
  o.timeout = Micros(c.timeout_us);
  o.hold = Distribution::parse(c.hold.text());
  o.think = Distribution::parse(c.think.text());
  o.spike_probability = c.spike_percent / 100.0;
  o.spike = Distribution::parse(c.spike.text());
  o.refresh_every = Micros(c.refresh_every_us);
  o.pause_rate = c.pause_rate_per_10s / 10.0;
  o.pause_length = Distribution::parse(c.pause_length.text());
  o.crash_rate = c.crash_rate_per_10s / 10.0;
  o.lock_timeout = Micros(lock_timeout_us);
  o.seed = c.seed;
  // Always virtual: the search needs byte-identical replays, also for variants whose default
  // is paced (their Redis-clock expiry then does not follow simulated time).
  o.mode = TimeMode::virtual_time;
  o.mode_given = true;
  o.charts = false;
  o.out = out;
  o.server_drift_ppm = static_cast<double>(c.server_drift_ppm);
  o.server.persistence = c.aof_always ? Persistence::aof_always : Persistence::none;
  o.server.replicas = static_cast<int>(
      std::count_if(c.actions.begin(), c.actions.end(), [](const GenAction& a) { return a.kind == Kind::failover; }));
  o.masters = c.masters;
  for (std::size_t m = 0; m < c.per_master.size(); ++m) {
    MasterSpec spec;
    spec.drift_ppm = static_cast<double>(c.per_master[m].drift_ppm);
    spec.persistence = c.per_master[m].aof_always ? Persistence::aof_always : Persistence::none;
    run.inputs.masters.emplace(static_cast<int>(m) + 1, spec);
  }

  // The values clients.csv and actions.csv would give, through the same parsers.
  for (int i = 0; i < c.clients; ++i) {
    const GenClient& k = c.per_client[i];
    ClientSpec spec;
    spec.skew = Distribution::parse(format_duration(Micros(k.skew_us)));
    spec.drift_ppm = Distribution::parse(std::to_string(k.drift_ppm), Distribution::Unit::number);
    spec.delay_out = Distribution::parse(k.delay_out.text());
    spec.delay_in = Distribution::parse(k.delay_in.text());
    run.inputs.clients.emplace(i + 1, std::move(spec));
  }
  for (std::size_t i = 0; i < c.actions.size(); ++i) {
    const GenAction& g = c.actions[i];
    ScriptedAction a;
    a.at = kRunStart + parse_duration(format_duration(Micros(g.at_us)));
    a.client = g.client;
    a.kind = g.kind;
    if (has_arg(g)) a.arg = parse_duration(format_duration(Micros(g.arg_us)));
    a.line = static_cast<int>(i) + 2;  // after the header line
    a.masters = masters_of(g.masters);
    run.inputs.actions.push_back(a);
  }
  std::stable_sort(run.inputs.actions.begin(), run.inputs.actions.end(), [](auto& a, auto& b) { return a.at < b.at; });
  return run;
}

RunOptions materialize(const GenCase& c, const std::string& variant, std::int64_t lock_timeout_us, const std::string& dir) {
  fs::create_directories(dir);
  RunOptions o = case_run(c, variant, lock_timeout_us, dir).options;
  o.clients_file = (fs::path(dir) / "clients.csv").string();
  std::ofstream clients(o.clients_file);
  clients << "client,skew,drift_ppm,delay_out,delay_in\n";
  for (int i = 0; i < c.clients; ++i) {
    const GenClient& k = c.per_client[i];
    clients << i + 1 << "," << format_duration(Micros(k.skew_us)) << "," << k.drift_ppm << "," << k.delay_out.text()
            << "," << k.delay_in.text() << "\n";
  }
  if (!clients) throw InputError(o.clients_file + ": cannot write");
  if (!c.actions.empty()) {
    o.actions_file = (fs::path(dir) / "actions.csv").string();
    std::ofstream actions(o.actions_file);
    actions << "at,client,action,arg" << (c.masters > 1 ? ",masters" : "") << "\n";
    for (const GenAction& a : c.actions) {
      actions << format_duration(Micros(a.at_us)) << "," << a.client << "," << action_kind(a.kind).name
              << "," << (has_arg(a) ? format_duration(Micros(a.arg_us)) : "");
      if (c.masters > 1) actions << "," << masters_text(a.masters);
      actions << "\n";
    }
    if (!actions) throw InputError(o.actions_file + ": cannot write");
  }
  if (!c.per_master.empty()) {
    o.masters_file = (fs::path(dir) / "masters.csv").string();
    std::ofstream masters(o.masters_file);
    masters << "master,drift_ppm,persistence\n";
    for (std::size_t m = 0; m < c.per_master.size(); ++m)
      masters << m + 1 << "," << c.per_master[m].drift_ppm << "," << (c.per_master[m].aof_always ? "aof-always" : "none")
              << "\n";
    if (!masters) throw InputError(o.masters_file + ": cannot write");
  }
  return o;
}

std::string describe(const GenCase& c) {
  std::ostringstream out;
  std::int64_t worst_delay_us = 0, worst_drift = 0;
  for (const auto& k : c.per_client)
    worst_delay_us = std::max({worst_delay_us, k.delay_out.hi_us, k.delay_in.hi_us}),
    worst_drift = std::max(worst_drift, std::abs(k.drift_ppm));
  const auto count = [&](Kind kind) { return std::count_if(c.actions.begin(), c.actions.end(), [&](auto& a) { return a.kind == kind; }); };
  out << c.clients << " clients, limit " << c.limit << ", " << c.actions.size() << " actions (" << count(Kind::acquire)
      << " acquires, " << count(Kind::pause) << " pauses, " << count(Kind::crash) << " crashes, " << count(Kind::jump)
      << " jumps), duration " << format_duration(Micros(c.duration_us)) << ", timeout "
      << format_duration(Micros(c.timeout_us)) << ", hold " << c.hold.text() << ", skews";
  for (const auto& k : c.per_client) out << " " << format_duration(Micros(k.skew_us));
  out << ", max drift " << worst_drift << " ppm, max delay " << format_duration(Micros(worst_delay_us));
  if (c.spike_percent) out << ", spikes " << c.spike_percent << "% " << c.spike.text();
  if (c.refresh_every_us) out << ", refresh every " << format_duration(Micros(c.refresh_every_us));
  if (c.pause_rate_per_10s) out << ", pauses " << c.pause_rate_per_10s / 10.0 << "/s";
  if (c.crash_rate_per_10s) out << ", crashes " << c.crash_rate_per_10s / 10.0 << "/s";
  if (const auto n = count(Kind::server_jump)) out << ", " << n << " server clock jumps";
  const auto server_faults = count(Kind::redis_restart) + count(Kind::failover) + count(Kind::disconnect) + count(Kind::redis_pause);
  if (server_faults) out << ", " << server_faults << " Redis faults (persistence " << (c.aof_always ? "aof-always" : "none") << ")";
  if (c.server_drift_ppm) out << ", server drift " << c.server_drift_ppm << " ppm";
  if (c.masters > 1) {
    std::int64_t fastest = 0;
    int aof = 0;
    for (const auto& m : c.per_master) fastest = std::max(fastest, std::abs(m.drift_ppm)), aof += m.aof_always;
    out << ", " << c.masters << " masters (max drift " << fastest << " ppm, " << aof << " aof-always; "
        << count(Kind::partition) << " partitions, " << count(Kind::server_jump) << " clock jumps, "
        << count(Kind::redis_restart) << " restarts, " << count(Kind::redis_pause) << " pauses)";
  }
  return out.str();
}

}  // namespace semsim
