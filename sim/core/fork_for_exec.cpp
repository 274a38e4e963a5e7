#include "sim/core/fork_for_exec.h"

#include <pthread.h>

#include <initializer_list>

namespace semsim {

InterruptSignalsBlocked::InterruptSignalsBlocked() {
  sigset_t interrupts;
  sigemptyset(&interrupts);
  for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&interrupts, s);
  ::pthread_sigmask(SIG_BLOCK, &interrupts, &before_);
}

void InterruptSignalsBlocked::restore() const { ::pthread_sigmask(SIG_SETMASK, &before_, nullptr); }

void default_interrupt_signals() {
  struct sigaction deflt {};
  deflt.sa_handler = SIG_DFL;
  sigemptyset(&deflt.sa_mask);
  for (int s : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(s, &deflt, nullptr);
}

}  // namespace semsim
