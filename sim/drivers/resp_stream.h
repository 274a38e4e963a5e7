// Just enough of Redis's wire protocol (RESP) for a proxy that never changes what it relays: count
// the commands a client sends, and swallow the replies to the commands the proxy itself sends
// first on a new connection (AUTH, SELECT: the driver needs no password and lands in the run's
// database).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace semsim {

// Counts the commands in a client's byte stream, fed in pieces as they arrive: RESP arrays of bulk
// strings (what client libraries send) and inline commands (a line of words).
class CommandCounter {
 public:
  void feed(std::string_view bytes);
  std::uint64_t commands() const { return commands_; }

 private:
  enum class State { start, array_header, bulk_header, bulk_body, inline_command };
  State state_ = State::start;
  std::string line_;                // a header line read so far
  long long elements_left_ = 0;     // bulk strings still to come in this array
  long long body_left_ = 0;         // bytes of the current bulk string, with its CRLF
  std::uint64_t commands_ = 0;
};

// Consumes up to `left` replies from the front of `bytes`; only single-line replies (+, -, :),
// which is what AUTH and SELECT answer. Returns how many bytes it consumed; sets `error` to the
// first error reply's text (or to a description of a reply it cannot read).
std::size_t swallow_replies(std::string_view bytes, int& left, std::string& error);

}  // namespace semsim
