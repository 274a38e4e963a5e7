// A long test's budget (cases, runs): the default suite (ctest -LE long, ./bootstrap test) runs it at
// a smaller one that still finds what the test is there to find; the `long` label runs it again at
// its full budget (SEMSIM_TEST_BUDGET=full, set by tests/CMakeLists.txt: ./bootstrap test-all, CI).
#pragma once

#include <cstdlib>
#include <string_view>

namespace semsim {

inline bool full_test_budget() {
  const char* budget = std::getenv("SEMSIM_TEST_BUDGET");
  return budget != nullptr && std::string_view(budget) == "full";
}

template <class T>
T test_budget(T smaller, T full) {
  return full_test_budget() ? full : smaller;
}

}  // namespace semsim
