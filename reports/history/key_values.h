// The `detail` of a run row: space-separated key=value pairs, e.g.
//   variant=NAME mode=virtual seed=7 clients=50 limit=5 duration_ms=10000 timeout_ms=10000
// A value with a space, a double quote, a backslash or an '=' is written in double quotes, inner
// quotes and backslashes escaped with a backslash (reason="connection refused"), so any text
// survives a round trip.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace semsim {

class KeyValues {
 public:
  KeyValues() = default;

  // Throws std::invalid_argument on an unterminated quote or a token without '='.
  static KeyValues parse(std::string_view text);

  // Appends, or replaces the value of an existing key (order of first insertion is kept).
  KeyValues& set(std::string key, std::string value);
  KeyValues& set(std::string key, std::int64_t value);

  std::optional<std::string> get(std::string_view key) const;
  // nullopt when absent; throws std::invalid_argument when present but not an integer/number.
  std::optional<std::int64_t> get_int(std::string_view key) const;
  std::optional<std::uint64_t> get_uint(std::string_view key) const;
  std::optional<double> get_double(std::string_view key) const;

  const std::vector<std::pair<std::string, std::string>>& items() const { return items_; }
  std::string str() const;

  bool operator==(const KeyValues&) const = default;

 private:
  std::vector<std::pair<std::string, std::string>> items_;
};

}  // namespace semsim
