#include "sim/core/interrupt.h"

#include <csignal>
#include <initializer_list>

namespace semsim {
namespace {

// The one global in semsim: a signal handler can reach nothing else, and a volatile
// sig_atomic_t is the only object the C++ standard lets it write.
volatile std::sig_atomic_t g_interrupt_signal = 0;
volatile std::sig_atomic_t g_interrupt_count = 0;  // read and written only as a whole

extern "C" void on_interrupt(int signal_number) {
  g_interrupt_signal = signal_number;
  g_interrupt_count = g_interrupt_count + 1;
}

}  // namespace

void install_interrupt_handlers() {
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: a blocking poll() returns EINTR and the loop sees the flag
  for (int signal_number : {SIGINT, SIGTERM, SIGHUP}) sigaction(signal_number, &action, nullptr);
}

int interrupt_signal() { return g_interrupt_signal; }
int interrupt_count() { return g_interrupt_count; }

std::string interrupted_by() {
  switch (interrupt_signal()) {
    case SIGINT: return "interrupted by SIGINT";
    case SIGTERM: return "interrupted by SIGTERM";
    case SIGHUP: return "interrupted by SIGHUP";
    default: return "interrupted by signal " + std::to_string(interrupt_signal());
  }
}

}  // namespace semsim
