// Whether a driver's processes are all asleep: warp's "quiescence" (docs/drivers.md, warp). Virtual
// time may move only while no thread of any driver can run; a thread runs until it sleeps in the
// kernel, whatever it sleeps in (a wait the warp library made virtual, a read of its stdin or of a
// socket semsim feeds, a condition variable another of its threads signals).
//
// From /proc: every thread of every process below the driver's keeper, its state letter and how
// many times it has been put on a CPU (schedstat). One look is not enough: a thread seen asleep may
// be woken, just after, by one seen running a moment before, which then sleeps. Two looks that find
// the same threads, every one asleep, none of them run in between, mean that at the instant between
// the looks nothing ran: then nothing will, until semsim pokes it (a line, a reply, a wake signal)
// or an escape wakes it (a real timer). Linux only.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <vector>

namespace semsim {

struct ThreadLook {
  pid_t pid = 0, tid = 0;
  char state = '?';       // /proc's letter: R running or runnable, S sleeping, D disk, T stopped, Z ...
  std::uint64_t runs = 0;  // times it was scheduled on a CPU (the third field of schedstat)
  bool operator==(const ThreadLook&) const = default;
};

// Every thread of every descendant of `root` (not `root` itself), by /proc's children lists.
std::vector<ThreadLook> look_below(pid_t root);

// Whether a look finds each thread asleep (S, T, t, Z, X, I).
bool all_asleep(const std::vector<ThreadLook>& look);

// Two looks at `root`'s descendants: true when both find the same threads, all asleep, none run in
// between. `busy`, when not: a thread that was running (for messages).
bool still_below(pid_t root, ThreadLook* busy = nullptr);

}  // namespace semsim
