#include "reports/checks/summary_csv.h"

#include <fstream>
#include <ostream>
#include <stdexcept>

#include "reports/checks/sweep_metrics.h"
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

std::string opt_ms(const std::optional<std::int64_t>& us) { return us ? us_as_ms(*us) : std::string(); }
std::string opt_int(const std::optional<std::int64_t>& v) { return v ? std::to_string(*v) : std::string(); }

}  // namespace

std::string summary_csv_header() {
  return "variant,mode,seed,clients,limit,duration_ms,acquires,granted,rejected,max_holders,"
         "over_admission,over_limit_ms,fifo_inversions,jain_index,acquire_p50_ms,acquire_p99_ms,"
         "commands,commands_per_s,wall_s,"
         "unknown,acquire_unknown,max_possible_holders,possible_over_limit_ms,steals,episodes,"
         "longest_wait_ms,longest_wait_client,skew_success_correlation,skew_success_slope,"
         "liveness_gaps,longest_no_grant_ms,liveness_bound_ms,events,history_ms,status,safety,liveness,"
         "samples,stale_samples,max_stale,server_faults,lost_permits,operations";
}

std::string summary_csv_row(const Summary& s) {
  std::string r;
  auto col = [&](std::string_view v) {
    if (!r.empty()) r.push_back(',');
    append_csv_field(r, v);
  };
  col(s.variant);
  col(s.mode);
  col(std::to_string(s.seed));
  col(std::to_string(s.clients));
  col(std::to_string(s.limit));
  col(std::to_string(s.duration_ms));
  col(std::to_string(s.acquires));
  col(std::to_string(s.granted));
  col(std::to_string(s.rejected));
  col(std::to_string(s.max_holders));
  col(std::to_string(s.over_admission));
  col(us_as_ms(s.over_limit_us));
  col(std::to_string(s.fifo_inversions));
  col(fixed(s.jain_index, 6));
  col(opt_ms(s.acquire_p50_us));
  col(opt_ms(s.acquire_p99_us));
  col(opt_int(s.commands));
  col(fixed(s.commands_per_s, 1));
  col(fixed(s.wall_s, 3));
  col(std::to_string(s.unknown));
  col(std::to_string(s.acquire_unknown));
  col(std::to_string(s.max_possible_holders));
  col(us_as_ms(s.possible_over_limit_us));
  col(std::to_string(s.steals));
  col(std::to_string(s.episode_count));
  col(us_as_ms(s.longest_wait_us));
  col(s.longest_wait_client >= 0 ? std::to_string(s.longest_wait_client) : std::string());
  col(fixed(s.skew_success_correlation, 6));
  col(fixed(s.skew_success_slope, 6));
  col(std::to_string(s.liveness_gaps));
  col(us_as_ms(s.longest_no_grant_us));
  col(std::to_string(s.liveness_bound_ms));
  col(std::to_string(s.events));
  col(us_as_ms(s.end_us - s.start_us));
  col(s.status);
  col(to_string(s.safety));
  col(to_string(s.liveness));
  col(std::to_string(s.samples));
  col(std::to_string(s.stale_samples));
  col(std::to_string(s.max_stale));
  col(std::to_string(s.server_faults));
  col(std::to_string(s.lost_permits));
  col(std::to_string(s.operations));
  return r;
}

// The run's speed lives apart from summary.csv: it depends on the machine, not on the history,
// and `semsim analyze` must give every column of summary.csv back from the history alone.
void write_throughput_csv(const std::string& path, const Summary& s) {
  std::ofstream out(path, std::ios::trunc);
  if (!out) throw std::runtime_error("cannot open " + path + " for writing");
  out << "wall_s,commands,commands_per_s,operations,operations_per_s,round_trips,round_trips_per_s,speed_x\n"
      << fixed(s.wall_s, 3) << ',' << opt_int(s.commands) << ',' << fixed(s.commands_per_s, 1) << ',' << s.operations
      << ',' << fixed(s.operations_per_s, 1) << ',' << opt_int(s.round_trips) << ',' << fixed(s.round_trips_per_s, 1)
      << ',' << fixed(s.speed_x, 2) << '\n';
  if (!out.flush()) throw std::runtime_error("cannot write " + path);
}

