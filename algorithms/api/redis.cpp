#include "algorithms/api/redis.h"

#include <charconv>

namespace semsim {

long long integer_of(const Reply& reply) {
  switch (reply.kind) {
    case Reply::Kind::integer:
      return reply.integer;
    case Reply::Kind::nil:
      return -1;
    case Reply::Kind::error:
      throw ReplyError(reply.text);
    default: {
      long long v = 0;
      auto [end, ec] = std::from_chars(reply.text.data(), reply.text.data() + reply.text.size(), v);
      if (ec != std::errc{} || end != reply.text.data() + reply.text.size())
        throw ReplyError("expected an integer reply, got '" + reply.text + "'");
      return v;
    }
  }
}

std::vector<Command> as_transaction(std::vector<Command> commands) {
  commands.insert(commands.begin(), Command{"MULTI"});
  commands.push_back(Command{"EXEC"});
  return commands;
}

std::vector<Reply> transaction_replies(std::vector<Reply> replies) {
  if (replies.empty()) throw ReplyError("EXEC: no reply");
  Reply& exec = replies.back();
  if (exec.is_error()) throw ReplyError("EXEC: " + exec.text);
  if (exec.kind != Reply::Kind::array) throw ReplyError("transaction aborted");
  return std::move(exec.elements);
}

Task<Reply> Redis::call(Command command) {
  std::vector<Command> one;
  one.push_back(std::move(command));
  auto replies = co_await pipeline(std::move(one));
  co_return std::move(replies.at(0));
}

}  // namespace semsim
