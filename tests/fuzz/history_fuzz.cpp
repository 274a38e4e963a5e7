// history.csv: the reader and the whole checker (what `semsim analyze` does), then the timeline
// drawn from the same file (its arithmetic on instants).
#include "fuzz_input.h"
#include "reports/history/history_error.h"
#include "reports/outputs/analysis.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const std::string path = semsim::fuzz::as_file(data, size, "history.csv");
    const semsim::Summary s = semsim::analyze_history(path);
    semsim::write_timeline_html(path, path + ".html", s);
  } catch (const semsim::HistoryError&) {
  }
  return 0;
}
