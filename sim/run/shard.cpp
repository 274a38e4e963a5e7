#include "sim/run/shard.h"

#include <charconv>
#include <stdexcept>

namespace semsim {

Shard parse_shard(std::string_view text) {
  const auto bad = [&](const std::string& why) {
    return std::invalid_argument("--shard " + std::string(text) + ": " + why);
  };
  const std::size_t slash = text.find('/');
  if (slash == std::string_view::npos) throw bad("write K/N, e.g. 2/8 (the second of eight shards)");
  const auto number = [&](std::string_view part, const char* name) {
    int v = 0;
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    if (part.empty() || ec != std::errc() || end != part.data() + part.size())
      throw bad(std::string(name) + " is not a whole number");
    return v;
  };
  Shard s{number(text.substr(0, slash), "K"), number(text.substr(slash + 1), "N")};
  if (s.count < 1 || s.count > 100'000) throw bad("N must be between 1 and 100000");
  if (s.index < 1 || s.index > s.count) throw bad("K must be between 1 and N");
  return s;
}

}  // namespace semsim
