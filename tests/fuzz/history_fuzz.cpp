// history.csv: the reader and the whole checker (what `semsim analyze` does).
#include "fuzz_input.h"
#include "reports/history/history_error.h"
#include "reports/outputs/analysis.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    semsim::analyze_history(semsim::fuzz::as_file(data, size, "history.csv"));
  } catch (const semsim::HistoryError&) {
  }
  return 0;
}
