// Streams history.csv: header first, then one row per Event, in the order given.
// Rows are buffered and written with whole-row write(2) calls every `flush_rows` rows (and on
// flush()/close()/destruction), so a process killed at any moment leaves a file whose content is
// a valid prefix of the history: never half a row.
#pragma once

#include <cstddef>
#include <string>

#include "reports/history/event.h"

namespace semsim {

inline constexpr const char* kHistoryHeader = "seq,true_us,client,op,phase,client_us,identifier,detail";

class HistoryWriter {
 public:
  // Truncates `path`. Throws std::runtime_error naming the path if it cannot be opened.
  explicit HistoryWriter(const std::string& path, std::size_t flush_rows = 1024);
  HistoryWriter(const HistoryWriter&) = delete;
  HistoryWriter& operator=(const HistoryWriter&) = delete;
  ~HistoryWriter();

  void write(const Event& e);
  void flush();  // throws std::runtime_error on a write error (disk full...)
  void close();

  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int fd_ = -1;
  std::size_t flush_rows_;
  std::size_t pending_rows_ = 0;
  std::string buffer_;
};

// One CSV line without the newline (exposed for tests and for other writers).
std::string history_row(const Event& e);
void append_history_row(std::string& out, const Event& e);

}  // namespace semsim
