// The streaming checker against brute force: random small histories, written the way semsim
// writes them, judged by Checker and by reference computations made straight from
// reports/DEFINITIONS.md over the whole event list (quadratic, no pruning, no held instants).
// The trackers (fifo, holds, waits, liveness) are tuned for speed; this pins their results.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
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

// A client's protocol as semsim's clients follow it.
enum class State { idle, pending, pending_holding, holding, releasing, refreshing, unsure, done };

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

  std::vector<State> state(static_cast<std::size_t>(clients) + 1, State::idle);
  std::vector<int> grants(state.size(), 0);
  std::int64_t t = 0;
  bool stuck = false;  // client 1's acquire, kept pending
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
      State& s = state[static_cast<std::size_t>(c)];
      if (c == 1 && s == State::pending && round < rounds) {
        stuck = true;
        continue;
      }
      const std::string id = "c" + std::to_string(c) + "-" + std::to_string(grants[static_cast<std::size_t>(c)]);
      const auto acquire_outcome = [&](State ok_state, State fail_state, State info_state) {
        if (choice < 35) {
          ++grants[static_cast<std::size_t>(c)];
          row(c, Op::acquire, Phase::ok, id), s = ok_state;
        } else if (choice < 65) {
          row(c, Op::acquire, Phase::fail), s = fail_state;
        } else if (choice < 78) {
          row(c, Op::acquire, Phase::info), s = info_state;
        } else if (choice < 88) {
          row(c, Op::acquire, Phase::invoke);  // no outcome came: the client asks again
        } else {
          row(c, Op::crash, Phase::ok), s = State::idle;
        }
      };
      switch (s) {
        case State::idle:
          if (choice < 88)
            row(c, Op::acquire, Phase::invoke), s = State::pending;
          else if (choice < 99)
            row(c, Op::crash, Phase::ok);
          else
            row(c, Op::done, Phase::ok), s = State::done;
          break;
        case State::pending:
          if (std::exchange(stuck, false)) {  // the kept acquire is granted at last
            ++grants[static_cast<std::size_t>(c)];
            row(c, Op::acquire, Phase::ok, id), s = State::holding;
          } else {
            acquire_outcome(State::holding, State::idle, State::unsure);
          }
          break;
        case State::pending_holding:  // an acquire while holding: nothing it says ends the hold
          acquire_outcome(State::holding, State::holding, State::holding);
          break;
        case State::holding:
          if (choice < 55)
            row(c, Op::release, Phase::invoke, id), s = State::releasing;
          else if (choice < 70)
            row(c, Op::refresh, Phase::invoke, id), s = State::refreshing;
          else if (choice < 80)
            row(c, Op::acquire, Phase::invoke), s = State::pending_holding;
          else
            row(c, Op::crash, Phase::ok), s = State::idle;
          break;
        case State::releasing:
          if (choice < 70)
            row(c, Op::release, Phase::ok, id), s = State::idle;
          else if (choice < 80)
            row(c, Op::release, Phase::fail, id), s = State::idle;
          else if (choice < 88)
            row(c, Op::release, Phase::info, id), s = State::idle;
          else if (choice < 95)
            row(c, Op::acquire, Phase::invoke), s = State::pending;  // no release outcome
          else
            row(c, Op::crash, Phase::ok), s = State::idle;
          break;
        case State::refreshing:
          if (choice < 60)
            row(c, Op::refresh, Phase::ok, id), s = State::holding;
          else if (choice < 80)
            row(c, Op::refresh, Phase::fail, id), s = State::idle;
          else if (choice < 90)
            row(c, Op::refresh, Phase::info, id), s = State::holding;
          else
            row(c, Op::crash, Phase::ok), s = State::idle;
          break;
        case State::unsure:  // after an acquire info: may hold
          if (choice < 50)
            row(c, Op::acquire, Phase::invoke), s = State::pending;
          else if (choice < 85)
            row(c, Op::release, Phase::invoke), s = State::releasing;
          else if (choice < 98)
            row(c, Op::crash, Phase::ok), s = State::idle;
          else
            row(c, Op::done, Phase::ok), s = State::done;
          break;
        case State::done:  // wants nothing more
          break;
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
        << to_string(e.phase) << "\n";
  return out.str();
}

// ---- Brute force, from reports/DEFINITIONS.md ----------------------------------------------

