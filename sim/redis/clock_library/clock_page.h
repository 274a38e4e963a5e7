/* The control page shared by semsim and the clock library preloaded into redis-server: one
 * small file, mapped by both. semsim writes Redis's virtual wall-clock time before it delivers
 * each request; the library answers redis-server's main thread from it. Plain C: the library
 * has no dependency at all. */
#ifndef SEMSIM_CLOCK_PAGE_H
#define SEMSIM_CLOCK_PAGE_H

#include <stdint.h>

#define SEMSIM_CLOCK_MAGIC 0x53454d53494d434bULL /* "SEMSIMCK" */
#define SEMSIM_CLOCK_ENV "SEMSIM_CLOCK_PAGE"      /* the environment variable naming the file */
#define SEMSIM_CLOCK_VIRTUAL 1u                   /* flags: answer with realtime_ns */

struct semsim_clock_page {
  uint64_t magic;
  uint32_t seq;     /* seqlock: odd while semsim writes */
  uint32_t flags;   /* 0: real time (passed through) */
  int64_t realtime_ns; /* Redis's wall clock, ns since the Unix epoch */
};

#endif
