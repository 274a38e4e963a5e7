#include "sim/core/client_spec.h"

#include <array>

namespace semsim {

namespace {
using K = ScriptedAction::Kind;
// In the order of ScriptedAction::Kind: action_kind() indexes it.
constexpr std::array<ActionKind, 12> kActionKinds{{
    {K::acquire, "acquire", ActionArg::optional},
    {K::release, "release", ActionArg::optional},
    {K::refresh, "refresh", ActionArg::optional},
    {K::pause, "pause", ActionArg::length},
    {K::crash, "crash", ActionArg::optional},
    {K::jump, "jump", ActionArg::signed_duration},
    {K::partition, "partition", ActionArg::length},
    {K::server_jump, "server_jump", ActionArg::signed_duration},
    {K::redis_restart, "redis_restart", ActionArg::optional},
    {K::failover, "failover", ActionArg::length},
    {K::disconnect, "disconnect", ActionArg::optional},
    {K::redis_pause, "redis_pause", ActionArg::length},
}};
constexpr bool in_kind_order() {
  for (std::size_t i = 0; i < kActionKinds.size(); ++i)
    if (static_cast<std::size_t>(kActionKinds[i].kind) != i) return false;
  return true;
}
static_assert(in_kind_order(), "kActionKinds must list the kinds in enum order");
}  // namespace

std::span<const ActionKind> action_kinds() { return kActionKinds; }

std::string master_list(const std::vector<int>& masters) {
  std::string list;
  for (int m : masters) list += (list.empty() ? "" : ",") + std::to_string(m + 1);
  return list;
}

const ActionKind& action_kind(ScriptedAction::Kind kind) { return kActionKinds[static_cast<std::size_t>(kind)]; }

std::optional<ScriptedAction::Kind> action_kind_named(std::string_view name) {
  for (const ActionKind& k : kActionKinds)
    if (k.name == name) return k.kind;
  return std::nullopt;
}

}  // namespace semsim
