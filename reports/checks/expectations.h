// Expectations on a run's summary, as scenario files and `semsim run --expect` state them:
//   over_admission = 1        the value, exactly (numbers compare numerically, words as text)
//   over_admission_max = 0    at most
//   granted_min = 100         at least
//   over_admission_trend = increasing   across a sweep's points: never down, and up overall
//                                      (also: nondecreasing, constant)
// METRIC is any column of summary.csv (reports/DEFINITIONS.md).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "reports/checks/summary.h"

namespace semsim {

struct Expectation {
  enum class Kind { equal, at_least, at_most, trend };
  std::string metric;
  Kind kind = Kind::equal;
  std::string value;
  std::string variant;  // "" for every variant of the scenario
  std::string where;    // FILE:LINE, for messages

  std::string describe() const;  // "over_admission <= 0"
};

// Parses "METRIC[_min|_max|_trend]" = value. Throws std::invalid_argument on an unknown metric or
// a malformed value.
Expectation parse_expectation(const std::string& key, const std::string& value);

// A figure's text as a number when it is one, whole ("12", "0.5"; not "", "n/a", "12ms").
std::optional<double> figure_number(const std::string& text);

// The summary's figures by summary.csv column name.
std::map<std::string, std::string> summary_values(const Summary& s);

struct Judgement {
  bool met = false;
  std::string observed;
};
// One run's value against a non-trend expectation.
Judgement judge(const Expectation& e, const std::map<std::string, std::string>& values);
// A trend expectation across a sweep's values, in sweep order.
Judgement judge_trend(const Expectation& e, const std::vector<std::string>& observed);

}  // namespace semsim
