#include "sim/drivers/resp_stream.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <utility>

namespace semsim {

namespace {

// Redis's own limits on what it reads from a client (PROTO_INLINE_MAX_SIZE, proto-max-bulk-len is
// larger, but no command a semaphore sends comes near this).
constexpr std::size_t kLineMax = 64 * 1024;
constexpr long long kBulkMax = 64LL << 20;
constexpr long long kWordsMax = 1LL << 20;

// The number after a header's type byte ("*3", "$5"); -2 if it is none.
long long header_number(std::string_view line) {
  long long n = -2;
  const auto [end, ec] = std::from_chars(line.data() + 1, line.data() + line.size(), n);
  return ec == std::errc() && end == line.data() + line.size() ? n : -2;
}

}  // namespace

bool CommandReader::feed(std::string_view bytes, std::vector<WireCommand>& out) {
  if (!error_.empty()) return false;
  pending_.append(bytes);
  std::size_t used = 0;
  while (used < pending_.size()) {
    WireCommand command;
    const std::size_t size = next(std::string_view(pending_).substr(used), command);
    if (!error_.empty()) return false;
    if (size == 0) break;
    used += size;
    if (!command.words.empty()) out.push_back(std::move(command));
  }
  pending_.erase(0, used);
  return true;
}

std::size_t CommandReader::next(std::string_view in, WireCommand& command) {
  const std::size_t nl = in.find('\n');
  if (nl == std::string_view::npos) {
    if (in.size() > kLineMax) error_ = "a line longer than " + std::to_string(kLineMax) + " bytes";
    return 0;
  }
  if (in[0] != '*') {  // inline: words split on blanks, as Redis does for a line without quotes
    std::string_view line = in.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_of("\"'") != std::string_view::npos) {
      error_ = "an inline command with quotes";
      return 0;
    }
    for (std::size_t i = 0; i < line.size();) {
      const std::size_t start = line.find_first_not_of(" \t\v\f\r", i);
      if (start == std::string_view::npos) break;
      const std::size_t end = std::min(line.find_first_of(" \t\v\f\r", start), line.size());
      command.words.emplace_back(line.substr(start, end - start));
      i = end;
    }
    command.bytes = std::string(in.substr(0, nl + 1));
    return nl + 1;
  }
  if (nl == 0 || in[nl - 1] != '\r') {
    error_ = "an array header without CRLF";
    return 0;
  }
  const long long count = header_number(in.substr(0, nl - 1));
  if (count < -1 || count > kWordsMax) {
    error_ = "an array header '" + std::string(in.substr(0, std::min<std::size_t>(nl - 1, 40))) + "'";
    return 0;
  }
  std::size_t at = nl + 1;
  for (long long i = 0; i < count; ++i) {
    if (at < in.size() && in[at] != '$') {
      error_ = "an array element that is not a bulk string ('" + std::string(in.substr(at, 20)) + "')";
      return 0;
    }
    const std::size_t end = in.find("\r\n", at);
    if (end == std::string_view::npos) {
      if (in.size() - at > kLineMax) error_ = "a bulk header longer than " + std::to_string(kLineMax) + " bytes";
      return 0;
    }
    const std::string_view header = in.substr(at, end - at);
    const long long length = header.size() > 1 && header[0] == '$' ? header_number(header) : -2;
    if (length < 0 || length > kBulkMax) {
      error_ = "a bulk string header '" + std::string(header.substr(0, 40)) + "' (only bulk strings of up to " +
               std::to_string(kBulkMax) + " bytes are read)";
      return 0;
    }
    const std::size_t body = end + 2;
    if (in.size() < body + static_cast<std::size_t>(length) + 2) return 0;
    if (in.substr(body + static_cast<std::size_t>(length), 2) != "\r\n") {
      error_ = "a bulk string without its CRLF";
      return 0;
    }
    command.words.emplace_back(in.substr(body, static_cast<std::size_t>(length)));
    at = body + static_cast<std::size_t>(length) + 2;
  }
  command.bytes = std::string(in.substr(0, at));
  return at;
}

std::size_t swallow_replies(std::string_view bytes, int& left, std::string& error) {
  std::size_t used = 0;
  while (left > 0 && error.empty()) {
    const std::size_t nl = bytes.find("\r\n", used);
    if (nl == std::string_view::npos) break;
    const std::string_view reply = bytes.substr(used, nl - used);
    if (reply.empty() || (reply[0] != '+' && reply[0] != ':' && reply[0] != '-'))
      error = "an unexpected reply '" + std::string(reply.substr(0, 40)) + "'";
    else if (reply[0] == '-')
      error = std::string(reply.substr(1));
    used = nl + 2;
    --left;
  }
  return used;
}

}  // namespace semsim

namespace semsim {

namespace {

// The number on the line that starts at `at` (after its type byte) and where the line ends; nullopt
// while the line is not whole.
std::optional<std::pair<long long, std::size_t>> header(std::string_view bytes, std::size_t at) {
  const std::size_t nl = bytes.find("\r\n", at);
  if (nl == std::string_view::npos) return std::nullopt;
  const std::string text(bytes.substr(at + 1, nl - at - 1));
  char* end = nullptr;
  const long long n = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end) throw std::runtime_error("a reply that is not Redis's protocol ('" + text.substr(0, 40) + "')");
  return std::make_pair(n, nl + 2);
}

// The end of the reply that starts at `at`, or 0 while it is not all there.
std::size_t reply_end(std::string_view bytes, std::size_t at) {
  if (at >= bytes.size()) return 0;
  switch (bytes[at]) {
    case '+': case '-': case ':': case '_': case '#': case ',': case '(': {
      const std::size_t nl = bytes.find("\r\n", at);
      return nl == std::string_view::npos ? 0 : nl + 2;
    }
    case '$': case '!': case '=': {
      const auto h = header(bytes, at);
      if (!h) return 0;
      if (h->first < 0) return h->second;
      const std::size_t end = h->second + static_cast<std::size_t>(h->first) + 2;
      return end <= bytes.size() ? end : 0;
    }
    case '*': case '~': case '>': case '%': case '|': {
      const auto h = header(bytes, at);
      if (!h) return 0;
      const long long items = bytes[at] == '%' || bytes[at] == '|' ? 2 * h->first : h->first;
      std::size_t next = h->second;
      for (long long i = 0; i < items; ++i)
        if ((next = reply_end(bytes, next)) == 0) return 0;
      return next;
    }
    default:
      throw std::runtime_error("a reply that is not Redis's protocol (it starts with '" + std::string(1, bytes[at]) + "')");
  }
}

}  // namespace

std::size_t reply_size(std::string_view bytes) { return reply_end(bytes, 0); }

}  // namespace semsim
