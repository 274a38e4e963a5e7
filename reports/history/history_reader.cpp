#include "reports/history/history_reader.h"

// libfccp's error types copy file names with strncpy, which GCC flags; the truncation is intended.
// (clang has no such warning, and warns of the unknown name.)
#pragma GCC diagnostic push
#ifndef __clang__
#pragma GCC diagnostic ignored "-Wstringop-truncation"
#endif
#include <libfccp/csv.h>
#pragma GCC diagnostic pop

#include <array>
#include <charconv>
#include <fstream>
#include <string_view>

#include "reports/history/run_rows.h"

namespace semsim {

namespace {

constexpr std::array<const char*, 8> kColumns = {"seq",       "true_us",    "client", "op",
                                                 "phase",     "client_us", "identifier", "detail"};

// No trimming: a detail's leading space is data. Quotes per RFC 4180.
const char* const kOutOfRange = "is out of range (at most 2^61 us, about 73,000 years, either way)";

using Csv = io::CSVReader<8, io::trim_chars<>, io::double_quote_escape<',', '"'>>;

template <typename T>
bool parse_integer(const char* s, T& out) {
  std::string_view v(s);
  if (!v.empty() && v.front() == '+') v.remove_prefix(1);
  if (v.empty()) return false;
  auto r = std::from_chars(v.data(), v.data() + v.size(), out);
  return r.ec == std::errc() && r.ptr == v.data() + v.size();
}

}  // namespace

struct HistoryReader::Impl {
  std::string path;
  Csv csv;
  // Physical position (1-based) of each canonical column in this file's header, for messages.
  std::array<int, 8> position{};

  explicit Impl(const std::string& p) : path(p), csv(p) {}
};

HistoryReader::HistoryReader(const std::string& path) {
  try {
    impl_ = std::make_unique<Impl>(path);
  } catch (const io::error::base& err) {
    throw HistoryError(path + ": " + err.what());
  }
  try {
    impl_->csv.read_header(io::ignore_no_column, kColumns[0], kColumns[1], kColumns[2],
                           kColumns[3], kColumns[4], kColumns[5], kColumns[6], kColumns[7]);
  } catch (const io::error::base& err) {
    throw HistoryError(path + ":1: bad header (expected " + std::string(kHistoryHeader) +
                       "): " + err.what());
  }
  // libfccp accepts the columns in any order; find where each one is, so that an error can say
  // "column 2" as a person counting commas in the file would.
  std::ifstream in(path);
  std::string header;
  std::getline(in, header);
  if (!header.empty() && header.back() == '\r') header.pop_back();
  if (header.rfind("\xEF\xBB\xBF", 0) == 0) header.erase(0, 3);
  int pos = 1;
  std::size_t start = 0;
  while (start <= header.size()) {
    std::size_t end = header.find(',', start);
    if (end == std::string::npos) end = header.size();
    std::string_view name(header.data() + start, end - start);
    for (std::size_t i = 0; i < kColumns.size(); ++i)
      if (name == kColumns[i]) impl_->position[i] = pos;
    ++pos;
    start = end + 1;
  }
}

HistoryReader::~HistoryReader() = default;

const std::string& HistoryReader::path() const { return impl_->path; }
unsigned HistoryReader::line() const { return impl_->csv.get_file_line(); }
std::string HistoryReader::where() const {
  return impl_->path + ":" + std::to_string(line()) + ": ";
}

bool HistoryReader::next(Event& e) {
  char* f[8];
  try {
    if (!impl_->csv.read_row(f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7])) return false;
  } catch (const io::error::too_few_columns&) {
    throw HistoryError(where() + "too few columns (expected 8: " + kHistoryHeader + ")");
  } catch (const io::error::too_many_columns&) {
    throw HistoryError(where() + "too many columns: column 9 is unexpected (expected 8: " +
                       kHistoryHeader + ")");
  } catch (const io::error::escaped_string_not_closed&) {
    throw HistoryError(where() + "a quoted field is not closed");
  } catch (const io::error::base& err) {
    throw HistoryError(where() + err.what());
  }
  auto bad = [&](int i, const char* what) {
    return HistoryError(where() + "column " + std::to_string(impl_->position[i]) + " (" +
                        kColumns[i] + "): \"" + f[i] + "\" " + what);
  };
  if (!parse_integer(f[0], e.seq)) throw bad(0, "is not a non-negative integer");
  const auto in_range = [](std::int64_t v) { return v >= -kMaxHistoryUs && v <= kMaxHistoryUs; };
  if (!parse_integer(f[1], e.true_us)) throw bad(1, "is not an integer");
  if (!in_range(e.true_us)) throw bad(1, kOutOfRange);
  if (!parse_integer(f[2], e.client)) throw bad(2, "is not an integer");
  auto op = op_from_string(f[3]);
  if (!op) throw bad(3, "is not an op (run, acquire, release, refresh, crash, pause, resume, jump)");
  e.op = *op;
  auto phase = phase_from_string(f[4]);
  if (!phase) throw bad(4, "is not a phase (invoke, ok, fail, info)");
  e.phase = *phase;
  if (!parse_integer(f[5], e.client_us)) throw bad(5, "is not an integer");
  if (!in_range(e.client_us)) throw bad(5, kOutOfRange);
  e.identifier.assign(f[6]);
  e.detail.assign(f[7]);
  return true;
}

std::vector<Event> read_history(const std::string& path) {
  HistoryReader r(path);
  std::vector<Event> out;
  Event e;
  while (r.next(e)) out.push_back(e);
  return out;
}

}  // namespace semsim
