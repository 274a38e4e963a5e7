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

Task<Reply> Redis::call(Command command) {
  std::vector<Command> one;
  one.push_back(std::move(command));
  auto replies = co_await pipeline(std::move(one));
  co_return std::move(replies.at(0));
}

}  // namespace semsim
