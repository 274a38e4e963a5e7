// A command as it goes on the wire: Redis's protocol (RESP), an array of bulk strings.
#pragma once

#include <string>

#include "algorithms/api/redis.h"

namespace semsim {

// Appends `command` to `out` in RESP.
void append_resp_command(std::string& out, const Command& command);
// The same, on its own.
std::string resp_command(const Command& command);

}  // namespace semsim
