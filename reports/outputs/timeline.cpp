#include "reports/outputs/timeline.h"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cmath>
#include <map>
#include <queue>
#include <set>
#include <stdexcept>
#include <vector>

#include "reports/history/history_reader.h"
#include "reports/history/key_values.h"
#include "reports/history/output_file.h"
#include "reports/history/run_rows.h"
#include "reports/history/text_format.h"
#include "reports/outputs/page_safety.h"
#include "reports/outputs/timeline_page.h"

namespace semsim {

namespace {

// Hold flags, as the page's script reads them. Above them, from bit kVoteShift, the masters that
// voted for the permit (bit m - 1 for master m; a multi-master run's acquire or refresh ok).
enum : int { kPossible = 1, kWitness = 2, kMerged = 4, kOpen = 8 };
constexpr int kVoteShift = 4;

// No instant (no invoke yet, no lease): below every true_us a history can hold (run_rows.h).
constexpr std::int64_t kNone = INT64_MIN;

// While streaming, instants are a history's own (true_us): the start of the history, the timeout
// and the run's end are the Summary's, known only when the page is written.
struct Hold {
  std::int64_t a, b;  // [a, b) true time; on the page, µs from the start of the history
  // While streaming, the invoke its lease counts from (kNone: none); on the page, when the lease
  // ran out (that invoke + timeout), -1 without one.
  std::int64_t lease = kNone;
  int flags = 0;
  int count = 1;  // holds merged into this one
};

struct Row {
  std::vector<Hold> holds;
  std::vector<std::int64_t> pauses;   // a, b pairs
  std::vector<std::int64_t> crashes;  // t
  std::vector<std::int64_t> jumps;    // t, by pairs
  double offset_ms = 0;
  // While streaming.
  bool acquires = false;  // an acquire invoke, ok or fail: one of Summary::per_client
  bool maybe = false, paused = false;
  std::int64_t maybe_since = 0, pause_since = 0;
  // The permits it holds (a client may hold several: reports/DEFINITIONS.md, Safety), each drawn
  // as its own bar, and its acquires in flight, earliest first (an outcome pairs with the earliest).
  struct Open {
    std::string identifier;
    std::int64_t since, lease_from, refresh_invoked = kNone;
    int votes = 0;  // flags: the masters that voted for it
  };
  std::vector<Open> open;
  std::vector<std::int64_t> acquire_invokes;
};

struct ServerMark {
  Op kind;
  std::int64_t a, b;  // a span, or a == b for an instant
  std::string detail;
  int master = 0;  // the master it happened to (master=K), 0: the one Redis
};

// A master's lane (runs over several masters): what happened to it, as [a, b) or an instant.
struct MasterMark {
  int master;
  std::string kind;  // an Op's name, or "cut" (a client's links to it cut)
  std::int64_t a, b;
  std::string detail;
};

// "1,2,3" -> the vote bits of masters 1, 2 and 3 (flags); masters outside 1..kMaxRunMasters and
// words that are not numbers are left out (a history's detail is not trusted).
int vote_bits(const std::optional<std::string>& list) {
  int bits = 0;
  if (!list) return 0;
  std::size_t i = 0;
  while (i < list->size()) {
    const std::size_t j = std::min(list->find(',', i), list->size());
    const std::string item = list->substr(i, j - i);
    if (item.size() == 1 && item[0] >= '1' && item[0] <= '0' + kMaxRunMasters) bits |= 1 << (item[0] - '1' + kVoteShift);
    i = j + 1;
  }
  return bits;
}

// The run row's master_skew_us and master_drift_ppm lists (reports/DEFINITIONS.md, "Several
// masters"): one pair per master, a value that is not a number 0, skews within the history's own
// bounds and drifts within +-1e6 ppm (a history's detail is not trusted); none without the lists.
std::vector<std::pair<std::int64_t, double>> master_clocks(const std::optional<std::string>& skews,
                                                           const std::optional<std::string>& drifts, int masters) {
  if (!skews || !drifts) return {};
  std::vector<std::pair<std::int64_t, double>> out(static_cast<std::size_t>(masters), {0, 0.0});
  const auto each = [&](const std::string& list, auto store) {
    std::size_t i = 0;
    for (std::size_t m = 0; m < out.size() && i <= list.size(); ++m) {
      const std::size_t j = std::min(list.find(',', i), list.size());
      const std::string item = list.substr(i, j - i);
      char* end = nullptr;
      const double v = item.empty() ? 0 : std::strtod(item.c_str(), &end);
      if (!item.empty() && end == item.c_str() + item.size() && std::isfinite(v)) store(out[m], v);
      i = j + 1;
    }
  };
  each(*skews, [](auto& p, double v) {
    p.first = static_cast<std::int64_t>(std::clamp(v, -static_cast<double>(kMaxHistoryUs), static_cast<double>(kMaxHistoryUs)));
  });
  each(*drifts, [](auto& p, double v) { p.second = std::clamp(v, -1e6, 1e6); });
  return out;
}

// A detail as history.csv holds it (append_csv_field writes a line break as a space), so that a
// page streamed from a run is the page of its file.
std::string as_written(std::string_view detail) {
  std::string out(detail);
  std::replace_if(out.begin(), out.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
  return out;
}

void append_list(std::string& out, const std::vector<std::int64_t>& v) {
  out += '[';
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) out += ',';
    append_int(out, v[i]);
  }
  out += ']';
}

// Merges, per row, holds that start less than `gap` after the last one ended (count kept, lease
// dropped: a merged bar stands for several leases).
std::size_t merged_count(const std::map<int, Row>& rows, std::int64_t gap) {
  std::size_t n = 0;
  for (const auto& [id, r] : rows) {
    std::int64_t end = INT64_MIN;
    for (const Hold& h : r.holds) {
      if (end == INT64_MIN || h.a - end >= gap || gap == 0) ++n;
      end = std::max(end, h.b);
    }
  }
  return n;
}

void merge_holds(Row& r, std::int64_t gap) {
  std::vector<Hold> out;
  for (const Hold& h : r.holds) {
    if (!out.empty() && h.a - out.back().b < gap && ((out.back().flags ^ h.flags) & kPossible) == 0) {
      Hold& m = out.back();
      m.b = std::max(m.b, h.b);
      m.count += h.count;
      m.flags |= (h.flags & ~(kPossible | kMerged)) | kMerged;  // witness, open, votes
      m.lease = -1;
      continue;
    }
    out.push_back(h);
  }
  r.holds = std::move(out);
}

}  // namespace

