// Just enough of Redis's wire protocol (RESP) for the proxy between a driver and Redis: split what
// a client sends into whole commands (so that each is checked before it is passed on: the proxy
// forwards no command the run itself would not send), and swallow the replies to the commands the
// proxy itself sends first on a new connection (AUTH, SELECT: the driver needs no password and
// lands in the run's database).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace semsim {

// One command as a client sent it: its words, and its bytes on the wire (what is passed on).
struct WireCommand {
  std::vector<std::string> words;
  std::string bytes;
};

// Splits a client's byte stream, fed in pieces as they arrive, into whole commands: RESP arrays of
// bulk strings (what client libraries send) and inline commands (a line of words, as Redis reads
// them; one with quotes, which Redis would unescape, is not read). Empty ones (`*0`, a blank
// line) are dropped, as Redis ignores them. A stream that is neither is an error: nothing after
// it is read.
class CommandReader {
 public:
  // Appends the commands `bytes` completes to `out`; a partial command waits for the rest.
  // Returns false once the stream is not RESP (error() says how).
  bool feed(std::string_view bytes, std::vector<WireCommand>& out);
  const std::string& error() const { return error_; }

 private:
  // Reads one command from the front of `in`: its size in bytes, 0 if it is not all there.
  std::size_t next(std::string_view in, WireCommand& command);
  std::string pending_;  // bytes of a command not yet whole
  std::string error_;
};

// Consumes up to `left` replies from the front of `bytes`; only single-line replies (+, -, :),
// which is what AUTH and SELECT answer. Returns how many bytes it consumed; sets `error` to the
// first error reply's text (or to a description of a reply it cannot read).
std::size_t swallow_replies(std::string_view bytes, int& left, std::string& error);

}  // namespace semsim

namespace semsim {

// The size in bytes of the first whole reply at the front of `bytes` (RESP2 and RESP3), 0 while it
// is not all there; throws std::runtime_error when it is not Redis's protocol. Warp's proxy counts
// replies with it: one per command it passed on.
std::size_t reply_size(std::string_view bytes);

}  // namespace semsim