struct Interval {
  int client;
  std::int64_t from, to;  // [from, to); to = kOpen when still open at the end of the history
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

bool ends_hold(const Event& e) {  // "its next release invoke, refresh fail, or crash"
  return (e.op == Op::release && e.phase == Phase::invoke) || (e.op == Op::refresh && e.phase == Phase::fail) ||
         e.op == Op::crash;
}

// "holds": from its acquire ok to its next release invoke, refresh fail or crash, [ok, end);
// a second ok while holding changes nothing.
std::vector<Interval> holds(const History& h) {
  std::vector<Interval> out;
  for (int c = 1; c <= h.clients; ++c) {
    std::int64_t since = kNone;
    for (const Event& e : rows_of(h, c)) {
      if (e.op == Op::acquire && e.phase == Phase::ok && since == kNone) since = e.true_us;
      if (ends_hold(e) && since != kNone) out.push_back({c, since, e.true_us}), since = kNone;
    }
    if (since != kNone) out.push_back({c, since, kOpen});
  }
  return out;
}

// "possibly holds": from an acquire info to its next release invoke, refresh fail, crash or
// acquire ok.
std::vector<Interval> possible_holds(const History& h) {
  std::vector<Interval> out;
  for (int c = 1; c <= h.clients; ++c) {
    std::int64_t since = kNone;
    for (const Event& e : rows_of(h, c)) {
      if ((ends_hold(e) || (e.op == Op::acquire && e.phase == Phase::ok)) && since != kNone)
        out.push_back({c, since, e.true_us}), since = kNone;
      if (e.op == Op::acquire && e.phase == Phase::info && since == kNone) since = e.true_us;
    }
    if (since != kNone) out.push_back({c, since, kOpen});
  }
  return out;
}

// Clients covered at t (once the whole instant is applied): each client once.
int covered(const std::vector<Interval>& a, const std::vector<Interval>& b, std::int64_t t) {
  std::set<int> who;
  for (const Interval& i : a)
    if (i.covers(t)) who.insert(i.client);
  for (const Interval& i : b)
    if (i.covers(t)) who.insert(i.client);
  return static_cast<int>(who.size());
}

// "waiting": from the invoke of an acquire that is rejected while the client was not already
// waiting, to its next acquire ok, its crash, its done row, or the end of the history.
std::vector<Interval> waits(const History& h) {
  std::vector<Interval> out;
  for (int c = 1; c <= h.clients; ++c) {
    std::int64_t invoked = kNone, since = kNone;
    for (const Event& e : rows_of(h, c)) {
      const bool stops = (e.op == Op::acquire && e.phase == Phase::ok) || e.op == Op::crash || e.op == Op::done;
      if (stops && since != kNone) out.push_back({c, since, e.true_us}), since = kNone;
      if (e.op == Op::acquire && e.phase == Phase::fail && invoked != kNone && since == kNone) since = invoked;
      if (e.op == Op::acquire) invoked = e.phase == Phase::invoke ? e.true_us : kNone;
      if (e.op == Op::crash) invoked = kNone;
    }
    if (since != kNone) out.push_back({c, since, kOpen});
  }
  return out;
}

struct Safety {
  int max_holders = 0, max_possible = 0;
  std::int64_t over_limit_us = 0, possible_over_limit_us = 0, steals = 0, episodes = 0;
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
    if (n > h.limit && !over_before) ++s.episodes;
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
  struct Acquire {
    int client;
    std::int64_t invoke_us, outcome_us;
    Phase outcome;
  };
  std::vector<Acquire> decided;
  for (int c = 1; c <= h.clients; ++c) {
    std::int64_t invoked = kNone;
    for (const Event& e : rows_of(h, c)) {
      if (e.op == Op::crash) invoked = kNone;  // never admitted
      if (e.op != Op::acquire) continue;
      if (e.phase == Phase::invoke) {
        invoked = e.true_us;  // one still pending before it never got an outcome
      } else {
        if (invoked != kNone) decided.push_back({c, invoked, e.true_us, e.phase});
        invoked = kNone;
      }
    }
  }
  return std::count_if(decided.begin(), decided.end(), [&](const Acquire& r) {
    return r.outcome == Phase::fail && std::any_of(decided.begin(), decided.end(), [&](const Acquire& a) {
             return a.outcome == Phase::ok && a.client != r.client && r.invoke_us < a.invoke_us &&
                    a.invoke_us <= r.outcome_us;
           });
  });
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

// An instant is starving when fewer than `limit` clients certainly hold and one is waiting. A
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
