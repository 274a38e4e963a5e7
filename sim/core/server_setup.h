// How semsim sets up the embedded Redis for a run: replicas, persistence, memory limit. A user's
// server (--redis) is taken as it is: these options need the embedded one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace semsim {

enum class Persistence { none, aof_everysec, aof_always };
std::string_view to_string(Persistence p);
std::optional<Persistence> persistence_from_string(std::string_view s);

inline constexpr const char* kSentinelMaster = "semsim";

struct ServerSetup {
  int replicas = 0;                          // real replicas of the primary (REPLICAOF)
  Persistence persistence = Persistence::none;  // the primary's
  std::uint64_t maxmemory = 0;               // bytes; 0: no limit
  std::string maxmemory_policy = "noeviction";
  // --topology sentinel: two replicas and three redis-sentinel processes that watch the primary
  // (master name kSentinelMaster) and elect a new one when it dies, in real time.
  bool sentinel = false;
  bool operator==(const ServerSetup&) const = default;
  bool is_default() const { return *this == ServerSetup{}; }
};

}  // namespace semsim
