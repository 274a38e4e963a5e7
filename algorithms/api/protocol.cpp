#include "algorithms/api/protocol.h"

#include <algorithm>

#include "marks/coverage_marks.h"

namespace semsim {

namespace {

Command evalsha_command(const std::string& sha, std::span<const std::string> keys,
                        std::span<const std::string> args) {
  // An unloaded script is called under a SHA1 that names nothing: Redis answers NOSCRIPT.
  Command command;
  command.reserve(3 + keys.size() + args.size());
  command.push_back("EVALSHA");
  command.push_back(sha.empty() ? std::string(40, '0') : sha);
  command.push_back(num(static_cast<long long>(keys.size())));
  command.insert(command.end(), keys.begin(), keys.end());
  command.insert(command.end(), args.begin(), args.end());
  return command;
}

}  // namespace

Task<Reply> evalsha(Redis& redis, std::string_view source, std::string& sha, std::span<const std::string> keys,
                    std::span<const std::string> args) {
  // The retry builds its command again rather than keeping a copy of the first: a copy would cost
  // every call, and a retry is rare.
  Reply reply = co_await redis.call(evalsha_command(sha, keys, args));
  if (!reply.is_error() || !reply.text.starts_with("NOSCRIPT")) co_return reply;
  mark(Mark::noscript_reload);
  Reply loaded = co_await redis.call(cmd("SCRIPT", "LOAD", std::string(source)));
  if (loaded.is_error()) throw ReplyError("SCRIPT LOAD failed: " + loaded.text);
  sha = loaded.text;
  Reply again = co_await redis.call(evalsha_command(sha, keys, args));
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
