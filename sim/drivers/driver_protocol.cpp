#include "sim/drivers/driver_protocol.h"

#include <charconv>
#include <vector>

namespace semsim {

namespace {

bool space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }

// The next whitespace-separated field of `rest`, which then starts after it.
std::string_view next_field(std::string_view& rest) {
  std::size_t start = 0;
  while (start < rest.size() && space(rest[start])) ++start;
  std::size_t end = start;
  while (end < rest.size() && !space(rest[end])) ++end;
  const std::string_view field = rest.substr(start, end - start);
  rest.remove_prefix(end);
  return field;
}

std::int64_t number(std::string_view field, const char* name) {
  std::int64_t v = 0;
  const auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), v);
  if (error != std::errc() || end != field.data() + field.size())
    throw ProtocolError(std::string(name) + " '" + quoted_line(field) + "' is not a whole number");
  return v;
}

}  // namespace

std::string_view to_string(DriverOp op) {
  switch (op) {
    case DriverOp::acquire: return "acquire";
    case DriverOp::release: return "release";
    case DriverOp::refresh: return "refresh";
    case DriverOp::driver: return "driver";
  }
  return "?";
}

Op history_op(DriverOp op) {
  switch (op) {
    case DriverOp::release: return Op::release;
    case DriverOp::refresh: return Op::refresh;
    default: return Op::acquire;
  }
}

std::string quoted_line(std::string_view line) {
  std::string out;
  for (char c : line.substr(0, 120)) out += (c >= 32 && c < 127) ? c : '?';
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return line.size() > 120 ? out + "..." : out;
}

DriverLine parse_driver_line(std::string_view line) {
  static constexpr const char* kShape = " (a line is MONO_NS WALL_MS OP PHASE ID [DETAIL])";
  std::string_view rest = line;
  std::vector<std::string_view> fields;
  for (int i = 0; i < 5; ++i) {
    const std::string_view f = next_field(rest);
    if (f.empty()) throw ProtocolError("not a protocol line: " + std::to_string(i) + " of at least 5 fields" + kShape);
    fields.push_back(f);
  }
  DriverLine out;
  try {
    out.mono_ns = number(fields[0], "MONO_NS");
    out.wall_ms = number(fields[1], "WALL_MS");
  } catch (const ProtocolError& e) {
    throw ProtocolError(std::string("not a protocol line: ") + e.what() + kShape);
  }
  if (out.mono_ns < 0) throw ProtocolError("MONO_NS is negative: not CLOCK_MONOTONIC in ns");
  const std::string_view op = fields[2];
  if (op == "acquire") out.op = DriverOp::acquire;
  else if (op == "release") out.op = DriverOp::release;
  else if (op == "refresh") out.op = DriverOp::refresh;
  else if (op == "driver") out.op = DriverOp::driver;
  else throw ProtocolError("unknown OP '" + quoted_line(op) + "' (acquire, release, refresh, or driver for `driver ok - ready`)");
  const auto phase = phase_from_string(fields[3]);
  if (!phase) throw ProtocolError("unknown PHASE '" + quoted_line(fields[3]) + "' (invoke, ok, fail or info)");
  out.phase = *phase;
  out.id = std::string(fields[4]);
  std::size_t start = 0;
  while (start < rest.size() && space(rest[start])) ++start;
  std::size_t end = rest.size();
  while (end > start && space(rest[end - 1])) --end;
  out.detail = std::string(rest.substr(start, end - start));
  // `ready`, or `ready library=NAME@VERSION` (the driver kits name the library they wrap).
  const bool ready = out.detail == "ready" || out.detail.starts_with("ready library=");
  if (out.op == DriverOp::driver && (out.phase != Phase::ok || out.id != "-" || !ready))
    throw ProtocolError("the only driver line is `driver ok - ready` (optionally `ready library=NAME@VERSION`)");
  return out;
}

std::string command_line(DriverOp op, const std::string& id) { return std::string(to_string(op)) + " " + id + "\n"; }

}  // namespace semsim
