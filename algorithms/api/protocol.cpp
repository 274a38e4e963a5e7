#include "algorithms/api/protocol.h"

#include <algorithm>

#include "marks/coverage_marks.h"

namespace semsim {

Task<Reply> evalsha(Redis& redis, const std::string& source, std::string& sha, std::vector<std::string> keys,
                    std::vector<std::string> args) {
  // An unloaded script is called under a SHA1 that names nothing: Redis answers NOSCRIPT.
  Command command{"EVALSHA", sha.empty() ? std::string(40, '0') : sha, num(static_cast<long long>(keys.size()))};
  command.insert(command.end(), std::make_move_iterator(keys.begin()), std::make_move_iterator(keys.end()));
  command.insert(command.end(), std::make_move_iterator(args.begin()), std::make_move_iterator(args.end()));
  Reply reply = co_await redis.call(command);
  if (!reply.is_error() || !reply.text.starts_with("NOSCRIPT")) co_return reply;
  mark(Mark::noscript_reload);
  Reply loaded = co_await redis.call(cmd("SCRIPT", "LOAD", source));
  if (loaded.is_error()) throw ReplyError("SCRIPT LOAD failed: " + loaded.text);
  sha = loaded.text;
  command[1] = sha;
  Reply again = co_await redis.call(std::move(command));
  co_return again;
}

const std::vector<Reply>& elements_of(const Reply& reply) {
  if (reply.is_error()) throw ReplyError(reply.text);
  if (reply.kind != Reply::Kind::array && !reply.is_nil())
    throw ReplyError("expected an array reply, got '" + reply.text + "'");
  return reply.elements;  // nil reads as empty
}

std::optional<long long> rank_of(const Reply& reply) {
  if (reply.is_nil()) return std::nullopt;
  return integer_of(reply);
}

const std::string& text_of(const Reply& reply) {
  if (reply.is_error()) throw ReplyError(reply.text);
  return reply.text;
}

std::string run_prefix(const std::string& name) {
  auto colon = name.rfind(':');
  return colon == std::string::npos ? std::string{} : name.substr(0, colon + 1);
}

std::string own_segment(const std::string& name) { return name.substr(run_prefix(name).size()); }

long long ceil_ms(Micros d) { return std::max<long long>(1, (d.count() + 999) / 1000); }
long long ceil_seconds(Micros d) { return std::max<long long>(1, (d.count() + 999'999) / 1'000'000); }

}  // namespace semsim
