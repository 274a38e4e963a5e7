// The line protocol between semsim and a driver process (docs/drivers.md).
//
//   semsim -> driver (stdin):  acquire ID | release ID | refresh ID | quit
//   driver -> semsim (stdout): MONO_NS WALL_MS OP PHASE ID [DETAIL]
//
// MONO_NS is the driver's CLOCK_MONOTONIC in ns (true time), WALL_MS its own wall clock in ms (as
// the client clock library moved it). PHASE is invoke (just before calling the library), ok
// (DETAIL: the library's identifier), fail or info (outcome unknown: an error). A driver says
// `driver ok - ready` once, when it can take commands (optionally `ready library=NAME@VERSION`:
// what it wraps, for the conformance card), and `refresh fail ID` unasked when its library reports
// a permit lost. Fields are separated by whitespace; DETAIL is the rest of the
// line (spaces allowed, trailing whitespace ignored).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "reports/history/event.h"

namespace semsim {

// A line that is not the protocol; the message says what is wrong with it.
struct ProtocolError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class DriverOp { acquire, release, refresh, driver };

struct DriverLine {
  std::int64_t mono_ns = 0;
  std::int64_t wall_ms = 0;
  DriverOp op = DriverOp::acquire;
  Phase phase = Phase::invoke;
  std::string id;
  std::string detail;
  std::string library;  // a ready line's `library=NAME@VERSION`, else ""

  bool is_ready() const { return op == DriverOp::driver; }
};

// Throws ProtocolError. `driver` lines must be `driver ok - ready [library=NAME@VERSION]`.
DriverLine parse_driver_line(std::string_view line);

// What semsim writes for an operation on permit `id`: "acquire ID\n".
std::string command_line(DriverOp op, const std::string& id);
inline constexpr std::string_view kQuitLine = "quit\n";

std::string_view to_string(DriverOp op);
// The history's op for a driver's operation.
Op history_op(DriverOp op);

// A driver's line fit for a one-line message: printable, at most 120 characters.
std::string quoted_line(std::string_view line);

}  // namespace semsim
