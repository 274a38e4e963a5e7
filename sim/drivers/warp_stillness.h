// Whether a driver's processes are all asleep: warp's "quiescence" (docs/drivers.md, warp). Virtual
// time may move only while no thread of any driver can run; a thread runs until it sleeps in the
// kernel, whatever it sleeps in (a wait the warp library made virtual, a read of its stdin or of a
// socket semsim feeds, a condition variable another of its threads signals).
//
// From /proc: every thread of every process below the driver's keeper, its state letter and how
// many times it has been put on a CPU (schedstat). One look is not enough: a thread seen asleep may
// be woken, just after, by one seen running a moment before, which then sleeps. Two looks that find
// the same threads, every one asleep, none of them run in between, mean that at the instant between
// the looks nothing ran. Each look lists the tree anew (an orphan moving to the keeper while a look
// reads may be missing from one). And a tree whose processes changed since it was last found still
// (a shell's pipeline starting: processes come and go faster than /proc's lists are read) is
// looked at again a little later before it is believed. Linux only.
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

// Looks at one process tree, keeping each thread's /proc files open between looks.
class Stillness {
 public:
  explicit Stillness(pid_t root) : root_(root) {}
  ~Stillness();
  Stillness(const Stillness&) = delete;
  Stillness& operator=(const Stillness&) = delete;

  // True when every thread below the root is asleep and none ran between two looks (and, for a
  // tree that changed, two more looks later). `busy`, when not: a thread that was running.
  bool still(ThreadLook* busy = nullptr);

 private:
  struct Files {
    int stat = -1, schedstat = -1;
  };
  bool two_looks(std::vector<ThreadLook>& look, ThreadLook* busy);
  std::vector<ThreadLook> list();  // every thread below the root now, read
  bool read(ThreadLook& t);        // through its open files; false if it is gone
  pid_t root_;
  std::map<std::pair<pid_t, pid_t>, Files> files_;
  std::vector<pid_t> known_;  // the threads when the tree was last found still
};

}  // namespace semsim