// Rows. The page draws the lowest `max_clients` ids among the clients with an acquire invoke, ok
// or fail (Summary::per_client); a client may acquire first late in the run, so while streaming
// that set is not known yet. It is bounded though: once `max_clients` acquiring clients have been
// seen, a client above the largest of the `max_clients` smallest ids seen acquiring (`bound`) can
// never be drawn (that many lower ids already acquire, and the set only grows), and the bound only
// falls. So rows are kept for ids up to the bound (every id until `max_clients` acquiring clients
// were seen), and those above are dropped as it falls: at most `max_clients` rows of acquiring
// clients, and besides them only clients below the bound that have not acquired (yet). The
// Summary picks the rows at write time, so the page keeps exactly the rows a second read of the
// file would.
struct TimelineBuilder::State {
  State(int max, std::string history) : max_clients(max), bound(max > 0 ? INT_MAX : -1), history_path(std::move(history)) {}

  // Client `id`'s first acquire that makes it one of per_client: it may lower the bound.
  void acquiring(int id) {
    acquirers.push(id);
    if (static_cast<int>(acquirers.size()) > max_clients) acquirers.pop();
    if (static_cast<int>(acquirers.size()) == max_clients && acquirers.top() < bound) {
      bound = acquirers.top();
      rows.erase(rows.upper_bound(bound), rows.end());
    }
  }

  int max_clients;
  int bound;  // rows are kept for ids <= bound
  std::priority_queue<int> acquirers;  // the max_clients smallest ids seen acquiring, the largest on top
  std::map<int, Row> rows;
  std::vector<ServerMark> server;
  std::vector<std::int64_t> stale;  // t, believers Redis no longer counted
  int masters = 1, quorum = 1;       // the run row's (several masters: Redlock)
  std::vector<std::pair<std::int64_t, double>> master_clocks;  // the run row's: each master's skew (µs), drift (ppm)
  std::vector<MasterMark> master_marks;
  std::map<std::pair<int, int>, std::int64_t> cuts;  // (client, master) -> since: links cut now
  std::string history_path;  // the file of the same events: witness rows beyond max_clients are read back from it
  std::set<int> only;        // not empty: rows for these clients alone, and nothing else (that read back)
};

