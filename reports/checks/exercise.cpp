#include "reports/checks/exercise.h"

namespace semsim {

void Exercise::add(const Summary& s) {
  acquires += s.acquires;
  granted += s.granted;
  rejected += s.rejected;
  acquire_unknown += s.acquire_unknown;
  operations += s.operations;
  unknown += s.unknown;
  // Counted where it tells something: a driver's commands through its proxies (a model's variant
  // always sends its own).
  if (s.commands && s.variant.starts_with("driver:")) {
    commands_known = true;
    commands += *s.commands;
  }
  if (first_unknown.empty()) first_unknown = s.first_unknown;
}

bool Exercise::exercised() const {
  return granted >= 1 && 2 * unknown <= operations && (!commands_known || commands > 0);
}

bool exercised(const Summary& s) {
  Exercise e;
  e.add(s);
  return e.exercised();
}

std::string Exercise::why_not(std::string_view where) const {
  if (exercised()) return "";
  const std::string in = " in " + std::string(where);
  // An error reply reads best as what it is: "failed: ERR ..."; a dropped connection as unknown.
  const bool error = first_unknown.starts_with("error: ");
  const std::string quoted = error ? first_unknown.substr(7) : first_unknown;
  if (acquires == 0) return "no acquire was invoked" + in;
  if (commands_known && commands == 0)
    return "no command reached Redis" + in + " (" + std::to_string(granted) + " grants came from elsewhere: a driver's "
           "library must connect to the addresses in SEMSIM_REDIS, not to a server of its own, e.g. its REDIS_URL)";
  if (granted == 0 && rejected == 0 && acquire_unknown > 0) {
    // Acquires without an outcome (in flight at a crash or at the end) never ended otherwise.
    const std::int64_t open = acquires - acquire_unknown;
    return "every acquire" + in + (error ? " failed: " : " ended unknown: ") + quoted +
           (open > 0 ? " (" + std::to_string(acquire_unknown) + " of " + std::to_string(acquires) + "; the other " +
                           std::to_string(open) + " had no outcome)"
                     : std::string());
  }
  if (granted == 0)
    return "no acquire was granted" + in + " (" + std::to_string(acquires) + " acquires: " + std::to_string(rejected) +
           " refused, " + std::to_string(acquire_unknown) + " unknown" +
           (first_unknown.empty() ? std::string() : ", the first unknown: " + first_unknown) + ")";
  return std::to_string(unknown) + " of " + std::to_string(operations) + " operations" + in +
         " ended unknown, more than half (the first: " + first_unknown + ")";
}

}  // namespace semsim
