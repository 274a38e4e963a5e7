#include "sim/scenario/situation.h"

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "sim/core/client_spec.h"

namespace semsim {

namespace fs = std::filesystem;

Situation load_situation(const std::string& path) {
  const Scenario sc = load_scenario(path);
  if (sc.variants.size() != 1 || !sc.sweep_option.empty() || !sc.expectations.empty())
    throw InputError(path + ": a situation is one run: no variants, sweep or [expect] (its verdict is the card's)");
  Situation s;
  s.name = sc.name;
  s.path = path;
  s.plan = sc.runs.front();
  s.rules.defect = parse_rule("live_lease_over_admission > 0 or liveness = invalid");
  s.rules.lease_limit = parse_rule("over_admission > 0");
  s.rules.staged = parse_rule("granted >= 1");
  for (const Scenario::Key& key : sc.conformance) {
    try {
      if (key.name == "situation") s.title = key.value;
      else if (key.name == "correct") s.correct = key.value;
      else if (key.name == "staged") s.rules.staged = parse_rule(key.value);
      else if (key.name == "defect") s.rules.defect = parse_rule(key.value);
      else if (key.name == "lease_limit") s.rules.lease_limit = parse_rule(key.value);
      else throw std::invalid_argument("unknown key (situation, correct, staged, defect, lease_limit)");
    } catch (const std::invalid_argument& e) {
      throw InputError(key.where + ": conformance." + key.name + ": " + e.what());
    }
  }
  if (s.title.empty() || s.correct.empty())
    throw InputError(path + ": [conformance] must say `situation = ...` and `correct = ...`");
  return s;
}

std::vector<Situation> load_catalogue(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw InputError(dir + ": no such folder of situations");
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.path().extension() == ".ini" && entry.is_regular_file()) files.push_back(entry.path().string());
  std::vector<Situation> out;
  for (const std::string& f : files) out.push_back(load_situation(f));
  if (out.empty()) throw InputError(dir + ": no situation (*.ini) in it");
  std::sort(out.begin(), out.end(), [](const Situation& a, const Situation& b) {
    return std::pair(a.plan.masters > 1, a.name) < std::pair(b.plan.masters > 1, b.name);
  });
  return out;
}

}  // namespace semsim
