#include "reports/history/event.h"

#include <array>

namespace semsim {

namespace {
constexpr std::array<std::string_view, 18> kOps = {"run",    "acquire",   "release",       "refresh",  "crash",
                                                   "pause",  "resume",    "jump",          "sample",   "done",
                                                   "server_jump", "redis_restart", "failover", "disconnect",
                                                   "redis_pause", "lease", "partition", "heal"};
constexpr std::array<std::string_view, 4> kPhases = {"invoke", "ok", "fail", "info"};
}  // namespace

std::string_view to_string(Op op) { return kOps[static_cast<int>(op)]; }
bool is_server_fault(Op op) {
  return op == Op::redis_restart || op == Op::failover || op == Op::disconnect || op == Op::redis_pause;
}

std::string_view to_string(Phase phase) { return kPhases[static_cast<int>(phase)]; }

std::optional<Op> op_from_string(std::string_view s) {
  for (std::size_t i = 0; i < kOps.size(); ++i)
    if (kOps[i] == s) return static_cast<Op>(i);
  return std::nullopt;
}

std::optional<Phase> phase_from_string(std::string_view s) {
  for (std::size_t i = 0; i < kPhases.size(); ++i)
    if (kPhases[i] == s) return static_cast<Phase>(i);
  return std::nullopt;
}

}  // namespace semsim
