// The run's own rows in history.csv, so a history file alone is enough to analyze it.
//   first row: seq=0, op=run phase=info client=0, detail = the run's options as key=value pairs
//              (variant mode seed clients limit duration_ms timeout_ms ...; limit is required
//              by the checker unless given to it explicitly).
//   last row of a finished run: op=run phase=ok,   detail "commands=N wall_s=S"
//                   interrupted or Redis failed: op=run phase=fail, detail "reason=... commands=N wall_s=S"
//   no last row: the process died (the summary's status says "incomplete").
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "reports/history/event.h"
#include "reports/history/key_values.h"

namespace semsim {

// What a run row may say: the bounds the command line puts on the same options (`--clients`,
// `--limit`, durations: sim/scenario/run_options_io.cpp, sim/core/duration.h; a test holds them
// equal). A history outside them was not written by a run, and the checker refuses it rather
// than judge it with a value that its arithmetic (int limits, ms -> us) cannot hold.
inline constexpr std::int64_t kMaxRunClients = 1'000'000;
inline constexpr std::int64_t kMaxRunLimit = 1'000'000;
inline constexpr std::int64_t kMaxRunDurationMs = 360'000'000;  // 100 hours
inline constexpr std::int64_t kMaxRunMasters = 9;                // --masters 1..9

// true_us and client_us lie within +-kMaxHistoryUs (about 73,000 years): the difference of two
// instants, plus a timeout, stays inside 64 bits. The reader refuses a row outside.
inline constexpr std::int64_t kMaxHistoryUs = std::int64_t{1} << 61;

Event run_start_event(std::uint64_t seq, std::int64_t true_us, const KeyValues& options);

// `failure_reason` set: the run did not finish normally (phase fail).
// wall_s is optional so that a deterministic (virtual-mode) history can leave it out.
Event run_end_event(std::uint64_t seq, std::int64_t true_us, std::int64_t commands,
                    const std::optional<std::string>& failure_reason = std::nullopt,
                    std::optional<double> wall_s = std::nullopt);

}  // namespace semsim
