#include "sim/core/server_setup.h"

#include <array>
#include <utility>

namespace semsim {

namespace {
constexpr std::array<std::pair<Persistence, std::string_view>, 3> kNames = {
    {{Persistence::none, "none"}, {Persistence::aof_everysec, "aof-everysec"}, {Persistence::aof_always, "aof-always"}}};
}  // namespace

std::string_view to_string(Persistence p) {
  for (const auto& [value, name] : kNames)
    if (value == p) return name;
  return "none";
}

std::optional<Persistence> persistence_from_string(std::string_view s) {
  for (const auto& [value, name] : kNames)
    if (name == s) return value;
  return std::nullopt;
}

}  // namespace semsim
