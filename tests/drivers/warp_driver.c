/* A dynamic program for the warp tests (tests/drivers/warp_library_test.cpp): run under the client
 * clock library, it does one thing chosen by its arguments and prints what it got.
 *
 *   warp_driver clocks             both clocks, from the main thread and from a second thread
 *   warp_driver wait KIND MS       `tid T` first, then one timed wait of KIND for MS ms on stdin
 *                                  (readable when the test writes to it), and `result R errno E`
 *   warp_driver random N           N bytes of getrandom, getentropy, arc4random_buf, syscall
 *                                  getrandom and /dev/urandom (open, fopen), in hex, one line each
 *   warp_driver sigaction          tries to take the wake signal for itself, then waits as `wait`
 *   warp_driver escapes            arms a timerfd, an itimer, an alarm and a POSIX timer
 *
 * SIGUSR1 has a handler that does nothing (or sleeps, for `wait poll_sleeping_handler`): a foreign
 * signal, which must end a wait with EINTR. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

static int sleep_in_handler; /* `wait poll_sleeping_handler`: SIGUSR1's handler sleeps 500 ms */

static void on_usr1(int sig) {
  (void)sig;
  if (sleep_in_handler) {
    usleep(500000);
    printf("handler slept\n");
  }
}

static int64_t ns_of(const struct timespec* ts) { return (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec; }

static struct timespec ts_of(int64_t ns) {
  struct timespec ts = {ns / 1000000000, ns % 1000000000};
  return ts;
}

static int64_t now(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return ns_of(&ts);
}

static void* print_clocks(void* unused) {
  (void)unused;
  struct timeval tv;
  gettimeofday(&tv, NULL);
  struct timespec utc;
  timespec_get(&utc, TIME_UTC);
  printf("mono %lld boot %lld coarse %lld raw %lld wall %lld tai %lld tod_us %lld time %lld utc %lld\n",
         (long long)now(CLOCK_MONOTONIC), (long long)now(CLOCK_BOOTTIME), (long long)now(CLOCK_MONOTONIC_COARSE),
         (long long)now(CLOCK_MONOTONIC_RAW), (long long)now(CLOCK_REALTIME), (long long)now(CLOCK_TAI),
         (long long)tv.tv_sec * 1000000 + tv.tv_usec, (long long)time(NULL), (long long)ns_of(&utc));
  fflush(stdout);
  return NULL;
}

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static int futex_word;

/* One wait of `kind` for `ms` ms on fd 0; its result (and errno), as the program sees them. */
static long wait_kind(const char* kind, int64_t ms, int* error) {
  const int64_t ns = ms * 1000000;
  struct timespec rel = ts_of(ns);
  long r = -2;
  errno = 0;
  if (!strcmp(kind, "epoll_wait") || !strcmp(kind, "epoll_pwait") || !strcmp(kind, "epoll_pwait2")) {
    int ep = epoll_create1(0);
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = 0};
    epoll_ctl(ep, EPOLL_CTL_ADD, 0, &ev);
    sigset_t none;
    sigemptyset(&none);
    if (!strcmp(kind, "epoll_wait")) r = epoll_wait(ep, &ev, 1, (int)ms);
    if (!strcmp(kind, "epoll_pwait")) r = epoll_pwait(ep, &ev, 1, (int)ms, &none);
    if (!strcmp(kind, "epoll_pwait2")) r = epoll_pwait2(ep, &ev, 1, &rel, &none);
  } else if (!strcmp(kind, "poll") || !strcmp(kind, "ppoll")) {
    struct pollfd p = {.fd = 0, .events = POLLIN};
    r = !strcmp(kind, "poll") ? poll(&p, 1, (int)ms) : ppoll(&p, 1, &rel, NULL);
  } else if (!strcmp(kind, "poll_sleeping_handler")) {
    sleep_in_handler = 1;
    struct pollfd p = {.fd = 0, .events = POLLIN};
    r = poll(&p, 1, (int)ms);
  } else if (!strcmp(kind, "select") || !strcmp(kind, "pselect")) {
    fd_set in;
    FD_ZERO(&in);
    FD_SET(0, &in);
    struct timeval tv = {ms / 1000, (ms % 1000) * 1000};
    r = !strcmp(kind, "select") ? select(1, &in, NULL, NULL, &tv) : pselect(1, &in, NULL, NULL, &rel, NULL);
    if (r == 0 && FD_ISSET(0, &in)) r = -3; /* a timeout clears the sets */
  } else if (!strcmp(kind, "nanosleep")) {
    struct timespec rem = {0, 0};
    r = nanosleep(&rel, &rem);
    if (r < 0) printf("rem %lld\n", (long long)ns_of(&rem));
  } else if (!strcmp(kind, "clock_nanosleep")) {
    r = clock_nanosleep(CLOCK_MONOTONIC, 0, &rel, NULL);
  } else if (!strcmp(kind, "clock_nanosleep_abs")) {
    struct timespec at = ts_of(now(CLOCK_MONOTONIC) + ns);
    r = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL);
  } else if (!strcmp(kind, "clock_nanosleep_abs_realtime")) {
    struct timespec at = ts_of(now(CLOCK_REALTIME) + ns);
    r = clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &at, NULL);
  } else if (!strcmp(kind, "usleep")) {
    r = usleep((useconds_t)(ms * 1000));
  } else if (!strcmp(kind, "sleep")) {
    r = sleep((unsigned)(ms / 1000));
  } else if (!strcmp(kind, "cond_timedwait") || !strcmp(kind, "cond_timedwait_monotonic") ||
             !strcmp(kind, "cond_clockwait")) {
    pthread_cond_t cond;
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    clockid_t clock = !strcmp(kind, "cond_timedwait") ? CLOCK_REALTIME : CLOCK_MONOTONIC;
    pthread_condattr_setclock(&attr, clock);
    pthread_cond_init(&cond, &attr);
    struct timespec at = ts_of(now(clock) + ns);
    pthread_mutex_lock(&mutex);
    r = !strcmp(kind, "cond_clockwait") ? pthread_cond_clockwait(&cond, &mutex, CLOCK_MONOTONIC, &at)
                                        : pthread_cond_timedwait(&cond, &mutex, &at);
    pthread_mutex_unlock(&mutex);
  } else if (!strcmp(kind, "sem_timedwait") || !strcmp(kind, "sem_clockwait")) {
    sem_t sem;
    sem_init(&sem, 0, 0);
    if (!strcmp(kind, "sem_timedwait")) {
      struct timespec at = ts_of(now(CLOCK_REALTIME) + ns);
      r = sem_timedwait(&sem, &at);
    } else {
      struct timespec at = ts_of(now(CLOCK_MONOTONIC) + ns);
      r = sem_clockwait(&sem, CLOCK_MONOTONIC, &at);
    }
  } else if (!strcmp(kind, "mutex_timedlock") || !strcmp(kind, "mutex_clocklock")) {
    pthread_mutex_lock(&mutex); /* held: the timed lock below must time out (a normal mutex: EDEADLK is not checked) */
    if (!strcmp(kind, "mutex_timedlock")) {
      struct timespec at = ts_of(now(CLOCK_REALTIME) + ns);
      r = pthread_mutex_timedlock(&mutex, &at);
    } else {
      struct timespec at = ts_of(now(CLOCK_MONOTONIC) + ns);
      r = pthread_mutex_clocklock(&mutex, CLOCK_MONOTONIC, &at);
    }
  } else if (!strcmp(kind, "rwlock_timedwrlock")) {
    pthread_rwlock_t lock = PTHREAD_RWLOCK_INITIALIZER;
    pthread_rwlock_rdlock(&lock);
    struct timespec at = ts_of(now(CLOCK_REALTIME) + ns);
    r = pthread_rwlock_timedwrlock(&lock, &at);
  } else if (!strcmp(kind, "futex_wait")) {
    r = syscall(SYS_futex, &futex_word, FUTEX_WAIT_PRIVATE, 0, &rel, NULL, 0);
  } else if (!strcmp(kind, "futex_wait_bitset")) {
    struct timespec at = ts_of(now(CLOCK_MONOTONIC) + ns);
    r = syscall(SYS_futex, &futex_word, FUTEX_WAIT_BITSET_PRIVATE, 0, &at, NULL, FUTEX_BITSET_MATCH_ANY);
  }
  *error = errno;
  return r;
}

