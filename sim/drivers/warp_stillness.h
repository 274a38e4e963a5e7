// Whether a driver's processes are all asleep: warp's "quiescence" (docs/drivers.md, warp). Virtual
// time may move only while no thread of any driver can run; a thread runs until it sleeps in the
// kernel, whatever it sleeps in (a wait the warp library made virtual, a read of its stdin or of a
// socket semsim feeds, a condition variable another of its threads signals).
//
// From /proc: every thread of every process below the driver's keeper, its state letter and how
// many times it has been put on a CPU (schedstat). One look is not enough: a thread seen asleep may
// be woken, just after, by one seen running a moment before, which then sleeps. Two looks that find
// every thread asleep, none of them run in between, mean that at the instant between the looks
// nothing ran: then nothing will, until semsim pokes it (a line, a reply, a wake signal) or an
// escape wakes it (a real timer). A thread or process made between the looks was made by one that
// ran: the second look need not list them again. Linux only.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace semsim {

struct ThreadLook {
  pid_t pid = 0, tid = 0;
  char state = '?';        // /proc's letter: R running or runnable, S sleeping, D disk, T stopped, Z ...
  std::uint64_t runs = 0;  // times it was scheduled on a CPU (the third field of schedstat)
  bool operator==(const ThreadLook&) const = default;
};

// Looks at one process tree, keeping each thread's /proc files open between looks (a look is then
// two reads a thread, not six system calls).
class Stillness {
 public:
  explicit Stillness(pid_t root) : root_(root) {}
  ~Stillness();
  Stillness(const Stillness&) = delete;
  Stillness& operator=(const Stillness&) = delete;

  // Two looks: true when every thread below the root is asleep in both and none ran in between.
  // `busy`, when not: a thread that was running (for messages).
  bool still(ThreadLook* busy = nullptr);

 private:
  struct Files {
    int stat = -1, schedstat = -1;
  };
  std::vector<ThreadLook> list();  // every thread below the root now, read
  bool read(ThreadLook& t);        // again, through its open files; false if it is gone
  pid_t root_;
  std::map<std::pair<pid_t, pid_t>, Files> files_;
};

}  // namespace semsim
