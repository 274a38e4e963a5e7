// What the source articles promise each variant of a sweep, and the points of the sweep outside
// that promise: a variant's preconditions (algorithms/registry.h), judged on each point's options
// as `semsim check` judges a case (sim/search/run_preconditions.h). report.html and the comparison
// charts mark those points, so that an over-admission there reads as what the promise excludes,
// not as a defect ("lua" with a 50 ms hold under a 50 ms timeout).
#pragma once

#include <map>
#include <string>
#include <vector>

namespace semsim {

struct VariantPromise {
  std::string variant;
  bool promised = false;  // false: it promises nothing (basic), at no point
  std::string text;       // its preconditions in one line
  std::map<double, std::string> outside;  // swept value -> why it is outside ("hold 50ms >= lease 50ms")
};

// The reason `variant` is outside its promise at `value`; null when it is inside, or not judged.
inline const std::string* outside_promise(const std::vector<VariantPromise>& promises, const std::string& variant,
                                          double value) {
  for (const VariantPromise& p : promises)
    if (p.variant == variant) {
      const auto it = p.outside.find(value);
      return it == p.outside.end() ? nullptr : &it->second;
    }
  return nullptr;
}

}  // namespace semsim