static void hex(const char* what, const unsigned char* bytes, size_t n) {
  printf("%s ", what);
  for (size_t i = 0; i < n; ++i) printf("%02x", bytes[i]);
  printf("\n");
}

static void random_bytes(size_t n) {
  unsigned char b[256];
  if (n > sizeof b) n = sizeof b;
  getrandom(b, n, 0);
  hex("getrandom", b, n);
  getentropy(b, n);
  hex("getentropy", b, n);
  arc4random_buf(b, n);
  hex("arc4random_buf", b, n);
  syscall(SYS_getrandom, b, n, 0);
  hex("syscall", b, n);
  int fd = open("/dev/urandom", O_RDONLY);
  ssize_t got = read(fd, b, n);
  close(fd);
  hex("open", b, got > 0 ? (size_t)got : 0);
  FILE* f = fopen("/dev/urandom", "r");
  got = (ssize_t)fread(b, 1, n, f);
  fclose(f);
  hex("fopen", b, got > 0 ? (size_t)got : 0);
}

static void on_wake_signal(int sig) { (void)sig; }

static void arm_escapes(void) {
  int tfd = timerfd_create(CLOCK_MONOTONIC, 0);
  struct itimerspec it = {{0, 0}, {100, 0}};
  timerfd_settime(tfd, 0, &it, NULL);
  struct itimerval iv = {{0, 0}, {100, 0}};
  setitimer(ITIMER_REAL, &iv, NULL);
  alarm(100);
  timer_t timer;
  struct sigevent ev = {.sigev_notify = SIGEV_NONE};
  timer_create(CLOCK_MONOTONIC, &ev, &timer);
  timer_settime(timer, 0, &it, NULL);
  printf("armed\n");
}

