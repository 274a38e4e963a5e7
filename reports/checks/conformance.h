// The conformance card's judgement of one cell: a library in a situation (docs/conformance.md).
// A situation (scenarios/conformance/*.ini) says, as rules over the run's figures (summary.csv's
// columns, live_lease_over_admission, late_grants: reports/DEFINITIONS.md), when it was staged,
// when what happened is a defect (a correct library avoids it) and when a lease limit (no lease
// lock avoids it without fencing). A rule is conditions joined by `and`, alternatives by `or`
// (`and` first); a condition is `METRIC OP VALUE`, OP one of < <= = != >= > (numbers compare
// numerically, words as text); `never` is a rule that never holds.
//
//   staged = granted >= 2
//   defect = live_lease_over_admission > 0 or liveness = invalid
#pragma once

#include <map>
#include <string>
#include <vector>

namespace semsim {

struct Condition {
  enum class Op { less, at_most, equal, not_equal, at_least, more };
  std::string metric, value;
  Op op = Op::equal;
  std::string describe() const;  // "granted >= 2"
};

struct Rule {
  std::vector<std::vector<Condition>> any_of;  // each: all of these; empty: never
  std::string text;                            // as written
};

// Throws std::invalid_argument saying what is wrong (an unknown metric, a missing value, ...).
Rule parse_rule(const std::string& text);

using Figures = std::map<std::string, std::string>;  // a run's figures by name

// Whether it holds; `why` gets the alternative that held (or the first that failed), with what was
// observed: "granted >= 2 (observed 1)".
bool holds(const Rule& rule, const Figures& figures, std::string* why = nullptr);

// The names a condition may use: summary.csv's columns and the card's own.
bool is_figure_name(const std::string& name);

enum class CellVerdict { holds, lease_limit, defect, not_staged, not_applicable, not_run };
// "holds", "lease limit", "defect", "not staged", "n/a", "not run" (a card interrupted before it)
std::string_view to_string(CellVerdict v);

struct Cell {
  CellVerdict verdict = CellVerdict::not_staged;
  std::string why;  // one line: the condition met and its witness
};

struct SituationRules {
  Rule staged, defect, lease_limit;
};

// Not staged unless the run exercised the variant, went as planned (`as_planned`) and met
// `staged`; then a defect if `defect` holds, a lease limit if `lease_limit` does, else it holds.
// `witness` is added to a defect's or lease limit's why.
Cell classify(const SituationRules& rules, const Figures& figures, const std::string& defect_witness,
              const std::string& limit_witness);

}  // namespace semsim