TimelineBuilder::TimelineBuilder(int max_clients, std::string history_path)
    : state_(std::make_unique<State>(max_clients, std::move(history_path))) {}
TimelineBuilder::~TimelineBuilder() = default;

void TimelineBuilder::add(const Event& e) {
  State& st = *state_;
  if (!st.only.empty() && !st.only.contains(e.client)) return;
  const std::int64_t t = e.true_us;
  if (e.client == 0 && (is_server_fault(e.op) || e.op == Op::server_jump || e.op == Op::sample)) {
    std::string detail = as_written(e.detail);
    KeyValues kv;
    try {
      kv = KeyValues::parse(detail);
    } catch (const std::invalid_argument&) {
    }
    // Within the instants' own bounds (run_rows.h), so that t + length stays inside 64 bits
    // whatever a row's detail says.
    const auto number = [&](std::string_view key) -> std::int64_t {
      try {
        return std::clamp(kv.get_int(key).value_or(0), -kMaxHistoryUs, kMaxHistoryUs);
      } catch (const std::invalid_argument&) {
        return 0;
      }
    };
    const int master = static_cast<int>(std::clamp<std::int64_t>(number("master"), 0, kMaxRunMasters));
    if (e.op == Op::sample) {
      if (const std::int64_t n = number("stale"); n > 0) st.stale.insert(st.stale.end(), {t, n});
    } else if (e.op == Op::redis_pause) {
      st.server.push_back({e.op, t, t + number("length_us"), std::move(detail), master});
    } else if (e.op == Op::failover) {
      st.server.push_back({e.op, t - number("lag_us"), t, std::move(detail), master});
    } else if (e.op == Op::redis_restart) {  // down until t + down_us (0: back at once)
      st.server.push_back({e.op, t, t + std::max<std::int64_t>(0, number("down_us")), std::move(detail), master});
    } else {
      st.server.push_back({e.op, t, t, std::move(detail), master});
    }
    return;
  }
  if (e.op == Op::run && e.phase == Phase::info) {
    try {
      const KeyValues kv = KeyValues::parse(as_written(e.detail));
      st.masters = static_cast<int>(std::clamp<std::int64_t>(kv.get_int("masters").value_or(1), 1, kMaxRunMasters));
      st.quorum = static_cast<int>(std::clamp<std::int64_t>(kv.get_int("quorum").value_or(1), 1, kMaxRunMasters));
      st.master_clocks = master_clocks(kv.get("master_skew_us"), kv.get("master_drift_ppm"), st.masters);
    } catch (const std::invalid_argument&) {
    }
    return;
  }
  // A client's links to some masters cut, and whole again: on those masters' lanes, whoever the client.
  if ((e.op == Op::partition || e.op == Op::heal) && e.client > 0) {
    std::optional<std::string> list;
    try {
      list = KeyValues::parse(as_written(e.detail)).get("masters");
    } catch (const std::invalid_argument&) {
    }
    const int bits = vote_bits(list) >> kVoteShift;
    for (int m = 1; m <= kMaxRunMasters; ++m) {
      if (!(bits & (1 << (m - 1)))) continue;
      const auto key = std::make_pair(e.client, m);
      if (e.op == Op::partition) {
        st.cuts.try_emplace(key, t);
      } else if (const auto it = st.cuts.find(key); it != st.cuts.end()) {
        st.master_marks.push_back({m, "cut", it->second, t, "client " + std::to_string(e.client)});
        st.cuts.erase(it);
      }
    }
    return;
  }
  if (e.op == Op::run || e.client < 0 || e.client > st.bound) return;
  Row& r = st.rows[e.client];
  const auto end_maybe = [&] {
    if (r.maybe) r.holds.push_back({r.maybe_since, t, kNone, kPossible, 1});
    r.maybe = false;
  };
  const auto held = [&]() -> Row::Open* {  // the hold of the permit the row names, if any
    for (Row::Open& h : r.open)
      if (h.identifier == e.identifier) return &h;
    return nullptr;
  };
  // The masters that voted for this acquire's or refresh's permit (several masters only).
  const auto votes = [&]() -> int {
    if (st.masters < 2) return 0;
    try {
      const KeyValues kv = KeyValues::parse(as_written(e.detail));
      return vote_bits(kv.get("granted")) | vote_bits(kv.get("reacquired"));
    } catch (const std::invalid_argument&) {
      return 0;
    }
  };
  const auto end_hold = [&] {  // the permit the row names, and what the client possibly holds
    if (Row::Open* h = held()) {
      r.holds.push_back({h->since, t, h->lease_from, h->votes, 1});
      *h = std::move(r.open.back());
      r.open.pop_back();
    }
    end_maybe();
  };
  switch (e.op) {
    case Op::acquire:
      if (e.phase != Phase::info && !r.acquires) {
        r.acquires = true;
        st.acquiring(e.client);  // drops only rows above this one: `r` stays
      }
      if (e.phase == Phase::invoke) {
        r.acquire_invokes.push_back(t);
        break;
      }
      {
        const std::int64_t invoked = r.acquire_invokes.empty() ? kNone : r.acquire_invokes.front();
        if (!r.acquire_invokes.empty()) r.acquire_invokes.erase(r.acquire_invokes.begin());
        if (e.phase == Phase::ok) {
          end_maybe();
          if (!held()) r.open.push_back({e.identifier, t, invoked, kNone, votes()});
        } else if (e.phase == Phase::info && !r.maybe) {
          r.maybe = true;
          r.maybe_since = t;
        }
      }
      break;
    case Op::refresh:
      if (Row::Open* h = held(); h && e.phase == Phase::invoke) h->refresh_invoked = t;
      if (Row::Open* h = held(); h && e.phase == Phase::ok && h->refresh_invoked != kNone) h->lease_from = h->refresh_invoked;
      if (Row::Open* h = held(); h && e.phase == Phase::ok)
        if (const int v = votes()) h->votes = v;  // the masters its lease now stands on
      if (e.phase == Phase::fail) end_hold();
      break;
    case Op::release:
      if (e.phase == Phase::invoke) end_hold();
      break;
    case Op::crash:
      for (const Row::Open& h : r.open) r.holds.push_back({h.since, t, h.lease_from, h.votes, 1});
      r.open.clear();
      r.acquire_invokes.clear();
      end_maybe();
      r.crashes.push_back(t);
      break;
    case Op::pause:
      if (!r.paused) r.paused = true, r.pause_since = t;
      break;
    case Op::resume:
      if (r.paused) r.pauses.insert(r.pauses.end(), {r.pause_since, t});
      r.paused = false;
      break;
    case Op::jump: {
      std::int64_t by = 0;
      try {
        by = KeyValues::parse(as_written(e.detail)).get_int("by_us").value_or(0);
      } catch (const std::invalid_argument&) {
      }
      r.jumps.insert(r.jumps.end(), {t, by});
      break;
    }
    default:
      break;
  }
}

