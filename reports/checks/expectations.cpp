#include "reports/checks/expectations.h"

#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "reports/checks/summary_csv.h"

namespace semsim {

std::optional<double> figure_number(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (*end != '\0') return std::nullopt;
  return v;
}

namespace {

bool known_metric(const std::string& m) { return find_summary_column(m) != nullptr; }

bool word_metric(const std::string& m) {
  const SummaryColumn* column = find_summary_column(m);
  return column && column->kind == ColumnKind::word;
}

}  // namespace

std::string Expectation::describe() const {
  const char* op = kind == Kind::equal ? " = " : kind == Kind::at_least ? " >= " : kind == Kind::at_most ? " <= " : " trend ";
  return metric + op + value;
}

Expectation parse_expectation(const std::string& key, const std::string& value) {
  Expectation e;
  e.metric = key;
  e.value = value;
  const auto ends = [&](const std::string& suffix) {
    return key.size() > suffix.size() && key.compare(key.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  // A metric whose own name ends in a suffix (none today) still wins: try it whole first.
  if (!known_metric(key)) {
    if (ends("_min")) e.kind = Expectation::Kind::at_least, e.metric = key.substr(0, key.size() - 4);
    else if (ends("_max")) e.kind = Expectation::Kind::at_most, e.metric = key.substr(0, key.size() - 4);
    else if (ends("_trend")) e.kind = Expectation::Kind::trend, e.metric = key.substr(0, key.size() - 6);
  }
  if (!known_metric(e.metric))
    throw std::invalid_argument("unknown metric '" + e.metric + "' (any summary.csv column, with _min, _max or _trend)");
  if (e.kind == Expectation::Kind::trend) {
    if (value != "increasing" && value != "nondecreasing" && value != "constant")
      throw std::invalid_argument("a trend is increasing, nondecreasing or constant, not '" + value + "'");
  } else if ((e.kind != Expectation::Kind::equal || !word_metric(e.metric)) && !figure_number(value)) {
    throw std::invalid_argument("'" + value + "' is not a number (" + e.metric + " is a number)");
  }
  if (value.empty()) throw std::invalid_argument("no value");
  return e;
}

std::map<std::string, std::string> summary_values(const Summary& s) {
  std::map<std::string, std::string> out;
  for (const SummaryColumn& column : summary_columns()) out.emplace(column.name, column.format(s));
  return out;
}

Judgement judge(const Expectation& e, const std::map<std::string, std::string>& values) {
  const auto it = values.find(e.metric);
  const std::string observed = it == values.end() ? "" : it->second;
  const auto o = figure_number(observed), x = figure_number(e.value);
  switch (e.kind) {
    case Expectation::Kind::equal:
      return {o && x ? *o == *x : observed == e.value, observed};
    case Expectation::Kind::at_least:
      return {o && x && *o >= *x, observed};
    case Expectation::Kind::at_most:
      return {o && x && *o <= *x, observed};
    case Expectation::Kind::trend:
      break;
  }
  throw std::logic_error("judge() on a trend expectation");
}

Judgement judge_trend(const Expectation& e, const std::vector<std::string>& observed) {
  std::ostringstream seen;
  bool met = !observed.empty();
  std::optional<double> first, previous;
  for (const auto& v : observed) {
    seen << (seen.tellp() ? " " : "") << (v.empty() ? "n/a" : v);
    const auto x = figure_number(v);
    if (!x) {
      met = false;
      continue;
    }
    if (!first) first = x;
    if (previous && (e.value == "constant" ? *x != *previous : *x < *previous)) met = false;
    previous = x;
  }
  if (e.value == "increasing" && (!first || !previous || *previous <= *first)) met = false;
  return {met, seen.str()};
}

}  // namespace semsim