int main(int argc, char** argv) {
  signal(SIGUSR1, on_usr1);
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (argc >= 2 && !strcmp(argv[1], "clocks")) {
    print_clocks(NULL);
    pthread_t t;
    pthread_create(&t, NULL, print_clocks, NULL);
    pthread_join(t, NULL);
    return 0;
  }
  if (argc >= 3 && !strcmp(argv[1], "random")) {
    random_bytes((size_t)atoi(argv[2]));
    return 0;
  }
  if (argc >= 2 && !strcmp(argv[1], "escapes")) {
    arm_escapes();
    return 0;
  }
  if (argc >= 2 && !strcmp(argv[1], "sigaction")) {
    /* Every way a program can take or block a signal, on SIGRTMAX - 2 (the library's wake signal). */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_wake_signal;
    int taken = sigaction(SIGRTMAX - 2, &sa, NULL);
    signal(SIGRTMAX - 2, SIG_IGN);
    sigset_t all;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, NULL);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    sigset_t none;
    sigemptyset(&none);
    pthread_sigmask(SIG_UNBLOCK, &all, NULL);
    sigprocmask(SIG_SETMASK, &none, NULL);
    uint64_t blocked = 0; /* the thread's real mask, from the kernel */
    syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &blocked, sizeof blocked);
    printf("sigaction %d wake_blocked %d\n", taken, (int)((blocked >> (SIGRTMAX - 3)) & 1));
    argv[1] = "wait";
  }
  if (argc >= 4 && !strcmp(argv[1], "wait")) {
    printf("tid %ld\n", (long)syscall(SYS_gettid));
    int error = 0;
    long r = wait_kind(argv[2], atoll(argv[3]), &error);
    printf("result %ld errno %d\n", r, error);
    return 0;
  }
  fprintf(stderr, "usage: warp_driver clocks | wait KIND MS | random N | sigaction KIND MS | escapes\n");
  return 2;
}
