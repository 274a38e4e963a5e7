// The small async Redis interface that every variant is written against.
// The simulator implements it (deciding when requests reach Redis and when replies come back);
// tests may implement it directly over a connection.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "algorithms/api/task.h"

namespace semsim {

using Command = std::vector<std::string>;

// A Redis reply as a value.
struct Reply {
  enum class Kind { nil, integer, string, status, error, array };
  Kind kind = Kind::nil;
  long long integer = 0;
  std::string text;             // string, status or error
  std::vector<Reply> elements;  // array

  bool is_nil() const { return kind == Kind::nil; }
  bool is_error() const { return kind == Kind::error; }
  static Reply nil() { return {}; }
  static Reply of_integer(long long v) { return {Kind::integer, v, {}, {}}; }
  static Reply of_string(std::string s) { return {Kind::string, 0, std::move(s), {}}; }
  static Reply of_status(std::string s) { return {Kind::status, 0, std::move(s), {}}; }
  static Reply of_error(std::string s) { return {Kind::error, 0, std::move(s), {}}; }
};

// The link failed (dropped, timed out): whether the request ran is unknown.
struct LinkError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// No answer within the command timeout (a script that never returns, a stopped server).
struct LinkTimeout : LinkError {
  using LinkError::LinkError;
};

// The client's connection dropped with the request in flight (a server fault): it may or may not
// have run. The client reconnects for its next request.
struct ConnectionLost : LinkError {
  using LinkError::LinkError;
};

// No answer from a master within the run's master timeout (runs of several masters, and
// partitioned links): whether the request ran is unknown. The link itself goes on.
struct NoAnswer : LinkError {
  using LinkError::LinkError;
};

// Redis answered with an error where the algorithm needed a value (a Lua error, a wrong type).
struct ReplyError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Throws ReplyError if the reply is an error; otherwise returns its integer (nil reads as -1,
// a string is parsed), the way redis clients return ZRANK/INCR/ZADD results.
long long integer_of(const Reply& reply);

// A transaction as it goes on the wire: MULTI, the commands, EXEC, sent together. Every
// implementation of Redis::transaction (the simulator, the harness's own client, the tests'
// direct client) wraps and unwraps with these two, so a failed EXEC means the same everywhere.
std::vector<Command> as_transaction(std::vector<Command> commands);
// The replies to the commands inside, from the replies to as_transaction(...): EXEC's elements.
// An EXEC error (EXECABORT: a command was refused when queued) or a nil EXEC (aborted) throws
// ReplyError.
std::vector<Reply> transaction_replies(std::vector<Reply> replies);

class Redis {
 public:
  virtual ~Redis() = default;
  // MULTI ... EXEC: reaches Redis and runs as one atomic unit; returns the EXEC's replies.
  virtual Task<std::vector<Reply>> transaction(std::vector<Command> commands) = 0;
  // A plain (non-MULTI) pipeline: sent together, but the commands arrive one by one, so other
  // clients' commands may run between them.
  virtual Task<std::vector<Reply>> pipeline(std::vector<Command> commands) = 0;
  // One command, one round trip. By default a pipeline of one; an implementation may do it more
  // cheaply (the simulator: one coroutine frame less an operation).
  virtual Task<Reply> call(Command command);
};

}  // namespace semsim
