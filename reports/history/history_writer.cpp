#include "reports/history/history_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "reports/history/text_format.h"

namespace semsim {

void append_history_row(std::string& out, const Event& e) {
  append_uint(out, e.seq);
  out.push_back(',');
  append_int(out, e.true_us);
  out.push_back(',');
  append_int(out, e.client);
  out.push_back(',');
  out.append(to_string(e.op));
  out.push_back(',');
  out.append(to_string(e.phase));
  out.push_back(',');
  append_int(out, e.client_us);
  out.push_back(',');
  append_csv_field(out, e.identifier);
  out.push_back(',');
  append_csv_field(out, e.detail);
}

std::string history_row(const Event& e) {
  std::string s;
  append_history_row(s, e);
  return s;
}

HistoryWriter::HistoryWriter(const std::string& path, std::size_t flush_rows)
    : path_(path), flush_rows_(flush_rows == 0 ? 1 : flush_rows) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0)
    throw std::runtime_error("cannot open " + path + " for writing: " + std::strerror(errno));
  buffer_.reserve(1 << 16);
  buffer_ += kHistoryHeader;
  buffer_.push_back('\n');
  flush();  // the header alone is already a valid (empty) history
}

HistoryWriter::~HistoryWriter() {
  try {
    close();
  } catch (...) {
    // A destructor must not throw; an explicit close() reports the error.
  }
}

void HistoryWriter::write(const Event& e) {
  append_history_row(buffer_, e);
  buffer_.push_back('\n');
  // Flush at row boundaries only, so the file on disk always ends with a complete row.
  if (++pending_rows_ >= flush_rows_ || buffer_.size() >= (1u << 20)) flush();
}

void HistoryWriter::flush() {
  if (fd_ < 0) return;
  std::size_t done = 0;
  while (done < buffer_.size()) {
    ssize_t n = ::write(fd_, buffer_.data() + done, buffer_.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error("cannot write " + path_ + ": " + std::strerror(errno));
    }
    done += static_cast<std::size_t>(n);
  }
  buffer_.clear();
  pending_rows_ = 0;
}

void HistoryWriter::close() {
  if (fd_ < 0) return;
  flush();
  ::close(fd_);
  fd_ = -1;
}

}  // namespace semsim
