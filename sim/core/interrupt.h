// Ctrl-C and SIGTERM: the handler only sets a flag; the run loop sees it, stops at the next event,
// and unwinds normally so that every RAII guard (embedded Redis, temp dirs, history file) runs.
#pragma once

#include <stdexcept>
#include <string>

namespace semsim {

// Installs SIGINT/SIGTERM/SIGHUP handlers that set the flag (once per process).
void install_interrupt_handlers();
// The signal that asked us to stop, or 0.
int interrupt_signal();
// "interrupted by SIGINT" (SIGTERM, SIGHUP): what a run stopped by it says.
std::string interrupted_by();
// How many such signals have come: cleanup that must finish after a first Ctrl-C gives up only
// on a later one.
int interrupt_count();

// Thrown where a wait (the embedded server's start, say) sees an interrupt: exit 130, at once.
struct Interrupted : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace semsim
