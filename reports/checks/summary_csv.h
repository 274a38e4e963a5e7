// summary.csv: one header line, one row per run. The first 19 columns are the ones DESIGN.md
// promises; the rest are ours (see DEFINITIONS.md). Numbers have fixed decimals (ms: 3, ratios:
// 6, wall_s: 3, commands_per_s: 1); an undefined value is an empty field.
#pragma once

#include <iosfwd>
#include <span>
#include <string>
#include <string_view>

#include "reports/checks/summary.h"

namespace semsim {

// `--expect` compares a word column as text; every other column only as a number.
enum class ColumnKind { number, word };

// One column of summary.csv, declared once so that the header, the row, the printed summary and
// `--expect` cannot disagree on a column's name, place or format.
struct SummaryColumn {
  std::string_view name;
  ColumnKind kind;
  // "reports/DEFINITIONS.md#ANCHOR", the section that defines the column (a test resolves it),
  // so that a column cannot be added without saying what it means.
  std::string_view defined_in;
  std::string (*format)(const Summary&);  // "" when undefined in this run
};

// In summary.csv's order.
std::span<const SummaryColumn> summary_columns();
const SummaryColumn* find_summary_column(std::string_view name);  // nullptr if there is none

std::string summary_csv_header();
std::string summary_csv_row(const Summary& s);
// Writes header + row (truncating `path`). Throws std::runtime_error if it cannot.
void write_summary_csv(const std::string& path, const Summary& s);
// throughput.csv: the run's speed on this machine (wall_s, commands, operations and round trips
// with their rates per wall second, speed_x), which no history holds. Throws as above.
void write_throughput_csv(const std::string& path, const Summary& s);

// A sweep (semsim compare): header "parameter,value," + the summary header + the derived
// metrics of reports/checks/sweep_metrics.h (over_admitting, ...); one row per run.
std::string sweep_csv_header();
std::string sweep_csv_row(std::string_view parameter, double value, const Summary& s);

// The human-readable table: run, safety with the first episode's witness, fairness, liveness.
void print_summary(std::ostream& out, const Summary& s);

}  // namespace semsim
