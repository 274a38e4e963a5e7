// Coverage marks (TigerBeetle's `marks`, FoundationDB's CODE_PROBE): a rare path that a test
// claims to reach says, when it runs, that it ran; the test asserts it did. A test that claims to
// exercise a NOSCRIPT reload but never makes Redis forget the script then fails, instead of passing
// for the wrong reason.
//
// The one process-wide state of the program, and on purpose: the counts are written on rare paths
// and read only by tests; nothing the program does depends on them, so they cannot touch a history.
#pragma once

#include <cstdint>
#include <string_view>

namespace semsim {

enum class Mark {
  noscript_reload,               // EVALSHA answered NOSCRIPT: the script was loaded again (algorithms/api)
  refresh_lost_permit,           // a holder's refresh found its permit gone (sim/core workload)
  in_flight_at_connection_loss,  // a connection dropped with requests in flight: info (sim/core client, workload)
  steal,                         // a grant took a permit beyond the limit (reports/checks holds)
  permit_lost_in_fault,          // a Redis fault lost a held permit's grant (reports/checks checker)
  master_no_answer,              // a master did not answer within the master timeout (sim/core client)
  request_abandoned,             // a request in flight was abandoned once a quorum decided (sim/core client)
};
inline constexpr int kMarkCount = 7;

std::string_view to_string(Mark mark);

// On the rare path.
void mark(Mark mark);
// How often `mark` was reached in this process, on any thread.
std::uint64_t mark_count(Mark mark);

// A test's claim: made before the test drives the path; hit() says whether the path ran since.
class MarkWatch {
 public:
  explicit MarkWatch(Mark mark) : mark_(mark), start_(mark_count(mark)) {}
  bool hit() const { return mark_count(mark_) > start_; }

 private:
  Mark mark_;
  std::uint64_t start_;
};

}  // namespace semsim
