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
  return checker.finish(stats);
}

}  // namespace semsim
