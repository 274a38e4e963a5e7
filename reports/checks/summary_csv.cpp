#include "reports/checks/summary_csv.h"

#include <ostream>
#include <sstream>
#include <stdexcept>

#include "reports/checks/exercise.h"
#include "reports/checks/fairness.h"
#include "reports/checks/sweep_metrics.h"
#include "reports/history/output_file.h"
#include "reports/history/text_format.h"

namespace semsim {

std::string_view to_string(Verdict v) {
  switch (v) {
    case Verdict::valid: return "valid";
    case Verdict::invalid: return "invalid";
    case Verdict::unknown: return "unknown";
  }
  return "unknown";
}

namespace {

std::string opt_int(const std::optional<std::int64_t>& v) { return v ? std::to_string(*v) : std::string(); }

// Formatters by the field's type, so that a column's entry names its field once.
template <auto field>
std::string text(const Summary& s) {
  return std::string(s.*field);
}
template <auto field>
std::string integer(const Summary& s) {
  return std::to_string(s.*field);
}
template <auto field>
std::string optional_integer(const Summary& s) {
  return opt_int(s.*field);
}
template <auto field>
std::string ms(const Summary& s) {
  return us_as_ms(s.*field);
}
template <auto field>
std::string optional_ms(const Summary& s) {
  return s.*field ? us_as_ms(*(s.*field)) : std::string();
}
template <auto field, int decimals>
std::string decimal(const Summary& s) {
  return fixed(s.*field, decimals);
}
template <auto field>
std::string yes_no(const Summary& s) {
  return s.*field ? "yes" : "no";
}
template <auto field>
std::string verdict(const Summary& s) {
  return std::string(to_string(s.*field));
}
std::string history_ms(const Summary& s) { return us_as_ms(s.end_us - s.start_us); }
std::string longest_wait_client(const Summary& s) {
  return s.longest_wait_client >= 0 ? std::to_string(s.longest_wait_client) : std::string();
}

// For the printed summary: a name that is not a column is a mistake in this file, not in input.
std::string column_value(const Summary& s, std::string_view name) {
  const SummaryColumn* column = find_summary_column(name);
  if (!column) throw std::logic_error("no summary column '" + std::string(name) + "'");
  return column->format(s);
}

}  // namespace

std::span<const SummaryColumn> summary_columns() {
  using K = ColumnKind;
  using S = Summary;
  constexpr std::string_view run = "reports/DEFINITIONS.md#run-and-throughput";
  constexpr std::string_view instants = "reports/DEFINITIONS.md#instants-and-intervals-holdsh";
  constexpr std::string_view safety = "reports/DEFINITIONS.md#safety";
  constexpr std::string_view outcomes = "reports/DEFINITIONS.md#outcomes";
  constexpr std::string_view fairness = "reports/DEFINITIONS.md#fairness";
  constexpr std::string_view liveness = "reports/DEFINITIONS.md#liveness-livenessh";
  constexpr std::string_view faults = "reports/DEFINITIONS.md#faults-of-redis-itself-checkercpp-holdsh";
  constexpr std::string_view belief = "reports/DEFINITIONS.md#belief-against-server-state-checkercpp-sample-rows";
  constexpr std::string_view exercised = "reports/DEFINITIONS.md#exercised-exerciseh";
  constexpr std::string_view leases = "reports/DEFINITIONS.md#lease-honesty-leasesh";
  // DESIGN.md promises the first 19, in this order; readers may index columns, so new ones go last.
  static constexpr SummaryColumn columns[] = {
      {"variant", K::word, run, text<&S::variant>},
      {"mode", K::word, run, text<&S::mode>},
      {"seed", K::number, run, integer<&S::seed>},
      {"clients", K::number, run, integer<&S::clients>},
      {"limit", K::number, run, integer<&S::limit>},
      {"duration_ms", K::number, run, integer<&S::duration_ms>},
      {"acquires", K::number, outcomes, integer<&S::acquires>},
      {"granted", K::number, outcomes, integer<&S::granted>},
      {"rejected", K::number, outcomes, integer<&S::rejected>},
      {"max_holders", K::number, safety, integer<&S::max_holders>},
      {"over_admission", K::number, safety, integer<&S::over_admission>},
      {"over_limit_ms", K::number, safety, ms<&S::over_limit_us>},
      {"fifo_inversions", K::number, fairness, integer<&S::fifo_inversions>},
      {"jain_index", K::number, fairness, decimal<&S::jain_index, 6>},
      {"acquire_p50_ms", K::number, fairness, optional_ms<&S::acquire_p50_us>},
      {"acquire_p99_ms", K::number, fairness, optional_ms<&S::acquire_p99_us>},
      {"commands", K::number, run, optional_integer<&S::commands>},
      {"commands_per_s", K::number, run, decimal<&S::commands_per_s, 1>},
      {"wall_s", K::number, run, decimal<&S::wall_s, 3>},
      {"unknown", K::number, outcomes, integer<&S::unknown>},
      {"acquire_unknown", K::number, outcomes, integer<&S::acquire_unknown>},
      {"max_possible_holders", K::number, safety, integer<&S::max_possible_holders>},
      {"possible_over_limit_ms", K::number, safety, ms<&S::possible_over_limit_us>},
      {"steals", K::number, safety, integer<&S::steals>},
      {"episodes", K::number, safety, integer<&S::episode_count>},
      {"longest_wait_ms", K::number, fairness, ms<&S::longest_wait_us>},
      {"longest_wait_client", K::number, fairness, longest_wait_client},
      {"skew_success_correlation", K::number, fairness, decimal<&S::skew_success_correlation, 6>},
      {"skew_success_slope", K::number, fairness, decimal<&S::skew_success_slope, 6>},
      {"liveness_gaps", K::number, liveness, integer<&S::liveness_gaps>},
      {"longest_no_grant_ms", K::number, liveness, ms<&S::longest_no_grant_us>},
      {"liveness_bound_ms", K::number, liveness, ms<&S::liveness_bound_us>},
      {"events", K::number, outcomes, integer<&S::events>},
      {"history_ms", K::number, instants, history_ms},
      {"status", K::word, run, text<&S::status>},
      {"safety", K::word, safety, verdict<&S::safety>},
      {"liveness", K::word, liveness, verdict<&S::liveness>},
      {"samples", K::number, belief, integer<&S::samples>},
      {"stale_samples", K::number, belief, integer<&S::stale_samples>},
      {"max_stale", K::number, belief, integer<&S::max_stale>},
      {"server_faults", K::number, faults, integer<&S::server_faults>},
      {"lost_permits", K::number, faults, optional_integer<&S::lost_permits>},
      {"operations", K::number, run, integer<&S::operations>},
      {"exercised", K::word, exercised, yes_no<&S::exercised>},
      {"broken_leases", K::number, leases, integer<&S::broken_leases>},
  };
  return columns;
}

const SummaryColumn* find_summary_column(std::string_view name) {
  for (const SummaryColumn& column : summary_columns())
    if (column.name == name) return &column;
  return nullptr;
}

std::string summary_csv_header() {
  std::string h;
  for (const SummaryColumn& column : summary_columns()) {
    if (!h.empty()) h.push_back(',');
    h.append(column.name);
  }
  return h;
}

std::string summary_csv_row(const Summary& s) {
  std::string r;
  // A comma before every column but the first, even after empty fields: a history without
  // variant= or mode= must still give a row as wide as the header.
  bool first = true;
  for (const SummaryColumn& column : summary_columns()) {
    if (!first) r.push_back(',');
    first = false;
    append_csv_field(r, column.format(s));
  }
  return r;
}

// The run's speed lives apart from summary.csv: it depends on the machine, not on the history,
// and `semsim analyze` must give every column of summary.csv back from the history alone.
void write_throughput_csv(const std::string& path, const Summary& s) {
  std::ostringstream out;
  out << "wall_s,commands,commands_per_s,operations,operations_per_s,round_trips,round_trips_per_s,speed_x\n"
      << fixed(s.wall_s, 3) << ',' << opt_int(s.commands) << ',' << fixed(s.commands_per_s, 1) << ',' << s.operations
      << ',' << fixed(s.operations_per_s, 1) << ',' << opt_int(s.round_trips) << ',' << fixed(s.round_trips_per_s, 1)
      << ',' << fixed(s.speed_x, 2) << '\n';
  write_output_file(path, out.str());
}

void write_summary_csv(const std::string& path, const Summary& s) {
  write_output_file(path, summary_csv_header() + '\n' + summary_csv_row(s) + '\n');
}

std::string sweep_csv_header() {
  std::string h = "parameter,value," + summary_csv_header();
  for (const SweepMetric* m : derived_sweep_metrics()) h += "," + m->name;
  return h;
}

std::string sweep_csv_row(std::string_view parameter, double value, const Summary& s) {
  std::string r = csv_field(parameter) + "," + fixed(value, 6) + "," + summary_csv_row(s);
  for (const SweepMetric* m : derived_sweep_metrics()) r += "," + format_metric(*m, s);
  return r;
}

void print_summary(std::ostream& out, const Summary& s) {
  auto na = [](std::string v) { return v.empty() ? std::string("n/a") : v; };
  auto line = [&](std::string_view key, const std::string& value, std::string_view note = {}) {
    out << "  " << key;
    for (std::size_t i = key.size(); i < 26; ++i) out << ' ';
    out << value;
    if (!note.empty()) out << "   (" << note << ')';
    out << '\n';
  };
  // Every value that is a summary column comes from the table, so that this text and summary.csv
  // cannot disagree; the layout, the notes and "n/a" for an empty value are the printed summary's own.
  auto v = [&](std::string_view name) { return column_value(s, name); };
  auto column = [&](std::string_view name, std::string_view note = {}) { line(name, na(v(name)), note); };
  out << "run      " << v("variant") << ", " << v("mode") << " mode, seed " << v("seed") << ", "
      << v("clients") << " clients, limit " << v("limit") << ", " << v("duration_ms") << " ms; history "
      << v("status") << (s.reason.empty() ? "" : " (" + s.reason + ")") << ", " << v("events")
      << " events over " << v("history_ms") << " ms\n";
  if (!s.exercised) {
    Exercise e;
    e.add(s);
    out << "NOT EXERCISED: " << e.why_not("this history") << "; its verdicts say nothing about the variant\n";
  }
  out << "SAFETY   " << v("safety") << '\n';
  column("max_holders", "limit " + v("limit"));
  column("over_admission");
  column("over_limit_ms");
  column("episodes");
  column("steals");
  if (s.max_possible_holders > s.max_holders) column("max_possible_holders", "counting info acquires");
  if (s.broken_leases > 0) column("broken_leases", "ok'd leases gone before invoke + timeout");
  if (!s.episodes.empty()) {
    const Episode& e = s.episodes.front();
    out << "  first over-admission: " << us_as_ms(e.start_us) << " .. " << us_as_ms(e.end_us)
        << " ms" << (e.open ? " (open at end)" : "") << ", peak " << e.peak_holders
        << " holders; witness:\n";
    // Each holder's own clock beside it: a steal is told by the clocks (client 2 at -10 ms).
    for (const HoldRef& h : e.witness)
      out << "    client " << h.client << " (clock " << (h.clock_offset_us >= 0 ? "+" : "") << us_as_ms(h.clock_offset_us)
          << " ms) holds " << (h.identifier.empty() ? "-" : h.identifier) << " since " << us_as_ms(h.since_us) << " ms\n";
  }
  out << "FAIRNESS\n";
  column("acquires",
         v("granted") + " granted, " + v("rejected") + " rejected, " + v("acquire_unknown") + " unknown");
  column("fifo_inversions");
  column("jain_index");
  column("skew_success_correlation", s.skew_success_correlation
                                         ? "negative: slow clocks win"
                                         : "undefined: " + skew_success(s.per_client).undefined_because);
  column("longest_wait_ms", s.longest_wait_client < 0 ? ""
                                                       : "client " + v("longest_wait_client") +
                                                             (s.longest_wait_open ? ", still waiting" : ""));
  column("acquire_p50_ms");
  column("acquire_p99_ms");
  out << "LIVENESS " << v("liveness") << '\n';
  column("liveness_gaps", "no grant for > " + v("liveness_bound_ms") + " ms while a permit was free");
  // Valid, but only just: a stretch within a tenth of the bound (a library that blocks itself
  // until its lock's ttl runs out reads valid while the bound is ttl + 1 s).
  const bool near_bound = s.liveness_bound_us > 0 && s.longest_no_grant_us <= s.liveness_bound_us &&
                          s.longest_no_grant_us * 10 >= s.liveness_bound_us * 9;
  column("longest_no_grant_ms", near_bound ? "NEAR THE BOUND: within a tenth of " + v("liveness_bound_ms") + " ms" : "");
  line("unknown outcomes", v("unknown"));
  if (s.samples > 0) {
    out << "BELIEF VS REDIS\n";
    line("stale_samples", v("stale_samples") + " of " + v("samples"),
         "samples where a client believed in a permit Redis no longer counted");
    column("max_stale");
  }
  if (s.server_faults > 0) {
    out << "REDIS FAULTS\n";
    column("server_faults", "restarts, failovers, dropped connections, pauses");
    column("lost_permits", "held permits whose grant Redis lost in a fault");
  }
  out << "THROUGHPUT\n";
  column("commands");
  column("commands_per_s");
  column("wall_s");
  column("operations", "acquire, release and refresh outcomes");
  // Not summary columns: they depend on the machine, not on the history (throughput.csv).
  line("operations_per_s", na(fixed(s.operations_per_s, 1)));
  line("round_trips", na(opt_int(s.round_trips)), "pipelines sent to Redis and answered");
  line("round_trips_per_s", na(fixed(s.round_trips_per_s, 1)));
  line("speed_x", na(fixed(s.speed_x, 2)), "simulated seconds per wall-clock second");
}

}  // namespace semsim
