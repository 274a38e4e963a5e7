// What the client clock library cannot move, and why: it works through the dynamic linker
// (LD_PRELOAD) and libc's clock calls, so a static binary, a Go program (its runtime reads the
// kernel's vDSO itself) or a process whose environment lost LD_PRELOAD keeps the real wall clock.
// semsim checks at a driver's `ready` line that its clock moved; when it did not, this says why.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

namespace semsim {

// What is in the way for these processes (a driver's group), in a sentence; a general reason when
// none of them shows a known one.
std::string why_clock_did_not_move(const std::vector<pid_t>& processes, const std::filesystem::path& library);

// What kind of executable `file` is, for the sentence: "static", "go", or "" (dynamic, not Go).
std::string executable_kind(const std::filesystem::path& file);

}  // namespace semsim
