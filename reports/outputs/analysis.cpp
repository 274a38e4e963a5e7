#include "reports/outputs/analysis.h"

namespace semsim {

Summary analyze_history(const std::string& path, const CheckOptions& options,
                        const RunStats& stats) {
  HistoryReader reader(path);
  Checker checker(options);
  Event e;
  while (reader.next(e)) {
    try {
      checker.add(e);
    } catch (const HistoryError& err) {
      throw HistoryError(reader.where() + err.what());
    }
  }
  // A header alone, or rows without the run's own first row, is not a run's history: judged, it
  // would read "SAFETY valid, limit 0".
  if (!checker.saw_run_row())
    throw HistoryError(path + ": no run row: the first row must be the run's options (op=run, phase=info, "
                       "detail variant=... limit=N ...), as semsim writes it");
  return checker.finish(stats);
}

}  // namespace semsim
