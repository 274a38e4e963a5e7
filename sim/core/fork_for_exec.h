// fork() for a child that will exec another program, safe against semsim's own signal handlers.
//
// Between fork and exec a child still has semsim's handlers (interrupt.h): a SIGTERM sent to it then
// (semsim stopping the server it has just started, after a Ctrl-C that came at that moment) would
// only set the child's copy of the interrupt flag, and the program it then execs would run on,
// unaware: semsim waited for it to stop, then killed it, seconds later. So SIGINT, SIGTERM and
// SIGHUP are blocked across the fork; the child sets them to their default action, runs `setup`
// (async-signal-safe calls only; it may change a disposition, e.g. ignore SIGINT, or _exit) still
// blocked, then unblocks them: a signal that came meanwhile acts then, before anything is exec'd.
#pragma once

#include <signal.h>
#include <sys/types.h>
#include <unistd.h>

namespace semsim {

// The interrupt signals blocked on this thread while it lives (the mask before is put back).
class InterruptSignalsBlocked {
 public:
  InterruptSignalsBlocked();
  ~InterruptSignalsBlocked() { restore(); }
  InterruptSignalsBlocked(const InterruptSignalsBlocked&) = delete;
  InterruptSignalsBlocked& operator=(const InterruptSignalsBlocked&) = delete;
  void restore() const;  // async-signal-safe

 private:
  sigset_t before_;
};

// In a forked child: SIGINT, SIGTERM and SIGHUP back to their default action (async-signal-safe).
void default_interrupt_signals();

// fork(): in the parent the child's pid (or -1, errno set); in the child, after `setup()`, 0, and the
// caller execs at once.
template <typename Setup>
pid_t fork_for_exec(Setup&& setup) {
  const InterruptSignalsBlocked blocked;
  const pid_t pid = ::fork();
  if (pid == 0) {
    default_interrupt_signals();
    setup();
    blocked.restore();
  }
  return pid;
}

}  // namespace semsim
