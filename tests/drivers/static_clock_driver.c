/* A driver that semsim cannot move: a static binary (no dynamic linker, so no LD_PRELOAD) that
 * says `driver ok - ready` with its real clocks, then waits for its stdin to end. semsim must
 * refuse it at `ready`, naming why (tests/drivers/driver_run_test.cpp). */
#include <stdio.h>
#include <time.h>

int main(void) {
  struct timespec mono, wall;
  clock_gettime(CLOCK_MONOTONIC, &mono);
  clock_gettime(CLOCK_REALTIME, &wall);
  printf("%lld %lld driver ok - ready\n", (long long)mono.tv_sec * 1000000000LL + mono.tv_nsec,
         (long long)wall.tv_sec * 1000LL + wall.tv_nsec / 1000000);
  fflush(stdout);
  char line[256];
  while (fgets(line, sizeof line, stdin)) {
  }
  return 0;
}