void write_summary_csv(const std::string& path, const Summary& s) {
  std::ofstream out(path, std::ios::trunc);
  if (!out) throw std::runtime_error("cannot open " + path + " for writing");
  out << summary_csv_header() << '\n' << summary_csv_row(s) << '\n';
  if (!out.flush()) throw std::runtime_error("cannot write " + path);
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
  out << "run      " << s.variant << ", " << s.mode << " mode, seed " << s.seed << ", "
      << s.clients << " clients, limit " << s.limit << ", " << s.duration_ms << " ms; history "
      << s.status << (s.reason.empty() ? "" : " (" + s.reason + ")") << ", " << s.events
      << " events over " << us_as_ms(s.end_us - s.start_us) << " ms\n";
  out << "SAFETY   " << to_string(s.safety) << '\n';
  line("max_holders", std::to_string(s.max_holders), "limit " + std::to_string(s.limit));
  line("over_admission", std::to_string(s.over_admission));
  line("over_limit_ms", us_as_ms(s.over_limit_us));
  line("episodes", std::to_string(s.episode_count));
  line("steals", std::to_string(s.steals));
  if (s.max_possible_holders > s.max_holders)
    line("max_possible_holders", std::to_string(s.max_possible_holders), "counting info acquires");
  if (!s.episodes.empty()) {
    const Episode& e = s.episodes.front();
    out << "  first over-admission: " << us_as_ms(e.start_us) << " .. " << us_as_ms(e.end_us)
        << " ms" << (e.open ? " (open at end)" : "") << ", peak " << e.peak_holders
        << " holders; witness:\n";
    for (const HoldRef& h : e.witness)
      out << "    client " << h.client << " holds " << (h.identifier.empty() ? "-" : h.identifier)
          << " since " << us_as_ms(h.since_us) << " ms\n";
  }
  out << "FAIRNESS\n";
  line("acquires", std::to_string(s.acquires), std::to_string(s.granted) + " granted, " +
                                                   std::to_string(s.rejected) + " rejected, " +
                                                   std::to_string(s.acquire_unknown) + " unknown");
  line("fifo_inversions", std::to_string(s.fifo_inversions));
  line("jain_index", na(fixed(s.jain_index, 6)));
  line("skew_success_correlation", na(fixed(s.skew_success_correlation, 6)),
       "negative: slow clocks win");
  line("longest_wait_ms", us_as_ms(s.longest_wait_us),
       s.longest_wait_client < 0 ? "" : "client " + std::to_string(s.longest_wait_client) +
                                            (s.longest_wait_open ? ", still waiting" : ""));
  line("acquire_p50_ms", na(opt_ms(s.acquire_p50_us)));
  line("acquire_p99_ms", na(opt_ms(s.acquire_p99_us)));
  out << "LIVENESS " << to_string(s.liveness) << '\n';
  line("liveness_gaps", std::to_string(s.liveness_gaps),
       "no grant for > " + std::to_string(s.liveness_bound_ms) + " ms while a permit was free");
  line("longest_no_grant_ms", us_as_ms(s.longest_no_grant_us));
  line("unknown outcomes", std::to_string(s.unknown));
  if (s.samples > 0) {
    out << "BELIEF VS REDIS\n";
    line("stale_samples", std::to_string(s.stale_samples) + " of " + std::to_string(s.samples),
         "samples where a client believed in a permit Redis no longer counted");
    line("max_stale", std::to_string(s.max_stale));
  }
  if (s.server_faults > 0) {
    out << "REDIS FAULTS\n";
    line("server_faults", std::to_string(s.server_faults), "restarts, failovers, dropped connections, pauses");
    line("lost_permits", std::to_string(s.lost_permits), "held permits whose grant Redis lost in a fault");
  }
  out << "THROUGHPUT\n";
  line("commands", na(opt_int(s.commands)));
  line("commands_per_s", na(fixed(s.commands_per_s, 1)));
  line("wall_s", na(fixed(s.wall_s, 3)));
  line("operations", std::to_string(s.operations), "acquire, release and refresh outcomes");
  line("operations_per_s", na(fixed(s.operations_per_s, 1)));
  line("round_trips", na(opt_int(s.round_trips)), "pipelines sent to Redis and answered");
  line("round_trips_per_s", na(fixed(s.round_trips_per_s, 1)));
  line("speed_x", na(fixed(s.speed_x, 2)), "simulated seconds per wall-clock second");
}

}  // namespace semsim
