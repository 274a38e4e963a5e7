// Reads history.csv with libfccp (io::CSVReader, RFC 4180 double-quote escapes, no trimming).
// The header must name the eight columns (any order). Every error is a HistoryError whose
// message starts with "FILE:LINE:" and names the column, e.g.
//   history.csv:7: column 2 (true_us): "12x" is not an integer
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "reports/history/event.h"
#include "reports/history/history_error.h"
#include "reports/history/history_writer.h"  // kHistoryHeader

namespace semsim {

class HistoryReader {
 public:
  explicit HistoryReader(const std::string& path);  // reads and checks the header
  ~HistoryReader();
  HistoryReader(const HistoryReader&) = delete;
  HistoryReader& operator=(const HistoryReader&) = delete;

  // Fills `e` (reusing its strings' storage: no allocation per row in the steady state).
  // Returns false at the end of the file.
  bool next(Event& e);

  unsigned line() const;  // the physical line of the row last read (header = 1)
  const std::string& path() const;
  // "FILE:LINE: " for messages about the row last read.
  std::string where() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Convenience for small files and tests.
std::vector<Event> read_history(const std::string& path);

}  // namespace semsim
