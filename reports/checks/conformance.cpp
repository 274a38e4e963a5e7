#include "reports/checks/conformance.h"

#include <optional>
#include <sstream>
#include <stdexcept>

#include "reports/checks/expectations.h"
#include "reports/checks/summary_csv.h"

namespace semsim {

namespace {

struct OpName {
  Condition::Op op;
  std::string_view text;
};
constexpr OpName kOps[] = {{Condition::Op::less, "<"},       {Condition::Op::at_most, "<="},
                           {Condition::Op::equal, "="},      {Condition::Op::not_equal, "!="},
                           {Condition::Op::at_least, ">="},  {Condition::Op::more, ">"}};

bool compare_figure(const Condition& c, const std::string& observed) {
  using Op = Condition::Op;
  const auto o = figure_number(observed), x = figure_number(c.value);
  if (o && x) {
    switch (c.op) {
      case Op::less: return *o < *x;
      case Op::at_most: return *o <= *x;
      case Op::equal: return *o == *x;
      case Op::not_equal: return *o != *x;
      case Op::at_least: return *o >= *x;
      case Op::more: return *o > *x;
    }
  }
  if (c.op == Op::equal) return observed == c.value;
  if (c.op == Op::not_equal) return observed != c.value;
  return false;  // an order between words, or a figure missing (n/a): not met
}

std::string observed_text(const Condition& c, const Figures& figures) {
  const auto f = figures.find(c.metric);
  return c.describe() + " (observed " + (f == figures.end() || f->second.empty() ? "n/a" : f->second) + ")";
}

}  // namespace

std::string Condition::describe() const {
  for (const OpName& o : kOps)
    if (o.op == op) return metric + " " + std::string(o.text) + " " + value;
  return metric;
}

bool is_figure_name(const std::string& name) {
  return find_summary_column(name) || name == "live_lease_over_admission" || name == "late_grants" ||
         name == "unanswered_acquires" || name == "as_planned";
}

Rule parse_rule(const std::string& text) {
  Rule rule;
  rule.text = text;
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  if (words.size() == 1 && words[0] == "never") return rule;
  if (words.empty()) throw std::invalid_argument("no condition (METRIC OP VALUE, joined by and / or; or never)");
  rule.any_of.emplace_back();
  for (std::size_t i = 0; i < words.size();) {
    if (i + 3 > words.size())
      throw std::invalid_argument("'" + text + "': a condition is METRIC OP VALUE (e.g. granted >= 2)");
    Condition c;
    c.metric = words[i];
    if (!is_figure_name(c.metric))
      throw std::invalid_argument("'" + c.metric + "' is not a figure (a summary.csv column, live_lease_over_admission, "
                                  "late_grants, unanswered_acquires or as_planned)");
    bool known = false;
    for (const OpName& o : kOps)
      if (words[i + 1] == o.text) {
        c.op = o.op;
        known = true;
      }
    if (!known) throw std::invalid_argument("'" + words[i + 1] + "' is not a comparison (<, <=, =, !=, >=, >)");
    c.value = words[i + 2];
    rule.any_of.back().push_back(c);
    i += 3;
    if (i == words.size()) break;
    if (words[i] == "or") rule.any_of.emplace_back();
    else if (words[i] != "and") throw std::invalid_argument("'" + words[i] + "': conditions are joined by and / or");
    if (++i == words.size()) throw std::invalid_argument("'" + text + "' ends with and / or");
  }
  return rule;
}

bool holds(const Rule& rule, const Figures& figures, std::string* why) {
  std::string first_failure;
  for (const auto& all : rule.any_of) {
    std::string met, failed;
    for (const Condition& c : all) {
      const auto f = figures.find(c.metric);
      if (f != figures.end() && compare_figure(c, f->second)) {
        met += (met.empty() ? "" : ", ") + observed_text(c, figures);
      } else {
        failed = observed_text(c, figures);
        break;
      }
    }
    if (failed.empty()) {
      if (why) *why = met;
      return true;
    }
    first_failure += (first_failure.empty() ? "" : "; nor ") + failed;
  }
  if (why) *why = rule.any_of.empty() ? "never" : first_failure;
  return false;
}

std::string_view to_string(CellVerdict v) {
  switch (v) {
    case CellVerdict::holds: return "holds";
    case CellVerdict::lease_limit: return "lease limit";
    case CellVerdict::defect: return "defect";
    case CellVerdict::not_staged: return "not staged";
    case CellVerdict::not_applicable: return "n/a";
    case CellVerdict::not_run: return "not run";
  }
  return "n/a";
}

Cell classify(const SituationRules& rules, const Figures& figures, const std::string& defect_witness,
              const std::string& limit_witness) {
  const auto figure = [&](const std::string& name) {
    const auto f = figures.find(name);
    return f == figures.end() ? std::string() : f->second;
  };
  if (figure("exercised") != "yes") return {CellVerdict::not_staged, "the library was not exercised (no grant, or most operations unknown)"};
  if (figure("as_planned") == "no") return {CellVerdict::not_staged, "the plan did not happen as written: " + figure("off_plan")};
  std::string why;
  if (!holds(rules.staged, figures, &why)) return {CellVerdict::not_staged, "the situation did not happen: " + why};
  const auto with = [](std::string why, const std::string& witness) {
    return witness.empty() ? why : why + "; " + witness;
  };
  if (holds(rules.defect, figures, &why)) return {CellVerdict::defect, with(why, defect_witness)};
  if (holds(rules.lease_limit, figures, &why)) return {CellVerdict::lease_limit, with(why, limit_witness)};
  std::string granted = figure("granted"), over = figure("over_admission");
  return {CellVerdict::holds, granted + " grant(s), at most " + figure("max_holders") + " holder(s)" +
                                  (over != "0" && !over.empty() ? " (past a lapsed lease, as staged)" : "")};
}

}  // namespace semsim
