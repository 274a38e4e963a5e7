// The streaming checker against brute force: random small histories, written the way semsim
// writes them, judged by Checker and by reference computations made straight from
// reports/DEFINITIONS.md over the whole event list (quadratic, no pruning, no held instants).
// The trackers (fifo, holds, waits, liveness) are tuned for speed; this pins their results.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "reports/checks/checker.h"
#include "reports/history/event.h"
#include "reports/history/key_values.h"
#include "reports/history/run_rows.h"

namespace semsim {
namespace {

constexpr std::int64_t kOpen = std::numeric_limits<std::int64_t>::max();  // still open at the end
constexpr std::int64_t kNone = -1;  // no such time (generated times are >= 0)

struct History {
  int limit = 1;
  int clients = 2;
  std::int64_t bound_us = 0;  // CheckOptions::liveness_bound_us
  std::vector<Event> events;  // in (true_us, seq) order, run rows first and last
};

// One step of the generator: time moves by dt_us (often 0: rows of one instant), then one client
// takes its next plausible row, chosen by `choice` (0..99) from the rows its state allows.
using Step = std::tuple<std::int64_t, int, int>;

// A client as semsim's clients and drivers may behave: several acquires pending at once and
// several permits held at once (overlapping acquires), each permit released or refreshed by its
// identifier, outcomes in invoke order.
struct ClientSim {
  int pending = 0;                // acquires invoked without an outcome
  std::vector<std::string> held;  // identifiers it believes it holds
  std::optional<std::string> releasing, refreshing;  // an operation on a permit, awaiting its outcome
  bool unsure = false;            // an acquire ended info since its last hold-ending row
  bool done = false;
  int grants = 0;
};

// The steps are played `rounds` times over. With more than one round, client 1's acquires stay
// pending until the last round (a paused client, a lost reply), so that the trackers' queues hold
// many settled entries behind a live one and their amortised pruning runs (fifo.cpp and
// liveness.cpp rebuild past 64 of them), while a counterexample still shrinks as a short list.
History make_history(int limit, int clients, std::int64_t timeout_ms, std::int64_t bound_us,
                     const std::vector<Step>& steps, int rounds, std::int64_t end_dt_us) {
  History h;
  h.limit = limit;
  h.clients = clients;
  h.bound_us = bound_us;
  std::uint64_t seq = 0;
  KeyValues kv;  // as HistoryBuilder (and semsim) write it
  kv.set("variant", "basic").set("mode", "virtual").set("seed", 7).set("clients", clients);
  kv.set("limit", limit).set("duration_ms", 1000).set("timeout_ms", timeout_ms);
  h.events.push_back(run_start_event(seq++, 0, kv));

  std::vector<ClientSim> sims(static_cast<std::size_t>(clients) + 1);
  std::int64_t t = 0;
  bool stuck = false;  // client 1's acquires, kept pending
  auto row = [&](int client, Op op, Phase phase, std::string id = "") {
    Event e;
    e.seq = seq++;
    e.true_us = t;
    e.client = client;
    e.op = op;
    e.phase = phase;
    e.client_us = t;
    e.identifier = std::move(id);
    h.events.push_back(std::move(e));
  };
  for (int round = 1; round <= rounds; ++round) {
    for (const auto& [dt_us, who, drawn] : steps) {
      const int choice = drawn;  // a copy: clang before 16 cannot capture a structured binding
      t += dt_us;
      const int c = 1 + who % clients;
      ClientSim& s = sims[static_cast<std::size_t>(c)];
      if (s.done) continue;
      if (c == 1 && s.pending > 0 && round < rounds) {
        stuck = true;
        continue;
      }
      const auto forget = [&](const std::string& id) { std::erase(s.held, id); };
      const auto crash = [&] {
        row(c, Op::crash, Phase::ok);
        const int grants = s.grants;
        s = ClientSim{};
        s.grants = grants;
      };
      // The rows its state allows, weighted; `choice` picks one.
      std::vector<std::pair<int, std::function<void()>>> options;
      if (s.pending > 0) {
        const bool kept = std::exchange(stuck, false) && c == 1;  // the kept acquire is granted at last
        const auto granted = [&] {
          --s.pending;
          const std::string id = "c" + std::to_string(c) + "-" + std::to_string(s.grants++);
          row(c, Op::acquire, Phase::ok, id);
          s.held.push_back(id);
          s.unsure = false;
        };
        if (kept) {
          granted();
          continue;
        }
        options.emplace_back(35, granted);
        options.emplace_back(30, [&] { --s.pending, row(c, Op::acquire, Phase::fail); });
        options.emplace_back(13, [&] { --s.pending, s.unsure = true, row(c, Op::acquire, Phase::info); });
        if (!s.held.empty())  // a library answering twice: ok naming a permit already held
          options.emplace_back(3, [&] { --s.pending, s.unsure = false, row(c, Op::acquire, Phase::ok, s.held.front()); });
      }
      // Another acquire: the first, or one overlapping what it has pending or holds.
      const bool idle = s.pending == 0 && s.held.empty() && !s.releasing && !s.refreshing;
      options.emplace_back(idle ? 60 : 10, [&] { ++s.pending, row(c, Op::acquire, Phase::invoke); });
      if (!s.held.empty() && !s.releasing)
        options.emplace_back(25, [&] {
          const std::string id = s.held[static_cast<std::size_t>(choice) % s.held.size()];
          forget(id), s.releasing = id, s.unsure = false;
          row(c, Op::release, Phase::invoke, id);
        });
      if (s.releasing) {
        const std::string id = *s.releasing;
        options.emplace_back(15, [&, id] { s.releasing.reset(), row(c, Op::release, Phase::ok, id); });
        options.emplace_back(5, [&, id] { s.releasing.reset(), row(c, Op::release, Phase::fail, id); });
        options.emplace_back(3, [&, id] { s.releasing.reset(), row(c, Op::release, Phase::info, id); });
      }
      if (!s.held.empty() && !s.refreshing)
        options.emplace_back(8, [&] {
          s.refreshing = s.held[static_cast<std::size_t>(choice) % s.held.size()];
          row(c, Op::refresh, Phase::invoke, *s.refreshing);
        });
      if (s.refreshing) {
        const std::string id = *s.refreshing;
        options.emplace_back(6, [&, id] { s.refreshing.reset(), row(c, Op::refresh, Phase::ok, id); });
        options.emplace_back(4, [&, id] {
          s.refreshing.reset(), forget(id), s.unsure = false;
          row(c, Op::refresh, Phase::fail, id);
        });
        options.emplace_back(2, [&, id] { s.refreshing.reset(), row(c, Op::refresh, Phase::info, id); });
      }
      if (s.unsure)  // a release of what it may hold, without an identifier
        options.emplace_back(8, [&] { s.unsure = false, row(c, Op::release, Phase::invoke); });
      options.emplace_back(4, crash);
      if (s.pending == 0)  // its script has no further acquire (what it holds, it still holds)
        options.emplace_back(1, [&] { s.done = true, row(c, Op::done, Phase::ok); });
      int total = 0;
      for (const auto& o : options) total += o.first;
      int pick = choice * total / 100;
      for (const auto& [weight, act] : options) {
        if (pick < weight) {
          act();
          break;
        }
        pick -= weight;
      }
    }
  }
  h.events.push_back(run_end_event(seq++, t + end_dt_us, 0));
  return h;
}

// Uniform in [lo, hi) whatever the test's size (gen::inRange narrows the range at small sizes,
// which would leave the rarer rows of the protocol out of short histories).
template <typename T>
rc::Gen<T> uniform(T lo, T hi) {
  return rc::gen::resize(100, rc::gen::inRange(lo, hi));
}

History gen_history() {
  const int limit = *uniform(1, 4);
  const int clients = *uniform(2, 7);
  const std::int64_t timeout_ms = *uniform<std::int64_t>(1, 20);
  const std::int64_t bound_us = *rc::gen::element<std::int64_t>(500, 1000, 2500, 5000, 12000);
  const auto dt = rc::gen::weightedElement<std::int64_t>({{6, 0}, {3, 1000}, {2, 2500}, {1, 7000}});
  const auto steps =
      *rc::gen::resize(80, rc::gen::container<std::vector<Step>>(rc::gen::tuple(dt, uniform(0, 6), uniform(0, 100))));
  const int rounds = *rc::gen::weightedOneOf<int>({{1, rc::gen::just(1)}, {1, uniform(6, 17)}});
  const std::int64_t end_dt_us = *rc::gen::element<std::int64_t>(0, 1000);
  return make_history(limit, clients, timeout_ms, bound_us, steps, rounds, end_dt_us);
}

Summary check(const History& h) {
  CheckOptions o;
  o.liveness_bound_us = h.bound_us;
  Checker checker(o);
  for (const Event& e : h.events) checker.add(e);
  return checker.finish();
}

// The shrunk counterexample, readable: printed by RapidCheck when a property fails.
std::string describe(const History& h) {
  std::ostringstream out;
  out << "limit=" << h.limit << " clients=" << h.clients << " bound_us=" << h.bound_us << "\n";
  for (const Event& e : h.events)
    out << "  " << e.seq << " t=" << e.true_us << " c" << e.client << " " << to_string(e.op) << " "
        << to_string(e.phase) << (e.identifier.empty() ? "" : " " + e.identifier) << "\n";
  return out.str();
}

// ---- Brute force, from reports/DEFINITIONS.md ----------------------------------------------

struct Interval {
  int client;
  std::int64_t from, to;  // [from, to); to = kOpen when still open at the end of the history
  std::string identifier = {};  // a hold's
  std::uint64_t seq = 0;        // a hold's: its ok row, the grant order
  bool covers(std::int64_t t) const { return from <= t && t < to; }
};

std::vector<std::int64_t> instants(const History& h) {
  std::set<std::int64_t> ts;
  for (const Event& e : h.events) ts.insert(e.true_us);
  return {ts.begin(), ts.end()};
}

std::vector<Event> rows_of(const History& h, int client) {
  std::vector<Event> out;
  for (const Event& e : h.events)
    if (e.op != Op::run && e.client == client) out.push_back(e);
  return out;
}

// "holds": a permit, from an acquire ok of client c naming id to c's next release invoke or
// refresh fail naming id, or c's crash, [ok, end); an ok naming an id c holds changes nothing.
std::vector<Interval> holds(const History& h) {
  std::vector<Interval> out;
  for (int c = 1; c <= h.clients; ++c) {
    std::map<std::string, std::pair<std::int64_t, std::uint64_t>> since;  // by identifier: open holds
    for (const Event& e : rows_of(h, c)) {
      if (e.op == Op::acquire && e.phase == Phase::ok) since.emplace(e.identifier, std::pair(e.true_us, e.seq));
      const bool ends = (e.op == Op::release && e.phase == Phase::invoke) || (e.op == Op::refresh && e.phase == Phase::fail);
      if (ends && since.count(e.identifier)) {
        out.push_back({c, since[e.identifier].first, e.true_us, e.identifier, since[e.identifier].second});
        since.erase(e.identifier);
      }
      if (e.op == Op::crash) {
        for (const auto& [id, from] : since) out.push_back({c, from.first, e.true_us, id, from.second});
        since.clear();
      }
    }
    for (const auto& [id, from] : since) out.push_back({c, from.first, kOpen, id, from.second});
  }
  return out;
}

// "possibly holds": each acquire info, one more permit, until the client's next release invoke,
// refresh fail, crash or acquire ok.
std::vector<Interval> possible_holds(const History& h) {
  std::vector<Interval> out;
  for (int c = 1; c <= h.clients; ++c) {
    std::vector<std::int64_t> since;
    for (const Event& e : rows_of(h, c)) {
      const bool ends = (e.op == Op::release && e.phase == Phase::invoke) ||
                        (e.op == Op::refresh && e.phase == Phase::fail) || e.op == Op::crash ||
                        (e.op == Op::acquire && e.phase == Phase::ok);
      if (ends) {
        for (std::int64_t from : since) out.push_back({c, from, e.true_us});
        since.clear();
      }
      if (e.op == Op::acquire && e.phase == Phase::info) since.push_back(e.true_us);
    }
    for (std::int64_t from : since) out.push_back({c, from, kOpen});
  }
  return out;
}

// Intervals covering t (once the whole instant is applied): permits, or waiting clients (a client
// waits at most once at a time).
int covered(const std::vector<Interval>& a, const std::vector<Interval>& b, std::int64_t t) {
  const auto n = [t](const std::vector<Interval>& v) {
    return std::count_if(v.begin(), v.end(), [t](const Interval& i) { return i.covers(t); });
  };
  return static_cast<int>(n(a) + n(b));
}

// An acquire and the outcome paired with it: "an outcome pairs with the client's earliest pending
// invoke"; a crash ends every pending one. invoke_us is kNone for an outcome with no invoke.
struct Acquire {
  int client;
  std::int64_t invoke_us, outcome_us;
  Phase outcome;
};

std::vector<Acquire> acquires(const History& h) {
  std::vector<Acquire> out;
  for (int c = 1; c <= h.clients; ++c) {
    std::deque<std::int64_t> pending;
    for (const Event& e : rows_of(h, c)) {
      if (e.op == Op::crash) pending.clear();
      if (e.op != Op::acquire) continue;
      if (e.phase == Phase::invoke) {
        pending.push_back(e.true_us);
      } else if (pending.empty()) {
        out.push_back({c, kNone, e.true_us, e.phase});
      } else {
        out.push_back({c, pending.front(), e.true_us, e.phase});
        pending.pop_front();
      }
    }
  }
  return out;
}

// "waiting": from the invoke of an acquire that is rejected while the client was not already
// waiting (the fail's own instant without one), to its next acquire ok, its crash, its done row,
// or the end of the history.
std::vector<Interval> waits(const History& h) {
  std::vector<Interval> out;
  for (int c = 1; c <= h.clients; ++c) {
    std::deque<std::int64_t> pending;
    std::int64_t since = kNone;
    for (const Event& e : rows_of(h, c)) {
      const bool stops = (e.op == Op::acquire && e.phase == Phase::ok) || e.op == Op::crash || e.op == Op::done;
      if (stops && since != kNone) out.push_back({c, since, e.true_us}), since = kNone;
      if (e.op == Op::crash) pending.clear();
      if (e.op != Op::acquire) continue;
      if (e.phase == Phase::invoke) {
        pending.push_back(e.true_us);
        continue;
      }
      const std::int64_t invoked = pending.empty() ? e.true_us : pending.front();
      if (!pending.empty()) pending.pop_front();
      if (e.phase == Phase::fail && since == kNone) since = invoked;
    }
    if (since != kNone) out.push_back({c, since, kOpen});
  }
  return out;
}

struct Safety {
  int max_holders = 0, max_possible = 0;
  std::int64_t over_limit_us = 0, possible_over_limit_us = 0, steals = 0, episodes = 0;
  // Each episode's start and witness: the limit + 1 holds covering it, earliest grant first.
  std::vector<std::pair<std::int64_t, std::vector<HoldRef>>> witnesses;
};

// Counts are taken at every instant once it is applied, the last one included: a hold still open
// there (kOpen) counts at it, also one granted at that very instant. (DEFINITIONS.md's "anything
// still open is closed there" could be read as making such a hold empty, [t, t), and never
// counted; the checker counts it, and so does this reference.)
Safety safety(const History& h) {
  const std::vector<Interval> certain = holds(h), possible = possible_holds(h);
  const std::vector<std::int64_t> ts = instants(h);
  Safety s;
  bool over_before = false;
  for (std::size_t k = 0; k < ts.size(); ++k) {
    const std::int64_t t = ts[k];
    const std::int64_t until = k + 1 < ts.size() ? ts[k + 1] : t;  // the history ends at its last instant
    const int n = covered(certain, {}, t);
    const int np = covered(certain, possible, t);
    s.max_holders = std::max(s.max_holders, n);
    s.max_possible = std::max(s.max_possible, np);
    if (n > h.limit) s.over_limit_us += until - t;
    if (np > h.limit) s.possible_over_limit_us += until - t;
    if (n > h.limit && !over_before) {
      ++s.episodes;
      std::vector<Interval> open;
      for (const Interval& i : certain)
        if (i.covers(t)) open.push_back(i);
      std::sort(open.begin(), open.end(), [](const Interval& a, const Interval& b) { return a.seq < b.seq; });
      std::vector<HoldRef> witness;
      for (std::size_t w = 0; w < static_cast<std::size_t>(h.limit) + 1; ++w)
        witness.push_back({open[w].client, open[w].identifier, open[w].from, 0});
      s.witnesses.emplace_back(t, std::move(witness));
    }
    over_before = n > h.limit;
    if (n > h.limit) {  // steals: min(g, n - limit), g granted at t and still holding
      const auto g =
          std::count_if(certain.begin(), certain.end(), [&](const Interval& i) { return i.from == t && i.covers(t); });
      s.steals += std::min<std::int64_t>(g, n - h.limit);
    }
  }
  return s;
}

// "A rejected acquire R (r_i, r_f) is inverted when an admitted acquire A of another client
// (a_i, a_o) satisfies r_i < a_i <= r_f. Each R counts once."
std::int64_t fifo_inversions(const History& h) {
  std::vector<Acquire> decided;
  for (const Acquire& a : acquires(h))
    if (a.invoke_us != kNone) decided.push_back(a);
  return std::count_if(decided.begin(), decided.end(), [&](const Acquire& r) {
    return r.outcome == Phase::fail && std::any_of(decided.begin(), decided.end(), [&](const Acquire& a) {
             return a.outcome == Phase::ok && a.client != r.client && r.invoke_us < a.invoke_us &&
                    a.invoke_us <= r.outcome_us;
           });
  });
}

// "acquire latency, true time from invoke to ok or fail (not info)", the invoke the outcome pairs
// with; the latencies sorted.
std::vector<std::int64_t> latencies(const History& h) {
  std::vector<std::int64_t> out;
  for (const Acquire& a : acquires(h))
    if (a.invoke_us != kNone && a.outcome != Phase::info) out.push_back(a.outcome_us - a.invoke_us);
  std::sort(out.begin(), out.end());
  return out;
}

// Nearest rank: the smallest v with at least ceil(p * N / 100) values <= v.
std::int64_t nearest_rank(const std::vector<std::int64_t>& sorted, int p) {
  const std::size_t n = sorted.size();
  const std::size_t rank = (static_cast<std::size_t>(p) * n + 99) / 100;
  return sorted[std::max<std::size_t>(rank, 1) - 1];
}

struct LongestWait {
  std::int64_t us = 0;
  int client = -1;  // none when no wait lasted any time
  bool open = false;
};

// The longest wait; ties go to the lower client id, then to that client's earlier wait (waits.cpp:
// DEFINITIONS.md names no tie rule). A wait that lasted no time names no client.
LongestWait longest_wait(const History& h) {
  const std::int64_t end = h.events.back().true_us;
  LongestWait w;
  for (const Interval& i : waits(h)) {  // by client, then in time
    const std::int64_t d = (i.to == kOpen ? end : i.to) - i.from;
    if (d > w.us || (d == w.us && d > 0 && i.client < w.client)) w = {d, i.client, i.to == kOpen};
  }
  return w;
}

struct Liveness {
  std::int64_t longest_no_grant_us = 0, gaps = 0;
};

// An instant is starving when fewer than `limit` permits are certainly held and a client waits. A
// no-grant stretch: consecutive starving instants, cut before an instant with an acquire ok,
// from its first instant to the instant after its last (the end of the history for the last).
Liveness liveness(const History& h) {
  const std::vector<Interval> certain = holds(h), waiting = waits(h);
  const std::vector<std::int64_t> ts = instants(h);
  std::vector<std::pair<std::int64_t, std::int64_t>> stretches;  // [from, to)
  std::optional<std::size_t> first;
  for (std::size_t k = 0; k <= ts.size(); ++k) {
    const bool in = k < ts.size();
    const bool starving = in && covered(certain, {}, ts[k]) < h.limit && covered(waiting, {}, ts[k]) > 0;
    const bool granted = in && std::any_of(h.events.begin(), h.events.end(), [&](const Event& e) {
                           return e.true_us == ts[k] && e.op == Op::acquire && e.phase == Phase::ok;
                         });
    if (first && (!starving || granted)) stretches.emplace_back(ts[*first], in ? ts[k] : ts.back()), first.reset();
    if (starving && !first) first = k;
  }
  Liveness l;
  for (const auto& [from, to] : stretches) {
    l.longest_no_grant_us = std::max(l.longest_no_grant_us, to - from);
    if (to - from > h.bound_us) ++l.gaps;
  }
  return l;
}

// "Outcomes" and per client: acquire invokes, oks, fails, infos; outcome rows of acquire,
// release and refresh; their info rows.
struct Counts {
  std::int64_t events = 0, acquires = 0, granted = 0, rejected = 0, acquire_unknown = 0, unknown = 0, operations = 0;
  std::vector<std::tuple<int, std::int64_t, std::int64_t, std::int64_t, std::int64_t>> per_client;
};

Counts counts(const History& h) {
  Counts n;
  n.events = static_cast<std::int64_t>(h.events.size());
  for (const Event& e : h.events) {
    const bool operation = e.op == Op::acquire || e.op == Op::release || e.op == Op::refresh;
    if (operation && e.phase != Phase::invoke) ++n.operations;
    if (operation && e.phase == Phase::info) ++n.unknown;
  }
  for (int c = 1; c <= h.clients; ++c) {
    std::int64_t by_phase[4] = {};
    for (const Event& e : rows_of(h, c))
      if (e.op == Op::acquire) ++by_phase[static_cast<int>(e.phase)];
    const auto [attempts, ok, fail, info] = by_phase;
    n.acquires += attempts, n.granted += ok, n.rejected += fail, n.acquire_unknown += info;
    if (attempts + ok + fail > 0) n.per_client.emplace_back(c, attempts, ok, fail, info);
  }
  return n;
}

// ---- Properties -----------------------------------------------------------------------------

RC_GTEST_PROP(CheckerMatchesBruteForce, OutcomeCountsInTotalAndPerClient, ()) {
  const History h = gen_history();
  RC_LOG() << describe(h);
  const Summary s = check(h);
  const Counts n = counts(h);
  RC_ASSERT(s.events == n.events);
  RC_ASSERT(s.acquires == n.acquires);
  RC_ASSERT(s.granted == n.granted);
  RC_ASSERT(s.rejected == n.rejected);
  RC_ASSERT(s.acquire_unknown == n.acquire_unknown);
  RC_ASSERT(s.unknown == n.unknown);
  RC_ASSERT(s.operations == n.operations);
  std::vector<std::tuple<int, std::int64_t, std::int64_t, std::int64_t, std::int64_t>> per_client;
  for (const ClientStats& c : s.per_client)
    per_client.emplace_back(c.client, c.attempts, c.granted, c.rejected, c.unknown);
  RC_ASSERT(per_client == n.per_client);
}

RC_GTEST_PROP(CheckerMatchesBruteForce, HoldersOverLimitTimeStealsAndEpisodesCountedPerInstant, ()) {
  const History h = gen_history();
  RC_LOG() << describe(h);
  const Summary s = check(h);
  const Safety ref = safety(h);
  RC_ASSERT(s.max_holders == ref.max_holders);
  RC_ASSERT(s.max_possible_holders == ref.max_possible);
  RC_ASSERT(s.over_admission == std::max(0, ref.max_holders - h.limit));
  RC_ASSERT(s.over_limit_us == ref.over_limit_us);
  RC_ASSERT(s.possible_over_limit_us == ref.possible_over_limit_us);
  RC_ASSERT(s.steals == ref.steals);
  RC_ASSERT(s.episode_count == ref.episodes);
  RC_CLASSIFY(ref.max_holders > h.limit, "over the limit");
  RC_CLASSIFY(ref.steals > 0, "steals");
  RC_CLASSIFY(ref.episodes > 1, "several episodes");
  RC_CLASSIFY(ref.max_possible > ref.max_holders, "possible holders");
  RC_CLASSIFY(std::any_of(h.events.begin(), h.events.end(), [&](const Event& e) {
                return e.op == Op::acquire && e.phase == Phase::ok &&
                       std::count_if(h.events.begin(), h.events.end(), [&](const Event& o) {
                         return o.client == e.client && o.op == Op::acquire && o.phase == Phase::ok && o.seq < e.seq;
                       }) > 0;
              }),
              "a client granted twice");
}

RC_GTEST_PROP(CheckerMatchesBruteForce, EachEpisodeWitnessesTheEarliestHoldsAtItsStartOneAPermit, ()) {
  const History h = gen_history();
  RC_LOG() << describe(h);
  const Summary s = check(h);
  const Safety ref = safety(h);
  RC_ASSERT(s.episodes.size() == std::min<std::size_t>(ref.witnesses.size(), 100));  // the first 100 are kept
  bool one_client_twice = false;
  for (std::size_t k = 0; k < s.episodes.size(); ++k) {
    RC_ASSERT(s.episodes[k].start_us == ref.witnesses[k].first);
    RC_ASSERT(s.episodes[k].witness == ref.witnesses[k].second);
    std::set<int> clients;
    for (const HoldRef& w : s.episodes[k].witness) one_client_twice |= !clients.insert(w.client).second;
  }
  RC_CLASSIFY(one_client_twice, "a witness names one client twice");
}

RC_GTEST_PROP(CheckerMatchesBruteForce, AcquireLatencyFromTheEarliestPendingInvoke, ()) {
  const History h = gen_history();
  RC_LOG() << describe(h);
  const Summary s = check(h);
  const std::vector<std::int64_t> ref = latencies(h);
  RC_ASSERT(s.acquire_latency.count() == ref.size());
  if (ref.empty()) return;
  // Above 16.384 ms a latency is reported at most 2^-13 below its value (latency.h).
  for (const auto& [p, got] : {std::pair(50, s.acquire_p50_us), std::pair(99, s.acquire_p99_us)}) {
    RC_ASSERT(got.has_value());
    const std::int64_t want = nearest_rank(ref, p);
    RC_ASSERT(*got <= want);
    RC_ASSERT(*got >= want - want / 8192);
  }
}

RC_GTEST_PROP(CheckerMatchesBruteForce, FifoInversionsCountEachRejectionOvertakenWhilePending, ()) {
  const History h = gen_history();
  RC_LOG() << describe(h);
  const std::int64_t ref = fifo_inversions(h);
  RC_ASSERT(check(h).fifo_inversions == ref);
  RC_CLASSIFY(ref > 0, "inversions");
}

RC_GTEST_PROP(CheckerMatchesBruteForce, LongestWaitFromTheRefusedInvokeAndItsClient, ()) {
  const History h = gen_history();
  RC_LOG() << describe(h);
  const Summary s = check(h);
  const LongestWait ref = longest_wait(h);
  RC_ASSERT(s.longest_wait_us == ref.us);
  RC_ASSERT(s.longest_wait_client == ref.client);
  RC_ASSERT(s.longest_wait_open == ref.open);
  RC_CLASSIFY(ref.client >= 0, "a wait");
  RC_CLASSIFY(ref.open, "still waiting");
}

RC_GTEST_PROP(CheckerMatchesBruteForce, LivenessNoGrantStretchesAndGapsOverTheBound, ()) {
  const History h = gen_history();
  RC_LOG() << describe(h);
  const Summary s = check(h);
  const Liveness ref = liveness(h);
  RC_ASSERT(s.longest_no_grant_us == ref.longest_no_grant_us);
  RC_ASSERT(s.liveness_gaps == ref.gaps);
  RC_ASSERT(s.liveness == (ref.gaps > 0 ? Verdict::invalid : Verdict::valid));
  RC_CLASSIFY(ref.longest_no_grant_us > 0, "a no-grant stretch");
  RC_CLASSIFY(ref.gaps > 0, "gaps");
}

}  // namespace
}  // namespace semsim
