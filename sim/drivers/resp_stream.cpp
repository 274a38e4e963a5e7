#include "sim/drivers/resp_stream.h"

#include <charconv>

namespace semsim {

namespace {
long long header_number(const std::string& line) {
  long long n = -1;
  std::from_chars(line.data() + 1, line.data() + line.size(), n);
  return n;
}
}  // namespace

void CommandCounter::feed(std::string_view bytes) {
  std::size_t i = 0;
  while (i < bytes.size()) {
    switch (state_) {
      case State::start:
        line_.clear();
        state_ = bytes[i] == '*' ? State::array_header : State::inline_command;
        break;
      case State::array_header:
      case State::bulk_header:
      case State::inline_command: {
        const std::size_t nl = bytes.find('\n', i);
        const std::size_t end = nl == std::string_view::npos ? bytes.size() : nl;
        if (line_.size() < 64) line_.append(bytes.substr(i, std::min<std::size_t>(end - i, 64)));
        i = end;
        if (nl == std::string_view::npos) break;
        ++i;
        if (!line_.empty() && line_.back() == '\r') line_.pop_back();
        if (state_ == State::inline_command) {
          if (line_.find_first_not_of(" \t") != std::string::npos) ++commands_;
          state_ = State::start;
        } else if (state_ == State::array_header) {
          ++commands_;
          elements_left_ = header_number(line_);
          state_ = elements_left_ > 0 ? State::bulk_header : State::start;
        } else {
          body_left_ = header_number(line_) + 2;
          state_ = body_left_ >= 2 ? State::bulk_body : (--elements_left_ > 0 ? State::bulk_header : State::start);
        }
        line_.clear();
        break;
      }
      case State::bulk_body: {
        const long long take = std::min<long long>(body_left_, static_cast<long long>(bytes.size() - i));
        i += static_cast<std::size_t>(take);
        body_left_ -= take;
        if (body_left_ == 0) state_ = --elements_left_ > 0 ? State::bulk_header : State::start;
        break;
      }
    }
  }
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
