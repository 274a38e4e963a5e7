#include "marks/coverage_marks.h"

#include <array>
#include <atomic>

namespace semsim {

namespace {
constexpr std::array<std::string_view, kMarkCount> kNames = {"noscript_reload", "refresh_lost_permit",
                                                             "in_flight_at_connection_loss", "steal",
                                                             "permit_lost_in_fault", "master_no_answer",
                                                             "request_abandoned"};
// `semsim check --jobs N` runs cases on N threads: counts are atomic.
std::array<std::atomic<std::uint64_t>, kMarkCount> counts{};
}  // namespace

std::string_view to_string(Mark m) { return kNames[static_cast<std::size_t>(m)]; }

void mark(Mark m) { counts[static_cast<std::size_t>(m)].fetch_add(1, std::memory_order_relaxed); }

std::uint64_t mark_count(Mark m) { return counts[static_cast<std::size_t>(m)].load(std::memory_order_relaxed); }

}  // namespace semsim
