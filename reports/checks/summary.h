// What the checker found in one run: a plain value. Every field is defined in
// reports/DEFINITIONS.md; times are true time in microseconds unless the name says otherwise.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "reports/checks/latency.h"

namespace semsim {

enum class Verdict { valid, invalid, unknown };
std::string_view to_string(Verdict v);

// Where an over-admission episode was, and its peak: the timeline jumps to each (no witness).
struct EpisodeSpan {
  std::int64_t start_us = 0, end_us = 0;
  int peak_holders = 0;
  bool operator==(const EpisodeSpan&) const = default;
};

// One hold named in a witness: who, with which semaphore identifier, since when, and how far
// that client's clock was from true time when it was granted (client_us - true_us of the ok).
struct HoldRef {
  int client = 0;
  std::string identifier;
  std::int64_t since_us = 0;
  std::int64_t clock_offset_us = 0;
  bool operator==(const HoldRef&) const = default;
};

// A maximal stretch of true time with more than `limit` certain holders.
struct Episode {
  std::int64_t start_us = 0;
  std::int64_t end_us = 0;   // the end of the history if still open there
  bool open = false;         // still over the limit when the history ended
  int peak_holders = 0;      // the most holders at one instant in the episode
  std::vector<HoldRef> witness;  // limit + 1 holds overlapping at start_us, earliest first
  bool operator==(const Episode&) const = default;
};

struct ClientStats {
  int client = 0;
  std::int64_t attempts = 0;  // acquire invokes
  std::int64_t granted = 0;   // acquire ok
  std::int64_t rejected = 0;  // acquire fail
  std::int64_t unknown = 0;   // acquire info
  double mean_offset_ms = 0;  // mean of (client_us - true_us) at its acquire invokes
  bool operator==(const ClientStats&) const = default;
};

// Holders over time, downsampled: the most certain holders at any instant of
// [t_us, t_us + bucket_us).
struct HoldersPoint {
  std::int64_t t_us = 0;
  int max_holders = 0;
  bool operator==(const HoldersPoint&) const = default;
};

struct Summary {
  // Run metadata (from the run rows of the history).
  std::string variant, mode;
  std::uint64_t seed = 0;
  int clients = 0;
  int limit = 0;
  std::int64_t duration_ms = 0;
  std::optional<std::int64_t> timeout_ms;
  std::string status = "incomplete";  // complete | failed | incomplete (no final run row)
  std::string reason;                 // why a failed run failed

  std::int64_t events = 0;
  std::int64_t start_us = 0, end_us = 0;  // first and last event's true time

  // Outcomes.
  std::int64_t acquires = 0, granted = 0, rejected = 0;
  std::int64_t acquire_unknown = 0;  // acquire info
  std::int64_t unknown = 0;          // info phases of acquire, release and refresh
  std::string first_unknown;         // the detail of the first of them ("error: ERR ..."), for messages
  bool exercised = false;            // exercise.h: a grant, and at most half the operations unknown

  // Safety.
  int max_holders = 0;
  int max_possible_holders = 0;  // counting info acquires as holding
  int over_admission = 0;
  std::int64_t over_limit_us = 0;
  std::int64_t possible_over_limit_us = 0;
  std::int64_t steals = 0;
  std::int64_t episode_count = 0;
  std::vector<Episode> episodes;  // the first CheckOptions::max_episodes_kept of them
  // Every episode's span and peak, up to kMaxEpisodeSpans (24 bytes each): the timeline's jumps.
  std::vector<EpisodeSpan> episode_spans;
  static constexpr std::size_t kMaxEpisodeSpans = 100'000;

  // Fairness.
  std::int64_t fifo_inversions = 0;
  std::optional<double> jain_index;
  std::optional<double> skew_success_correlation;
  std::optional<double> skew_success_slope;  // success-rate change per ms of clock offset
  std::int64_t longest_wait_us = 0;
  int longest_wait_client = -1;
  bool longest_wait_open = false;  // that client was still waiting when the history ended

  // Latency.
  LatencyHistogram acquire_latency;
  std::optional<std::int64_t> acquire_p50_us, acquire_p99_us;

  // Liveness.
  std::int64_t liveness_bound_us = 0;
  std::int64_t liveness_gaps = 0;

  // Belief against server state (sample rows): how often a client believed it held a permit
  // that Redis no longer counted among the first `limit` of its admission set.
  std::int64_t samples = 0;
  std::int64_t stale_samples = 0;  // samples with at least one stale believer
  int max_stale = 0;               // the most stale believers in one sample
  std::int64_t longest_no_grant_us = 0;

  // Faults of Redis itself (redis_restart, failover, disconnect, redis_pause rows), and the
  // permits they took from clients who went on believing they held them.
  std::int64_t server_faults = 0;
  // Empty when a fault lost one master's writes in a driver run over several: no votes to count by.
  std::optional<std::int64_t> lost_permits = 0;

  // Lease honesty (leases.h): ok'd acquires/refreshes whose permit was gone before invoke + timeout.
  std::int64_t broken_leases = 0;

  // Throughput (from the caller or the final run row).
  std::optional<std::int64_t> commands;
  std::optional<double> wall_s;
  std::optional<double> commands_per_s;
  // Outcomes of acquire, release and refresh (ok, fail or info): one each, whatever it took.
  std::int64_t operations = 0;
  std::optional<double> operations_per_s;
  std::optional<std::int64_t> round_trips;  // pipelines sent and answered (the run's statistic)
  std::optional<double> round_trips_per_s;
  std::optional<double> speed_x;  // simulated seconds (the history's span) per wall-clock second

  Verdict safety = Verdict::valid;
  Verdict liveness = Verdict::valid;

  std::vector<ClientStats> per_client;  // clients with at least one acquire, by id
  std::vector<HoldersPoint> holders;    // downsampled series
  std::int64_t holders_bucket_us = 0;

  bool operator==(const Summary&) const = default;
};

}  // namespace semsim