std::size_t TimelineBuilder::rows_held() const { return state_->rows.size(); }

void TimelineBuilder::write(const std::string& html_path, const Summary& s, std::size_t max_bars) {
  State& st = *state_;
  const std::int64_t t0 = s.start_us;
  const std::int64_t span = std::max<std::int64_t>(s.end_us - s.start_us, 1);
  const std::int64_t timeout_us = s.timeout_ms ? *s.timeout_ms * 1000 : -1;
  // The holds that witness a kept episode: (client, since).
  std::set<std::pair<int, std::int64_t>> witnesses;
  for (const Episode& e : s.episodes)
    for (const HoldRef& h : e.witness) witnesses.insert({h.client, h.since_us});

  // Rows: the lowest client ids that ever acquired, and beyond them the clients a kept episode's
  // witness names (a witness is never off the page), their instants from the start of the history.
  // Those beyond were not kept while streaming: read back from the history file, for them alone.
  std::set<int> witness_clients;
  for (const auto& [client, since] : witnesses) witness_clients.insert(client);
  std::vector<const ClientStats*> chosen;
  std::set<int> beyond;
  for (const ClientStats& c : s.per_client) {
    if (static_cast<int>(chosen.size()) < st.max_clients) {
      chosen.push_back(&c);
    } else if (witness_clients.contains(c.client) && !st.history_path.empty()) {
      chosen.push_back(&c);
      beyond.insert(c.client);
    }
  }
  if (!beyond.empty()) {
    TimelineBuilder again(INT_MAX);
    again.state_->only = beyond;
    HistoryReader reader(st.history_path);
    for (Event e; reader.next(e);) again.add(e);
    for (auto& [id, row] : again.state_->rows) st.rows[id] = std::move(row);
  }
  std::map<int, Row> rows;
  for (const ClientStats* client : chosen) {
    const ClientStats& c = *client;
    Row& r = rows[c.client];
    if (const auto it = st.rows.find(c.client); it != st.rows.end()) r = std::move(it->second);
    r.offset_ms = c.mean_offset_ms;
    // Whatever is still open runs to the end of the history.
    for (const Row::Open& h : r.open) r.holds.push_back({h.since, t0 + span, h.lease_from, kOpen | h.votes, 1});
    if (r.maybe) r.holds.push_back({r.maybe_since, t0 + span, kNone, kPossible | kOpen, 1});
    if (r.paused) r.pauses.insert(r.pauses.end(), {r.pause_since, t0 + span});
    // By start (they were kept by end): a client's holds may overlap, and merging reads them in order.
    std::stable_sort(r.holds.begin(), r.holds.end(), [](const Hold& a, const Hold& b) { return a.a < b.a; });
    for (Hold& h : r.holds) {
      if (!(h.flags & kPossible) && witnesses.count({c.client, h.a})) h.flags |= kWitness;
      h.lease = timeout_us >= 0 && h.lease != kNone ? h.lease - t0 + timeout_us : -1;
      h.a -= t0;
      h.b -= t0;
    }
    for (std::int64_t& t : r.pauses) t -= t0;
    for (std::int64_t& t : r.crashes) t -= t0;
    for (std::size_t i = 0; i < r.jumps.size(); i += 2) r.jumps[i] -= t0;
  }
  st.rows.clear();
  const int hidden = static_cast<int>(s.per_client.size()) - static_cast<int>(rows.size());
  std::vector<std::int64_t> stale = std::move(st.stale);
  for (std::size_t i = 0; i < stale.size(); i += 2) stale[i] -= t0;
  // Faults of one master go on its lane (several masters), those of the one Redis across the rows.
  std::vector<ServerMark> server;
  std::vector<MasterMark> masters = std::move(st.master_marks);
  for (const auto& [key, since] : st.cuts) masters.push_back({key.second, "cut", since, t0 + span, "client " + std::to_string(key.first)});
  for (ServerMark& m : st.server) {
    if (st.masters > 1 && m.master >= 1 && m.master <= st.masters)
      masters.push_back({m.master, std::string(to_string(m.kind)), m.a, m.b, std::move(m.detail)});
    else
      server.push_back(std::move(m));
  }
  for (ServerMark& m : server) {
    m.a = std::max<std::int64_t>(0, m.a - t0);  // a failover's lost writes: not before the history
    m.b -= t0;
  }
  for (MasterMark& m : masters) {
    m.a = std::max<std::int64_t>(0, m.a - t0);
    m.b -= t0;
  }
  std::stable_sort(masters.begin(), masters.end(), [](const MasterMark& a, const MasterMark& b) { return a.a < b.a; });

  // Too many holds for a page: merge those of one client closer than the smallest gap that keeps
  // the page under max_bars bars (the gap is said on the page).
  std::int64_t gap = 0;
  if (merged_count(rows, 0) > max_bars) {
    // Every row keeps a bar or two however wide the gap: past the run's span, merging more merges nothing.
    for (gap = std::max<std::int64_t>(1, span / 1'000'000); merged_count(rows, gap) > max_bars && gap <= span; gap *= 2) {
    }
    for (auto& [id, r] : rows) merge_holds(r, gap);
  }

  // Over-admission episodes to jump to: every one the Summary spans exactly (else the kept ones),
  // then, past as many as it holds, those the holders series shows (to its bucket).
  std::vector<std::int64_t> episodes;  // a, b, peak
  std::int64_t after = INT64_MIN;
  if (!s.episode_spans.empty()) {
    for (const EpisodeSpan& ep : s.episode_spans) episodes.insert(episodes.end(), {ep.start_us - t0, ep.end_us - t0, ep.peak_holders});
    after = static_cast<std::int64_t>(s.episode_spans.size()) < s.episode_count ? s.episode_spans.back().end_us : INT64_MAX;
  } else {
    for (const Episode& ep : s.episodes) episodes.insert(episodes.end(), {ep.start_us - t0, ep.end_us - t0, ep.peak_holders});
    if (!s.episodes.empty()) after = s.episodes.back().end_us;
  }
  for (std::size_t i = 0; i < s.holders.size(); ++i) {
    if (s.holders[i].max_holders <= s.limit) continue;
    std::size_t j = i;
    int peak = s.holders[i].max_holders;
    while (j + 1 < s.holders.size() && s.holders[j + 1].max_holders > s.limit) peak = std::max(peak, s.holders[++j].max_holders);
    const std::int64_t a = s.holders[i].t_us, b = j + 1 < s.holders.size() ? s.holders[j + 1].t_us : s.end_us;
    if (after != INT64_MAX && a > after) episodes.insert(episodes.end(), {a - t0, b - t0, peak});
    i = j;
  }

  // The page's data, one JSON object.
  std::string d = "{\"variant\":" + json_string(s.variant) + ",\"mode\":" + json_string(s.mode) + ",\"seed\":" +
                  std::to_string(s.seed) + ",\"clients\":" + std::to_string(s.clients) + ",\"limit\":" +
                  std::to_string(s.limit) + ",\"timeout_us\":" + std::to_string(timeout_us) + ",\"start_us\":" +
                  std::to_string(t0) + ",\"span\":" + std::to_string(span) + ",\"safety\":" +
                  json_string(to_string(s.safety)) + ",\"liveness\":" + json_string(to_string(s.liveness)) +
                  ",\"max_holders\":" + std::to_string(s.max_holders) + ",\"over_limit_us\":" +
                  std::to_string(s.over_limit_us) + ",\"episode_count\":" + std::to_string(s.episode_count) +
                  ",\"hidden\":" + std::to_string(hidden) + ",\"witness_rows\":" + std::to_string(beyond.size()) +
                  ",\"merge_gap_us\":" + std::to_string(gap) +
                  ",\"bucket_us\":" + std::to_string(s.holders_bucket_us) + ",\"holders\":";
  std::vector<std::int64_t> holders;
  for (const HoldersPoint& p : s.holders) holders.insert(holders.end(), {p.t_us - t0, p.max_holders});
  append_list(d, holders);
  d += ",\"episodes\":";
  append_list(d, episodes);
  d += ",\"stale\":";
  append_list(d, stale);
  d += ",\"server\":[";
  for (std::size_t i = 0; i < server.size(); ++i)
    d += std::string(i ? "," : "") + "[" + json_string(to_string(server[i].kind)) + "," + std::to_string(server[i].a) + "," +
         std::to_string(server[i].b) + "," + json_string(server[i].detail) + "]";
  d += "],\"masters\":" + std::to_string(st.masters > 1 ? st.masters : 0) + ",\"quorum\":" + std::to_string(st.quorum) +
       ",\"master_marks\":[";
  for (std::size_t i = 0; i < masters.size(); ++i)
    d += std::string(i ? "," : "") + "[" + std::to_string(masters[i].master) + "," + json_string(masters[i].kind) + "," +
         std::to_string(masters[i].a) + "," + std::to_string(masters[i].b) + "," + json_string(masters[i].detail) + "]";
  d += "],\"master_clocks\":[";
  for (std::size_t i = 0; st.masters > 1 && i < st.master_clocks.size(); ++i)
    d += std::string(i ? "," : "") + "[" + std::to_string(st.master_clocks[i].first) + "," + fixed(st.master_clocks[i].second, 3) + "]";
  d += "],\"rows\":[";
  bool first = true;
  for (const auto& [id, r] : rows) {
    d += std::string(first ? "" : ",\n") + "{\"id\":" + std::to_string(id) + ",\"offset_ms\":" + fixed(r.offset_ms, 3) +
         ",\"holds\":";
    first = false;
    std::vector<std::int64_t> flat;
    for (const Hold& h : r.holds) flat.insert(flat.end(), {h.a, h.b, h.lease, h.flags, h.count});
    append_list(d, flat);
    d += ",\"pauses\":";
    append_list(d, r.pauses);
    d += ",\"crashes\":";
    append_list(d, r.crashes);
    d += ",\"jumps\":";
    append_list(d, r.jumps);
    d += "}";
  }
  d += "]}";

  write_output_file(html_path, timeline_page(s.variant, d));
}

void write_timeline_html(const std::string& history_path, const std::string& html_path, const Summary& s,
                         int max_clients, std::size_t max_bars) {
  TimelineBuilder timeline(max_clients, history_path);
  HistoryReader reader(history_path);
  Event e;
  while (reader.next(e)) timeline.add(e);
  timeline.write(html_path, s, max_bars);
}

}  // namespace semsim
