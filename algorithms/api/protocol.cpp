#include "algorithms/api/protocol.h"

#include <algorithm>

namespace semsim {

const std::vector<Reply>& elements_of(const Reply& reply) {
  if (reply.is_error()) throw ReplyError(reply.text);
  if (reply.kind != Reply::Kind::array && !reply.is_nil())
    throw ReplyError("expected an array reply, got '" + reply.text + "'");
  return reply.elements;  // nil reads as empty
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
