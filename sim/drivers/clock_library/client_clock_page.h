/* The control page of one driver's clock: one small file, written by semsim, mapped by the client
 * clock library preloaded into every process of that driver (sim/drivers/clock_library/). What
 * the driver's wall clock reads, at any real instant:
 *
 *   real CLOCK_REALTIME + offset_ns + (CLOCK_MONOTONIC - anchor_ns) * drift_ppm / 1e6
 *
 * A jump is one write of offset_ns. Plain C: the library has no dependency at all. */
#ifndef SEMSIM_CLIENT_CLOCK_PAGE_H
#define SEMSIM_CLIENT_CLOCK_PAGE_H

#include <stdint.h>

#define SEMSIM_CLIENT_CLOCK_MAGIC 0x53454d53494d6363ULL /* "SEMSIMcc" */
#define SEMSIM_CLIENT_CLOCK_ENV "SEMSIM_CLIENT_CLOCK_PAGE" /* the environment variable naming the file */
#define SEMSIM_CLIENT_CLOCK_SHIFT 1u                      /* flags: move the wall clock (else pass through) */

struct semsim_client_clock_page {
  uint64_t magic;
  uint32_t seq;       /* seqlock: odd while semsim writes */
  uint32_t flags;
  int64_t offset_ns;  /* added to the real wall clock (skew, jumps) */
  int64_t anchor_ns;  /* the CLOCK_MONOTONIC instant drift counts from (the run's start) */
  double drift_ppm;   /* the clock gains this much per second of true time, in millionths */
};

#endif
