// Ctrl-C and SIGTERM: the handler only sets a flag; the run loop sees it, stops at the next event,
// and unwinds normally so that every RAII guard (embedded Redis, temp dirs, history file) runs.
#pragma once

namespace semsim {

// Installs SIGINT/SIGTERM/SIGHUP handlers that set the flag (once per process).
void install_interrupt_handlers();
// The signal that asked us to stop, or 0.
int interrupt_signal();

}  // namespace semsim
