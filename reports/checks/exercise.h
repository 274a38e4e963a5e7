// Whether runs exercised their variant (reports/DEFINITIONS.md, "Exercised"): a verdict over a
// variant that never granted anything, or whose operations mostly ended unknown (an error reply,
// a dropped connection), says nothing about the variant, and must not pass for a pass.
//
// Exercised: at least one acquire granted, at most half of the operations unknown (granted >= 1
// and 2 * unknown <= operations), and in a driver run a command through its proxies (a library
// that talks to a server of its own grants without semsim's Redis). One run's
// summary has it as `exercised`; a search (`semsim check`) applies the same rule to the sums over
// its cases.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "reports/checks/summary.h"

namespace semsim {

struct Exercise {
  std::int64_t acquires = 0, granted = 0, rejected = 0, acquire_unknown = 0;
  std::int64_t operations = 0, unknown = 0;
  std::int64_t commands = 0;
  bool commands_known = false;  // a driver run said how many commands it sent (commands holds their sum)
  std::string first_unknown;  // the first unknown outcome's detail, over the runs in order

  void add(const Summary& s);
  bool exercised() const;
  // Why not, quoting the first unknown outcome ("every acquire in 30 cases failed: ERR ...");
  // "" when exercised. `where`: "this run", "30 cases".
  std::string why_not(std::string_view where) const;
};

bool exercised(const Summary& s);

}  // namespace semsim
