/* What the files of the client clock library share (never exported: each process has one page).
 * semsim_client_clock.c maps the page and serves the clocks; semsim_warp_waits.c makes timed waits
 * virtual; semsim_warp_random.c gives the client's random stream. */
#ifndef SEMSIM_CLIENT_LIBRARY_H
#define SEMSIM_CLIENT_LIBRARY_H

#include <stdint.h>
#include <time.h>

#include "client_clock_page.h"

#define SEMSIM_HIDDEN __attribute__((visibility("hidden")))

/* A system call, without libc (its result: the kernel's, -errno on failure). */
SEMSIM_HIDDEN long semsim_raw(long number, long a, long b, long c, long d, long e, long f);

/* The page when the process runs in warp (WARP set at start and the page writable), else NULL:
 * every intercepted wait and random source is the real one when this is NULL. */
SEMSIM_HIDDEN volatile struct semsim_client_clock_page* semsim_warp_page(void);

/* The virtual clocks now, read together under the page's seqlock. */
SEMSIM_HIDDEN void semsim_warp_now(int64_t* mono_ns, int64_t* wall_ns);

/* The real clock (the vDSO's, else the system call). */
SEMSIM_HIDDEN int semsim_real_clock_gettime(clockid_t id, struct timespec* ts);

/* Called once by the constructor when warp starts: the wake signal's handler, and the signal
 * blocked outside the library's waits (semsim_warp_waits.c). */
SEMSIM_HIDDEN void semsim_warp_start_waits(volatile struct semsim_client_clock_page* page);

/* `n` bytes of the client's random stream (semsim_warp_random.c). */
SEMSIM_HIDDEN void semsim_warp_random(volatile struct semsim_client_clock_page* page, void* buffer, unsigned long n);

/* Sets errno to `e` and returns -1 (libc's convention) when `ret` is a kernel error, else `ret`. */
SEMSIM_HIDDEN long semsim_errno_result(long ret);

#endif
