/* The control page of one driver's clock: one small file, written by semsim, mapped by the client
 * clock library preloaded into every process of that driver (sim/drivers/clock_library/).
 *
 * Paced runs (flags SHIFT, not WARP): what the driver's wall clock reads, at any real instant:
 *
 *   real CLOCK_REALTIME + offset_ns + (CLOCK_MONOTONIC - anchor_ns) * drift_ppm / 1e6
 *
 * and a jump is one write of offset_ns; the monotonic clock and every wait stay real.
 *
 * Warp (flags WARP: the driver in virtual time, docs/drivers.md): every clock reads the page
 * (CLOCK_MONOTONIC and BOOTTIME `mono_ns`, CLOCK_REALTIME `wall_ns`, which semsim computes with the
 * client's skew, drift and jumps), and time moves only when semsim writes it, between the driver's
 * turns. Each thread that enters a timed wait says so in a slot of `threads` (its deadline in
 * virtual monotonic ns), then waits on what it waits for without a real timeout; semsim, once every
 * process of every driver is asleep, advances the clock to the earliest deadline (or delivery, or
 * planned step) and sends `wake_signal` to the threads whose deadline came. Random bytes
 * (getrandom, /dev/urandom) come from `seed`, block by block, `drawn` counting the blocks taken.
 * Plain C: the library has no dependency at all. */
#ifndef SEMSIM_CLIENT_CLOCK_PAGE_H
#define SEMSIM_CLIENT_CLOCK_PAGE_H

#include <stdint.h>

#define SEMSIM_CLIENT_CLOCK_MAGIC 0x53454d53494d6364ULL /* "SEMSIMcd" (the page with warp's fields) */
#define SEMSIM_CLIENT_CLOCK_ENV "SEMSIM_CLIENT_CLOCK_PAGE" /* the environment variable naming the file */
#define SEMSIM_CLIENT_CLOCK_SHIFT 1u                      /* flags: move the wall clock (else pass through) */
#define SEMSIM_CLIENT_CLOCK_WARP 2u                       /* flags: virtual time (the fields below) */

#define SEMSIM_WARP_THREADS 512 /* slots: threads of all the driver's processes that ever waited */
#define SEMSIM_WARP_NO_DEADLINE INT64_MAX

/* What a thread is doing, as its slot says. */
#define SEMSIM_WARP_RUNNING 0u /* not in an intercepted wait */
#define SEMSIM_WARP_WAITING 1u /* in a wait a signal interrupts (epoll, poll, select, sleeps) */
#define SEMSIM_WARP_SLICED 2u  /* in a wait a signal does not end (condition variables, semaphores, futexes):
                                  it wakes every SEMSIM_WARP_SLICE_NS of real time to look at the clock */
#define SEMSIM_WARP_SLICE_NS 10000000

/* What the library saw that warp cannot make virtual (bits of `escapes`): semsim names them. */
#define SEMSIM_WARP_ESCAPE_TIMERFD 1u  /* timerfd_settime: a timer the kernel runs in real time */
#define SEMSIM_WARP_ESCAPE_ITIMER 2u   /* alarm, setitimer(ITIMER_REAL), timer_settime */
#define SEMSIM_WARP_ESCAPE_SIGNAL 4u   /* the program tried to take the wake signal for itself */

struct semsim_warp_thread {
  int32_t tid;          /* the thread (0: a free slot; claimed with a compare-and-swap) */
  int32_t pid;          /* its process (for tgkill) */
  uint32_t state;       /* SEMSIM_WARP_RUNNING / WAITING / SLICED; written last on entry (release) */
  uint32_t reserved;
  int64_t deadline_ns;  /* virtual CLOCK_MONOTONIC instant the wait ends (SEMSIM_WARP_NO_DEADLINE: none) */
  uint64_t waits;       /* waits entered, ever: a new wait is a new number */
};

struct semsim_client_clock_page {
  uint64_t magic;
  uint32_t seq;       /* seqlock: odd while semsim writes the clock fields */
  uint32_t flags;
  int64_t offset_ns;  /* paced: added to the real wall clock (skew, jumps) */
  int64_t anchor_ns;  /* paced: the CLOCK_MONOTONIC instant drift counts from (the run's start) */
  double drift_ppm;   /* paced: the clock gains this much per second of true time, in millionths */
  /* warp */
  int64_t mono_ns;     /* CLOCK_MONOTONIC, CLOCK_BOOTTIME (and their raw, coarse forms) now */
  int64_t wall_ns;     /* CLOCK_REALTIME (and TAI, coarse) now: ns since the Unix epoch */
  int32_t wake_signal; /* the signal semsim sends a thread whose deadline came */
  uint32_t escapes;    /* SEMSIM_WARP_ESCAPE_* bits, set by the library */
  uint64_t seed;       /* the client's random stream */
  uint64_t drawn;      /* 8-byte blocks of it taken so far (atomic add) */
  struct semsim_warp_thread threads[SEMSIM_WARP_THREADS];
};

/* Block i of a client's random stream (splitmix64 of seed and i): the same bytes for the same
 * seed, whatever asks for them. */
static inline uint64_t semsim_warp_random_block(uint64_t seed, uint64_t i) {
  uint64_t z = seed + (i + 1) * 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

#endif
