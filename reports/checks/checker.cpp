#include "reports/checks/checker.h"

#include <stdexcept>

#include "marks/coverage_marks.h"
#include "reports/checks/exercise.h"
#include "reports/checks/fairness.h"
#include "reports/history/key_values.h"
#include "reports/history/run_rows.h"

namespace semsim {

namespace {
// Client ids index vectors; a bigger id is a corrupt row, not a client.
constexpr int kMaxClientId = 10'000'000;
constexpr std::int64_t kDefaultLivenessBoundUs = 10'000'000;
// For messages: as the history file has it (line breaks are spaces there), and not a page long.
std::string one_line(std::string text) {
  if (text.empty()) return "(no detail)";
  for (char& c : text)
    if (c == '\n' || c == '\r') c = ' ';
  if (text.size() > 300) text = text.substr(0, 300) + "...";
  return text;
}

}  // namespace

Checker::Checker(CheckOptions options)
    : options_(options),
      holds_(options.limit.value_or(0), options.max_episodes_kept, options.holders_points),
      liveness_(options.liveness_bound_us.value_or(kDefaultLivenessBoundUs)) {
  if (options_.limit) {
    meta_.limit = *options_.limit;
    have_limit_ = true;
  }
}

Checker::Row& Checker::new_client(int id) {
  if (id < 0 || id > kMaxClientId)
    throw HistoryError("client id " + std::to_string(id) + " is out of range 0.." +
                       std::to_string(kMaxClientId));
  rows_.resize(static_cast<std::size_t>(id) + 1);
  // The rows may have moved: the trackers look at them again.
  Row* first = rows_.data();
  fifo_.view_clients(&first->fifo, sizeof(Row), rows_.size());
  waits_.view_clients(&first->waits, sizeof(Row), rows_.size());
  liveness_.view_clients(&first->liveness, sizeof(Row), rows_.size());
  leases_.view_clients(&first->leases, sizeof(Row), rows_.size());
  return rows_[static_cast<std::size_t>(id)];
}

void Checker::read_run_row(const Event& e) {
  KeyValues kv;
  try {
    kv = KeyValues::parse(e.detail);
  } catch (const std::invalid_argument& err) {
    throw HistoryError(std::string("run row detail: ") + err.what());
  }
  try {
    if (e.phase == Phase::info) {
      // The first row: the run's options.
      if (saw_run_row_ || meta_.events > 1)
        throw HistoryError("a run row with the run's options (phase info) must be the first row, and the only one");
      saw_run_row_ = true;
      // Bounds: a corrupt or hand-edited run row must be refused, not judged. They are the
      // command line's (run_rows.h), so every value fits the arithmetic done on it.
      const auto within = [](const char* key, std::int64_t v, std::int64_t lo, std::int64_t hi) {
        if (v < lo || v > hi)
          throw HistoryError(std::string("run row: ") + key + "=" + std::to_string(v) + " is out of range (" +
                             std::to_string(lo) + ".." + std::to_string(hi) + ", as on the command line)");
        return v;
      };
      if (auto v = kv.get("variant")) meta_.variant = *v;
      driver_ = meta_.variant.starts_with("driver:");
      if (auto v = kv.get("mode")) {
        // The command line's two (--mode): any other was not written by a run, and would be judged
        // as real time without a word.
        if (*v != "virtual" && *v != "paced")
          throw HistoryError("run row: mode=" + *v + " is not a time mode (virtual or paced, as on the command line)");
        meta_.mode = *v;
      }
      leases_.set_exact_instants(meta_.mode.empty() || meta_.mode == "virtual");
      if (auto v = kv.get_uint("seed")) meta_.seed = *v;
      if (auto v = kv.get_int("clients")) meta_.clients = static_cast<int>(within("clients", *v, 1, kMaxRunClients));
      if (auto v = kv.get_int("duration_ms")) meta_.duration_ms = within("duration_ms", *v, 0, kMaxRunDurationMs);
      if (auto v = kv.get_int("timeout_ms")) meta_.timeout_ms = within("timeout_ms", *v, 0, kMaxRunDurationMs);
      if (auto v = kv.get_int("limit")) {
        const int limit = static_cast<int>(within("limit", *v, 1, kMaxRunLimit));
        if (!options_.limit) {
          meta_.limit = limit;
          have_limit_ = true;
          holds_.set_limit(meta_.limit);
        }
      }
      if (auto v = kv.get_int("masters")) masters_ = static_cast<int>(within("masters", *v, 1, kMaxRunMasters));
      if (auto v = kv.get_int("quorum")) quorum_ = static_cast<int>(within("quorum", *v, 1, kMaxRunMasters));
      if (!kv.get("quorum")) quorum_ = masters_ / 2 + 1;
      if (!options_.liveness_bound_us)
        liveness_.set_bound_us(meta_.timeout_ms ? (*meta_.timeout_ms + 1000) * 1000 : kDefaultLivenessBoundUs);
      leases_.set_timeout_us(meta_.timeout_ms ? std::optional<std::int64_t>(*meta_.timeout_ms * 1000) : std::nullopt);
    } else if (e.phase == Phase::ok || e.phase == Phase::fail) {
      // The last row: how the run ended.
      meta_.status = e.phase == Phase::ok ? "complete" : "failed";
      meta_.reason = kv.get("reason").value_or("");
      row_commands_ = kv.get_int("commands");
      row_wall_s_ = kv.get_double("wall_s");
    }
  } catch (const std::invalid_argument& err) {
    throw HistoryError(std::string("run row detail: ") + err.what());
  }
}

// close_instant, advance_to and on_acquire run at almost every event: inlined into add, whose
// one prologue then saves the registers once (callgrind: 60 instructions an event went to the
// four functions' prologues and epilogues). The rows that are not acquires go out of line
// (add_other), which keeps add's own frame small.
[[gnu::always_inline]] inline void Checker::close_instant(HoldTracker& holds, LivenessTracker& liveness) const {
  int n = holds.holders();
  holds.instant_done(now_us_);
  liveness.instant_done(now_us_, n < meta_.limit, waits_.waiting(), granted_now_);
}

[[gnu::always_inline]] inline void Checker::advance_to(const Event& e) {
  if (started_ && (e.true_us < now_us_ || (e.true_us == now_us_ && e.seq <= last_seq_)))
    throw HistoryError("event seq " + std::to_string(e.seq) + " at true_us " +
                       std::to_string(e.true_us) + " comes after seq " + std::to_string(last_seq_) +
                       " at true_us " + std::to_string(now_us_) +
                       ": a history must be sorted by (true_us, seq)");
  if (!started_) {
    started_ = true;
    meta_.start_us = e.true_us;
    now_us_ = e.true_us;
  } else if (e.true_us > now_us_) {
    // Most instants of a history end as the one before did: an invoke, a client refused again.
    // Closing such an instant changes nothing when the last one was decided for liveness (no
    // permit free, or a client waiting) and nothing is held back: the holders counted, the
    // episodes, the steals (no grant) and the liveness stretch all stay as they are.
    const InstantEnd end{holds_.holders(), holds_.possible_only(), waits_.waiting()};
    if (end == last_closed_ && !granted_now_ && liveness_.all_judged() && (end.holders >= meta_.limit || end.waiting > 0)) {
      holds_.instant_repeated(now_us_);
    } else {
      close_instant(holds_, liveness_);
      last_closed_ = end;
    }
    granted_now_ = false;
    now_us_ = e.true_us;
  }
  last_seq_ = e.seq;
  ++meta_.events;
}

void Checker::add(const Event& e) {
  advance_to(e);
  if (e.op == Op::acquire && have_limit_) {  // most rows, inline; the others out of line
    on_acquire(e, client(e.client));  // first: a client id out of range is refused here
    return;
  }
  add_other(e);
}

// An acquire, release or refresh row: one outcome, one operation.
[[gnu::always_inline]] inline void Checker::count_operation(const Event& e) {
  if (e.phase != Phase::invoke) ++meta_.operations;
  if (e.phase == Phase::info) {
    ++meta_.unknown;
    if (meta_.first_unknown.empty()) meta_.first_unknown = one_line(e.detail);
  }
}

void Checker::add_other(const Event& e) {
  if (e.op == Op::run) {
    read_run_row(e);
    return;
  }
  if (!have_limit_)
    throw HistoryError("no limit known at seq " + std::to_string(e.seq) +
                       ": the first row must be a run row with limit=N (or pass the limit)");
  ClientState& c = client(e.client).state;  // first: a client id out of range is refused here
  if (e.op == Op::release || e.op == Op::refresh) {
    count_operation(e);
    leases_.add(e);
  }
  switch (e.op) {
    case Op::release:  // the invoke ends the hold of the permit it names
      if (e.phase == Phase::invoke) holds_.end(e.client, e.identifier);
      if (e.phase == Phase::invoke && masters_ > 1) votes_.ended(e.client, e.identifier);
      break;
    case Op::refresh:
      if (e.phase == Phase::fail) holds_.end(e.client, e.identifier);
      if (masters_ > 1 && e.phase == Phase::fail) votes_.ended(e.client, e.identifier);
      if (masters_ > 1 && e.phase == Phase::ok && !driver_) on_votes(e);
      break;
    case Op::crash:  // every permit of the client and every acquire it had pending end
      holds_.crashed(e.client);
      if (masters_ > 1) votes_.crashed(e.client);
      leases_.crashed(e.client);
      waits_.crashed(e.client, e.true_us);
      liveness_.crashed(e.client);
      fifo_.crashed(e.client);
      if (c.pending > 1) later_invokes_.erase(e.client);
      c.pending = 0;
      break;
    case Op::done:
      waits_.stopped_wanting(e.client, e.true_us);
      break;
    case Op::sample:
      on_sample(e);
      break;
    case Op::redis_restart:
    case Op::failover:
    case Op::disconnect:
    case Op::redis_pause:
      on_server_fault(e);
      break;
    case Op::pause:  // a paused client still holds: nothing changes
    case Op::resume:
    case Op::jump:  // the offset shows in client_us of later rows
    case Op::server_jump:  // a fault of Redis's clock: what it did shows in later outcomes
    case Op::lease:  // what Redis held of a permit: lease honesty
      leases_.add(e);
      break;
    case Op::partition:    // cut links: what they did shows in later outcomes
    case Op::heal:
    case Op::run:
    case Op::acquire:  // add's (with the limit known: without, refused above)
      break;
  }
}

// The trackers get the client's parts of its row (the row is checked to hold the client).
[[gnu::always_inline]] inline void Checker::on_acquire(const Event& e, Row& row) {
  ClientState& c = row.state;
  count_operation(e);
  leases_.add_acquire(e, row.leases);
  const std::int64_t t = e.true_us;
  if (e.phase == Phase::invoke) {
    ++meta_.acquires;
    ++c.attempts;
    if (c.pending++ == 0) c.invoke_us = t;
    else later_invoke(e.client, t);
    c.offset_sum_us += static_cast<double>(e.client_us) - static_cast<double>(t);
    fifo_.invoked(row.fifo, e.client, static_cast<std::uint64_t>(c.attempts), t);
    liveness_.acquire_invoked(row.liveness, e.client, t, row.waits.waiting);
    return;
  }
  // The outcome of the client's earliest pending acquire. One without a recorded invoke (a
  // truncated start) counts, without a latency.
  const bool paired = c.pending > 0;
  const std::int64_t invoke_us = paired ? take_invoke(c, e.client) : t;
  if (e.phase == Phase::ok) {
    ++meta_.granted;
    ++c.granted;
    holds_.grant(e.client, t, e.identifier, e.client_us - e.true_us);
    if (masters_ > 1 && !driver_) on_votes(e);
    waits_.granted(e.client, t);
    liveness_.acquire_settled(row.liveness);
    granted_now_ = true;
    if (paired) {
      latency_.add(t - invoke_us);
      fifo_.admitted(e.client, invoke_us);
    }
  } else if (e.phase == Phase::fail) {
    ++meta_.rejected;
    ++c.rejected;
    const bool starts_wait = !row.waits.waiting;
    if (paired) {
      latency_.add(t - invoke_us);
      fifo_.rejected(row.fifo, e.client, invoke_us, t);
    }
    waits_.rejected(row.waits, invoke_us);
    liveness_.acquire_refused(row.liveness, invoke_us, starts_wait);
  } else {  // info: may have been granted
    ++meta_.acquire_unknown;
    ++c.unknown;
    holds_.possible(e.client);
    liveness_.acquire_settled(row.liveness);
    if (paired) fifo_.abandoned(e.client);
  }
}

void Checker::later_invoke(int client, std::int64_t t_us) {
  later_invokes_[client].push_back(t_us);
}

void Checker::next_invoke(ClientState& c, int client) {
  std::deque<std::int64_t>& later = later_invokes_[client];
  c.invoke_us = later.front();
  later.pop_front();
  if (later.empty()) later_invokes_.erase(client);
}

// detail "admitted=A believers=B stale=S": S clients believed they held a permit that was not
// among the first `limit` members of the variant's admission set.
void Checker::on_sample(const Event& e) {
  std::int64_t n = 0;
  try {
    n = KeyValues::parse(e.detail).get_int("stale").value_or(0);
  } catch (const std::invalid_argument& err) {
    throw HistoryError("seq " + std::to_string(e.seq) + ": sample row: " + err.what());
  }
  ++meta_.samples;
  if (n > 0) ++meta_.stale_samples;
  meta_.max_stale = std::max(meta_.max_stale, static_cast<int>(n));
}

// detail lost_since_us=X when Redis came back without the writes made from X on (down_us=D: it
// came back D later): the permits granted since then (and not yet timed out) vanished under their
// holders. With several masters (master=K) a permit is lost when its votes fall below the quorum.
void Checker::on_server_fault(const Event& e) {
  ++meta_.server_faults;
  std::optional<std::int64_t> since, down, master;
  try {
    const KeyValues kv = KeyValues::parse(e.detail);
    since = kv.get_int("lost_since_us");
    down = kv.get_int("down_us");
    master = kv.get_int("master");
  } catch (const std::invalid_argument& err) {
    throw HistoryError("seq " + std::to_string(e.seq) + ": " + std::string(to_string(e.op)) + " row: " + err.what());
  }
  if (!since) return;
  if (masters_ > 1 && driver_) {
    // A driver's library does not say on which masters its permits stand: which of them this
    // master's lost writes took below the quorum is unknown (DEFINITIONS.md, "Several masters").
    meta_.lost_permits.reset();
    return;
  }
  const auto timeout_us = meta_.timeout_ms ? std::optional<std::int64_t>(*meta_.timeout_ms * 1000) : std::nullopt;
  const std::int64_t back_us = e.true_us + down.value_or(0);
  const std::int64_t lost = masters_ > 1 && master
                                ? votes_.lose(static_cast<int>(*master), *since, back_us, timeout_us, quorum_)
                                : holds_.granted_since(*since, back_us, timeout_us);
  if (lost > 0) mark(Mark::permit_lost_in_fault);
  if (meta_.lost_permits) *meta_.lost_permits += lost;
}

// The masters an acquire or refresh ok names (granted=, reacquired=).
void Checker::on_votes(const Event& e) {
  try {
    votes_.granted(e.client, e.identifier, e.true_us, e.detail);
  } catch (const std::invalid_argument& err) {
    throw HistoryError("seq " + std::to_string(e.seq) + ": " + std::string(to_string(e.op)) + " ok row: " + err.what());
  }
}

Summary Checker::finish(const RunStats& stats) const {
  Summary s = meta_;
  std::int64_t end_us = started_ ? now_us_ : 0;
  s.end_us = end_us;
  if (started_) {
    HoldTracker holds = holds_;  // close the last instant without disturbing this checker
    LivenessTracker liveness = liveness_;
    close_instant(holds, liveness);
    holds.finish(end_us, s);
    liveness.finish(end_us, s);
  } else {
    holds_.finish(end_us, s);
    liveness_.finish(end_us, s);
  }
  waits_.finish(end_us, s);
  s.fifo_inversions = fifo_.inversions();
  s.broken_leases = leases_.broken();

  for (std::size_t id = 0; id < rows_.size(); ++id) {
    const ClientState& c = rows_[id].state;
    if (c.attempts == 0 && c.granted == 0 && c.rejected == 0) continue;
    const double mean_offset_ms = c.attempts ? c.offset_sum_us / 1000.0 / static_cast<double>(c.attempts) : 0.0;
    s.per_client.push_back({static_cast<int>(id), c.attempts, c.granted, c.rejected, c.unknown, mean_offset_ms});
  }
  s.jain_index = jain_index(s.per_client);
  SkewSuccess skew = skew_success(s.per_client);
  s.skew_success_correlation = skew.correlation;
  s.skew_success_slope = skew.slope_per_ms;

  s.acquire_latency = latency_;
  s.acquire_p50_us = latency_.percentile_us(50);
  s.acquire_p99_us = latency_.percentile_us(99);

  s.commands = stats.commands ? stats.commands : row_commands_;
  s.exercised = exercised(s);
  // A driver's library sent no command to semsim's Redis: whatever a restart "lost" was never on it.
  if (driver_ && s.commands && *s.commands == 0) s.lost_permits.reset();
  s.wall_s = stats.wall_s ? stats.wall_s : row_wall_s_;
  s.round_trips = stats.round_trips;
  if (s.wall_s && *s.wall_s > 0) {
    const double wall = *s.wall_s;
    if (s.commands) s.commands_per_s = static_cast<double>(*s.commands) / wall;
    if (s.round_trips) s.round_trips_per_s = static_cast<double>(*s.round_trips) / wall;
    s.operations_per_s = static_cast<double>(s.operations) / wall;
    s.speed_x = static_cast<double>(s.end_us - s.start_us) / 1e6 / wall;
  }
  return s;
}

}  // namespace semsim
