// The source articles' promise judged on one run's options rather than on a generated case: what
// `semsim compare` marks on report.html, a point of a sweep outside its variant's preconditions
// ("lua" over-admitting with a 50 ms hold under a 50 ms timeout is no defect of lua). The
// definition is `semsim check`'s (scenario_gen.h: broken_preconditions): the run is written as the
// case that bounds every draw it can make (each distribution at its least and its most, clients'
// clocks at both ends of their spread, rates of pauses and faults as such, its scripted actions),
// and judged as a case is.
#pragma once

#include <string>
#include <vector>

#include "reports/outputs/sweep_report.h"
#include "sim/core/client_spec.h"
#include "sim/core/run_options.h"

namespace semsim {

struct RunPromise {
  bool promised = false;            // the variant has preconditions at all (basic has none)
  std::string text;                 // them, in one line (algorithms/registry.h)
  std::vector<std::string> broken;  // each one the run breaks, said as `check` says it; empty: kept
};

// `o.variant`'s preconditions against the run of `o` with `inputs` (its clients, actions and
// masters files). A draw without a largest value (normal:, exp:) where a kept precondition bounds
// it is named as such: "hold exp:50ms has no largest draw".
RunPromise run_preconditions(const RunOptions& o, const RunInputs& inputs);

// Into `p` (the same variant's): the point `value` as judged (its reasons in one line, "; " apart).
void note_point(VariantPromise& p, double value, const RunPromise& judged);

// The variants' promises at each point of a merged sweep (semsim merge), judged on each point's
// first run from its run.ini (the runs' folders are relative to `out`); a point whose run.ini is
// not there, or no longer reads, is left unjudged (its run still counts, unmarked).
std::vector<VariantPromise> promises_of_runs(const std::vector<RunVerdict>& runs, const std::string& out);

}  // namespace semsim
