/* Warp's timed waits (client_clock_page.h): a thread that waits with a timeout says so in its slot
 * of the page (its deadline in virtual monotonic ns) and waits on what it waits for without a real
 * timeout; semsim advances virtual time and sends the wake signal to the threads whose deadline
 * came. Outside warp (no page, or a paced page) every function here is exactly the real one.
 *
 * Two kinds of wait:
 *   - WAITING: epoll, poll, select and the sleeps, which a signal interrupts. The real call is the
 *     signal-mask form (epoll_pwait, ppoll, pselect6) with no timeout. The wake signal is blocked in
 *     every thread outside those calls (the library blocks it at start and keeps it blocked through
 *     the program's own mask changes), so it can only arrive inside one: the mask the call installs
 *     unblocks it atomically, and a signal semsim sent a moment before the call is pending, not lost.
 *     It is never delivered in the middle of the program's own code, where its EINTR would surprise.
 *   - SLICED: condition variables, semaphores, timed mutex and read-write locks, and futex waits
 *     made through syscall(), which a signal does not end: the real call runs in slices of SEMSIM_WARP_SLICE_NS of real time,
 *     looking at the virtual clock between them.
 * syscall() is here too: its futex waits are sliced, its getrandom is the client's stream.
 * A program cannot take the wake signal (sigaction and signal pretend success and set
 * SEMSIM_WARP_ESCAPE_SIGNAL, unless they only reset it to SIG_DFL, as a program that resets every
 * signal at start does) nor unblock it. Timers the kernel runs in real time (timerfd, itimers, alarm,
 * POSIX timers) run, and set their SEMSIM_WARP_ESCAPE_* bit. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "semsim_client_library.h"

/* SIGRTMAX - 2 (glibc takes 32 and 33 for itself; runtimes that use real-time signals take them
 * from SIGRTMIN up). The kernel's number: glibc's SIGRTMAX is a function call. */
#define WAKE_SIGNAL 62
#define WAKE_BIT (1ULL << (WAKE_SIGNAL - 1))
#define NS 1000000000LL
#ifndef SA_RESTORER
#define SA_RESTORER 0x04000000
#endif
#ifndef SYS_epoll_pwait2
#define SYS_epoll_pwait2 441
#endif

/* Set by the wake signal's handler: the EINTR a wait got was semsim's. Per thread; initial-exec
 * TLS (the library is preloaded, so its TLS is in the static block: no allocation). */
static __thread volatile sig_atomic_t woken __attribute__((tls_model("initial-exec")));
/* Where this thread's slot was last time (checked against its tid before use: never trusted). */
static __thread int slot_hint __attribute__((tls_model("initial-exec")));

static void on_wake(int sig) {
  (void)sig;
  woken = 1;
}

/* The kernel's rt_sigaction wants a restorer that calls rt_sigreturn: these exact bytes (mov $15,
 * %rax; syscall), which unwinders recognise as a signal frame, as they do glibc's. */
void semsim_restore_rt(void) SEMSIM_HIDDEN;
__asm__(".pushsection .text\n.align 16\n.type semsim_restore_rt,@function\nsemsim_restore_rt:\n"
        "\tmovq $15, %rax\n\tsyscall\n.size semsim_restore_rt,.-semsim_restore_rt\n.popsection\n");

struct kernel_sigaction {
  void (*handler)(int);
  unsigned long flags;
  void (*restorer)(void);
  uint64_t mask;
};

void semsim_warp_start_waits(volatile struct semsim_client_clock_page* page) {
  __atomic_store_n(&page->wake_signal, WAKE_SIGNAL, __ATOMIC_RELEASE);
  struct kernel_sigaction act = {on_wake, SA_RESTORER, semsim_restore_rt, 0};
  semsim_raw(SYS_rt_sigaction, WAKE_SIGNAL, (long)&act, 0, sizeof(uint64_t), 0, 0);
  uint64_t block = WAKE_BIT;
  semsim_raw(SYS_rt_sigprocmask, SIG_BLOCK, (long)&block, 0, sizeof block, 0, 0);
}

static void escape(volatile struct semsim_client_clock_page* page, uint32_t bit) {
  __atomic_fetch_or(&page->escapes, bit, __ATOMIC_RELAXED);
}

/* The next definition of a libc function (found on first use: never in the constructor). */
static void* next_symbol(void** cache, const char* name, const char* version) {
  void* f = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
  if (f) return f;
  if (version) f = dlvsym(RTLD_NEXT, name, version);
  if (!f) f = dlsym(RTLD_NEXT, name);
  __atomic_store_n(cache, f, __ATOMIC_RELEASE);
  return f;
}
#define NEXT(type, name, version)    \
  static void* name##_cache;         \
  type real = (type)next_symbol(&name##_cache, #name, version)

/* ---- time arithmetic ---- */

static int valid(const struct timespec* ts) { return ts->tv_nsec >= 0 && ts->tv_nsec < NS && ts->tv_sec >= 0; }

/* ns in `ts` (saturating: a timeout of centuries is none). */
static int64_t ns_of(const struct timespec* ts) {
  if (ts->tv_sec >= INT64_MAX / NS - 1) return SEMSIM_WARP_NO_DEADLINE;
  return (int64_t)ts->tv_sec * NS + ts->tv_nsec;
}

static int64_t after(int64_t now, int64_t ns) {
  return ns >= SEMSIM_WARP_NO_DEADLINE - now ? SEMSIM_WARP_NO_DEADLINE : now + ns;
}

static void to_timespec(int64_t ns, struct timespec* ts) {
  if (ns < 0) ns = 0;
  ts->tv_sec = ns / NS;
  ts->tv_nsec = ns % NS;
}

static int64_t mono_now(void) {
  int64_t mono, wall;
  semsim_warp_now(&mono, &wall);
  return mono;
}

static int wall_clock(clockid_t id) {
  return id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE || id == CLOCK_REALTIME_ALARM || id == CLOCK_TAI;
}

/* The virtual monotonic instant of an absolute time `at` on clock `id` (a wall clock's by the
 * page's wall clock now). */
static int64_t deadline_of(clockid_t id, const struct timespec* at) {
  int64_t mono, wall;
  semsim_warp_now(&mono, &wall);
  int64_t t = ns_of(at);
  if (!wall_clock(id) || t == SEMSIM_WARP_NO_DEADLINE) return t;
  return t - wall >= SEMSIM_WARP_NO_DEADLINE - mono ? SEMSIM_WARP_NO_DEADLINE : mono + (t - wall);
}

/* ---- slots ---- */

/* This thread's slot: the one with its tid (even a stale one: a tid is unique among live
 * threads), else a free one claimed. NULL when all are taken. */
static volatile struct semsim_warp_thread* my_slot(volatile struct semsim_client_clock_page* page) {
  const int32_t tid = (int32_t)semsim_raw(SYS_gettid, 0, 0, 0, 0, 0, 0);
  int h = slot_hint;
  if (h >= 0 && h < SEMSIM_WARP_THREADS && page->threads[h].tid == tid) return &page->threads[h];
  for (int i = 0; i < SEMSIM_WARP_THREADS; ++i)
    if (page->threads[i].tid == tid) return slot_hint = i, &page->threads[i];
  for (int i = 0; i < SEMSIM_WARP_THREADS; ++i) {
    int32_t free_tid = 0;
    if (page->threads[i].tid == 0 &&
        __atomic_compare_exchange_n(&page->threads[i].tid, &free_tid, tid, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
      return slot_hint = i, &page->threads[i];
  }
  return NULL;
}

/* A wait in progress: the thread's slot (NULL: none free, the wait is invisible to semsim) and
 * what it said before, for a wait inside a signal handler that interrupted another. */
struct entered {
  volatile struct semsim_warp_thread* slot;
  uint32_t state;
  int64_t deadline;
};

static struct entered enter(volatile struct semsim_client_clock_page* page, int64_t deadline, uint32_t state) {
  struct entered e = {my_slot(page), SEMSIM_WARP_RUNNING, 0};
  if (!e.slot) return e;
  e.state = e.slot->state;
  e.deadline = e.slot->deadline_ns;
  e.slot->pid = (int32_t)semsim_raw(SYS_getpid, 0, 0, 0, 0, 0, 0);
  e.slot->deadline_ns = deadline;
  e.slot->waits = e.slot->waits + 1;
  __atomic_store_n(&e.slot->state, state, __ATOMIC_RELEASE);
  return e;
}

static void leave(struct entered e) {
  if (!e.slot) return;
  if (e.state != SEMSIM_WARP_RUNNING) e.slot->deadline_ns = e.deadline;
  __atomic_store_n(&e.slot->state, e.state, __ATOMIC_RELEASE);
}

/* ---- waits a signal interrupts ---- */

/* One real call with no timeout, under signal mask `mask` (the kernel's result). */
typedef long (*blocking_call)(const long* args, const uint64_t* mask);

enum { RETURNED, TIMED_OUT };

/* Waits as `call` does, until it returns (events, an error, a foreign signal's EINTR: *how =
 * RETURNED and its result) or virtual time reaches `deadline` (*how = TIMED_OUT). The signal mask
 * during the wait is the caller's (`caller_mask`, else the thread's) without the wake signal. */
static long virtual_wait(volatile struct semsim_client_clock_page* page, int64_t deadline,
                         const sigset_t* caller_mask, blocking_call call, const long* args, int* how) {
  uint64_t mask;
  if (caller_mask)
    mask = *(const uint64_t*)caller_mask;
  else
    semsim_raw(SYS_rt_sigprocmask, SIG_BLOCK, 0, (long)&mask, sizeof mask, 0, 0);
  mask &= ~WAKE_BIT;
  struct entered t = enter(page, deadline, SEMSIM_WARP_WAITING);
  const sig_atomic_t outer = woken; /* a wait in a handler must not make the one it interrupted ours */
  long r;
  *how = RETURNED;
  for (;;) {
    woken = 0;
    r = call(args, &mask);
    if (r != -EINTR) break;
    if (mono_now() >= deadline) {
      *how = TIMED_OUT;
      r = 0;
      break;
    }
    if (!woken) break; /* another signal: its EINTR is the caller's, as the kernel would give it */
  }
  leave(t);
  woken = outer;
  return r;
}

static long call_epoll(const long* a, const uint64_t* mask) {
  return semsim_raw(SYS_epoll_pwait, a[0], a[1], a[2], -1, (long)mask, sizeof *mask);
}

static long call_ppoll(const long* a, const uint64_t* mask) {
  return semsim_raw(SYS_ppoll, a[0], a[1], 0, (long)mask, sizeof *mask, 0);
}

static long call_pselect(const long* a, const uint64_t* mask) {
  const long data[2] = {(long)mask, sizeof *mask};
  return semsim_raw(SYS_pselect6, a[0], a[1], a[2], a[3], 0, (long)data);
}

static int64_t ms_deadline(int timeout_ms) {
  return timeout_ms < 0 ? SEMSIM_WARP_NO_DEADLINE : after(mono_now(), (int64_t)timeout_ms * 1000000);
}

static int zero(const struct timespec* ts) { return ts && ts->tv_sec == 0 && ts->tv_nsec == 0; }

static int epoll_virtual(int epfd, struct epoll_event* events, int max, int64_t deadline, const sigset_t* mask) {
  const long args[3] = {epfd, (long)events, max};
  int how;
  return (int)semsim_errno_result(virtual_wait(semsim_warp_page(), deadline, mask, call_epoll, args, &how));
}

int epoll_wait(int epfd, struct epoll_event* events, int max, int timeout) {
  if (!semsim_warp_page() || timeout == 0)
    return (int)semsim_errno_result(semsim_raw(SYS_epoll_wait, epfd, (long)events, max, timeout, 0, 0));
  return epoll_virtual(epfd, events, max, ms_deadline(timeout), NULL);
}

int epoll_pwait(int epfd, struct epoll_event* events, int max, int timeout, const sigset_t* mask) {
  if (!semsim_warp_page() || timeout == 0)
    return (int)semsim_errno_result(
        semsim_raw(SYS_epoll_pwait, epfd, (long)events, max, timeout, (long)mask, sizeof(uint64_t)));
  return epoll_virtual(epfd, events, max, ms_deadline(timeout), mask);
}

int epoll_pwait2(int epfd, struct epoll_event* events, int max, const struct timespec* timeout,
                 const sigset_t* mask) {
  if (!semsim_warp_page() || zero(timeout) || (timeout && !valid(timeout)))
    return (int)semsim_errno_result(
        semsim_raw(SYS_epoll_pwait2, epfd, (long)events, max, (long)timeout, (long)mask, sizeof(uint64_t)));
  return epoll_virtual(epfd, events, max, timeout ? after(mono_now(), ns_of(timeout)) : SEMSIM_WARP_NO_DEADLINE,
                       mask);
}

static int poll_virtual(struct pollfd* fds, nfds_t n, int64_t deadline, const sigset_t* mask) {
  const long args[2] = {(long)fds, (long)n};
  int how;
  long r = virtual_wait(semsim_warp_page(), deadline, mask, call_ppoll, args, &how);
  if (how == TIMED_OUT)
    for (nfds_t i = 0; i < n; ++i) fds[i].revents = 0;
  return (int)semsim_errno_result(r);
}

int poll(struct pollfd* fds, nfds_t n, int timeout) {
  if (!semsim_warp_page() || timeout == 0)
    return (int)semsim_errno_result(semsim_raw(SYS_poll, (long)fds, (long)n, timeout, 0, 0, 0));
  return poll_virtual(fds, n, ms_deadline(timeout), NULL);
}

int ppoll(struct pollfd* fds, nfds_t n, const struct timespec* timeout, const sigset_t* mask) {
  if (!semsim_warp_page() || zero(timeout) || (timeout && !valid(timeout))) {
    struct timespec copy; /* the kernel writes the time left back: not into the caller's const */
    if (timeout) copy = *timeout;
    return (int)semsim_errno_result(
        semsim_raw(SYS_ppoll, (long)fds, (long)n, timeout ? (long)&copy : 0, (long)mask, sizeof(uint64_t), 0));
  }
  return poll_virtual(fds, n, timeout ? after(mono_now(), ns_of(timeout)) : SEMSIM_WARP_NO_DEADLINE, mask);
}

static void clear_set(fd_set* set, int n) {
  if (!set) return;
  uint64_t* words = (uint64_t*)set;
  for (int i = 0; i < (n + 63) / 64; ++i) words[i] = 0;
}

/* select's sets are cleared by a timeout; `left` gets the virtual time left, as Linux's select
 * writes it. */
static int select_virtual(int n, fd_set* r, fd_set* w, fd_set* e, int64_t deadline, const sigset_t* mask,
                          struct timeval* left) {
  const long args[4] = {n, (long)r, (long)w, (long)e};
  int how;
  long ret = virtual_wait(semsim_warp_page(), deadline, mask, call_pselect, args, &how);
  if (how == TIMED_OUT) clear_set(r, n), clear_set(w, n), clear_set(e, n);
  if (left) {
    struct timespec ts;
    to_timespec(how == TIMED_OUT ? 0 : deadline - mono_now(), &ts);
    left->tv_sec = ts.tv_sec;
    left->tv_usec = ts.tv_nsec / 1000;
  }
  return (int)semsim_errno_result(ret);
}

int select(int n, fd_set* r, fd_set* w, fd_set* e, struct timeval* timeout) {
  if (!semsim_warp_page() || (timeout && timeout->tv_sec == 0 && timeout->tv_usec == 0) ||
      (timeout && (timeout->tv_sec < 0 || timeout->tv_usec < 0 || timeout->tv_usec >= 1000000)))
    return (int)semsim_errno_result(semsim_raw(SYS_select, n, (long)r, (long)w, (long)e, (long)timeout, 0));
  int64_t deadline = SEMSIM_WARP_NO_DEADLINE;
  if (timeout) {
    struct timespec ts = {timeout->tv_sec, timeout->tv_usec * 1000};
    deadline = after(mono_now(), ns_of(&ts));
  }
  return select_virtual(n, r, w, e, deadline, NULL, timeout);
}

int pselect(int n, fd_set* r, fd_set* w, fd_set* e, const struct timespec* timeout, const sigset_t* mask) {
  if (!semsim_warp_page() || zero(timeout) || (timeout && !valid(timeout))) {
    struct timespec copy;
    if (timeout) copy = *timeout;
    const long data[2] = {(long)mask, sizeof(uint64_t)};
    return (int)semsim_errno_result(
        semsim_raw(SYS_pselect6, n, (long)r, (long)w, (long)e, timeout ? (long)&copy : 0, (long)data));
  }
  return select_virtual(n, r, w, e, timeout ? after(mono_now(), ns_of(timeout)) : SEMSIM_WARP_NO_DEADLINE, mask,
                        NULL);
}

/* A sleep until `deadline`: 0, or -EINTR with the virtual time left in `rem` (a foreign signal). */
static long sleep_virtual(int64_t deadline, struct timespec* rem) {
  int how;
  long r = virtual_wait(semsim_warp_page(), deadline, NULL, call_ppoll, (const long[2]){0, 0}, &how);
  if (how == TIMED_OUT) return 0;
  if (rem) to_timespec(deadline - mono_now(), rem);
  return r == 0 ? -EINTR : r; /* ppoll of nothing returns only for a signal */
}

int nanosleep(const struct timespec* req, struct timespec* rem) {
  if (!semsim_warp_page() || zero(req) || !valid(req))
    return (int)semsim_errno_result(semsim_raw(SYS_nanosleep, (long)req, (long)rem, 0, 0, 0, 0));
  return (int)semsim_errno_result(sleep_virtual(after(mono_now(), ns_of(req)), rem));
}

int clock_nanosleep(clockid_t id, int flags, const struct timespec* req, struct timespec* rem) {
  if (id == CLOCK_THREAD_CPUTIME_ID) return EINVAL; /* as glibc does */
  if (id == CLOCK_PROCESS_CPUTIME_ID) id = -6; /* the kernel's id for it: MAKE_PROCESS_CPUCLOCK(0, CPUCLOCK_SCHED) */
  const int absolute = flags & TIMER_ABSTIME;
  /* the clocks the kernel sleeps on (not the raw and coarse ones: those get its EINVAL) */
  const int sleeps_on = id == CLOCK_REALTIME || id == CLOCK_MONOTONIC || id == CLOCK_BOOTTIME || id == CLOCK_TAI ||
                        id == CLOCK_REALTIME_ALARM || id == CLOCK_BOOTTIME_ALARM;
  if (!semsim_warp_page() || !sleeps_on || !valid(req) || (!absolute && zero(req))) {
    long r = semsim_raw(SYS_clock_nanosleep, id, flags, (long)req, (long)rem, 0, 0);
    return r < 0 ? (int)-r : 0;
  }
  const int64_t deadline = absolute ? deadline_of(id, req) : after(mono_now(), ns_of(req));
  if (deadline <= mono_now()) return 0; /* an absolute time that has passed */
  long r = sleep_virtual(deadline, absolute ? NULL : rem);
  return r < 0 ? (int)-r : 0;
}

int usleep(useconds_t us) {
  struct timespec ts = {us / 1000000, (long)(us % 1000000) * 1000};
  return nanosleep(&ts, NULL);
}

unsigned int sleep(unsigned int seconds) {
  struct timespec ts = {seconds, 0}, rem = {0, 0};
  const int saved = errno;
  if (nanosleep(&ts, &rem) < 0) return (unsigned int)rem.tv_sec; /* whole seconds not slept, as glibc's */
  errno = saved;
  return 0;
}

/* ---- waits a signal does not end: sliced ---- */

/* The real absolute CLOCK_MONOTONIC instant one slice from now. */
static struct timespec slice_end(clockid_t id) {
  struct timespec now;
  semsim_real_clock_gettime(id, &now);
  now.tv_nsec += SEMSIM_WARP_SLICE_NS;
  if (now.tv_nsec >= NS) now.tv_sec += 1, now.tv_nsec -= NS;
  return now;
}

typedef int (*cond_clockwait_fn)(pthread_cond_t*, pthread_mutex_t*, clockid_t, const struct timespec*);
typedef int (*cond_timedwait_fn)(pthread_cond_t*, pthread_mutex_t*, const struct timespec*);

/* glibc keeps a condition variable's clock in bit 1 of __wrefs (set: CLOCK_MONOTONIC). */
static clockid_t cond_clock(const pthread_cond_t* cond) {
  return (__atomic_load_n(&cond->__data.__wrefs, __ATOMIC_RELAXED) & 2) ? CLOCK_MONOTONIC : CLOCK_REALTIME;
}

/* A condition variable's wait until the virtual instant `at` on clock `id`, in real slices (on
 * CLOCK_MONOTONIC with glibc's pthread_cond_clockwait, else on the variable's own clock). */
static int cond_sliced(volatile struct semsim_client_clock_page* page, pthread_cond_t* cond, pthread_mutex_t* mutex,
                       clockid_t id, const struct timespec* at) {
  NEXT(cond_clockwait_fn, pthread_cond_clockwait, "GLIBC_2.30");
  cond_clockwait_fn clockwait = real;
  const int64_t deadline = deadline_of(id, at);
  struct entered t = enter(page, deadline, SEMSIM_WARP_SLICED);
  int r = ETIMEDOUT;
  while (mono_now() < deadline) {
    if (clockwait) {
      struct timespec end = slice_end(CLOCK_MONOTONIC);
      r = clockwait(cond, mutex, CLOCK_MONOTONIC, &end);
    } else {
      NEXT(cond_timedwait_fn, pthread_cond_timedwait, "GLIBC_2.3.2");
      struct timespec end = slice_end(cond_clock(cond));
      r = real(cond, mutex, &end);
    }
    if (r != ETIMEDOUT) break;
  }
  leave(t);
  return r;
}

int pthread_cond_timedwait(pthread_cond_t* cond, pthread_mutex_t* mutex, const struct timespec* at) {
  volatile struct semsim_client_clock_page* page = semsim_warp_page();
  if (!page || !valid(at)) {
    NEXT(cond_timedwait_fn, pthread_cond_timedwait, "GLIBC_2.3.2");
    return real(cond, mutex, at);
  }
  return cond_sliced(page, cond, mutex, cond_clock(cond), at);
}

int pthread_cond_clockwait(pthread_cond_t* cond, pthread_mutex_t* mutex, clockid_t id, const struct timespec* at) {
  volatile struct semsim_client_clock_page* page = semsim_warp_page();
  if (!page || !valid(at) || (id != CLOCK_MONOTONIC && id != CLOCK_REALTIME)) {
    NEXT(cond_clockwait_fn, pthread_cond_clockwait, "GLIBC_2.30");
    return real(cond, mutex, id, at);
  }
  return cond_sliced(page, cond, mutex, id, at);
}

/* Mutexes and read-write locks taken with a deadline: sliced on glibc's clock forms (2.30), on
 * CLOCK_MONOTONIC (pthread_mutex_clocklock, pthread_rwlock_clockrdlock, _clockwrlock). */
typedef int (*lock_clock_fn)(void*, clockid_t, const struct timespec*);
typedef int (*lock_timed_fn)(void*, const struct timespec*);

static int lock_sliced(lock_clock_fn clocklock, void* lock, clockid_t id, const struct timespec* at) {
  volatile struct semsim_client_clock_page* page = semsim_warp_page();
  const int64_t deadline = deadline_of(id, at);
  struct entered t = enter(page, deadline, SEMSIM_WARP_SLICED);
  int r = ETIMEDOUT;
  while (mono_now() < deadline) {
    struct timespec end = slice_end(CLOCK_MONOTONIC);
    r = clocklock(lock, CLOCK_MONOTONIC, &end);
    if (r != ETIMEDOUT) break;
  }
  leave(t);
  return r;
}

/* `name` (the timed form, on CLOCK_REALTIME) and `clock_name` (any clock), both sliced in warp. */
#define TIMED_LOCK(type, name, clock_name)                                                     \
  int clock_name(type* lock, clockid_t id, const struct timespec* at) {                        \
    NEXT(lock_clock_fn, clock_name, "GLIBC_2.30");                                             \
    if (!semsim_warp_page() || !real || !valid(at) || (id != CLOCK_MONOTONIC && id != CLOCK_REALTIME)) \
      return real(lock, id, at);                                                               \
    return lock_sliced(real, lock, id, at);                                                    \
  }                                                                                            \
  int name(type* lock, const struct timespec* at) {                                            \
    NEXT(lock_clock_fn, clock_name, "GLIBC_2.30");                                             \
    lock_clock_fn clocklock = real;                                                            \
    if (!semsim_warp_page() || !clocklock || !valid(at)) {                                     \
      NEXT(lock_timed_fn, name, NULL);                                                         \
      return real(lock, at);                                                                   \
    }                                                                                          \
    return lock_sliced(clocklock, lock, CLOCK_REALTIME, at);                                   \
  }
TIMED_LOCK(pthread_mutex_t, pthread_mutex_timedlock, pthread_mutex_clocklock)
TIMED_LOCK(pthread_rwlock_t, pthread_rwlock_timedrdlock, pthread_rwlock_clockrdlock)
TIMED_LOCK(pthread_rwlock_t, pthread_rwlock_timedwrlock, pthread_rwlock_clockwrlock)

typedef int (*sem_clockwait_fn)(sem_t*, clockid_t, const struct timespec*);
typedef int (*sem_timedwait_fn)(sem_t*, const struct timespec*);

static int sem_sliced(volatile struct semsim_client_clock_page* page, sem_t* sem, clockid_t id,
                      const struct timespec* at) {
  NEXT(sem_clockwait_fn, sem_clockwait, "GLIBC_2.30");
  sem_clockwait_fn clockwait = real;
  const int64_t deadline = deadline_of(id, at);
  struct entered t = enter(page, deadline, SEMSIM_WARP_SLICED);
  int r = -1;
  errno = ETIMEDOUT;
  while (mono_now() < deadline) {
    if (clockwait) {
      struct timespec end = slice_end(CLOCK_MONOTONIC);
      r = clockwait(sem, CLOCK_MONOTONIC, &end);
    } else {
      NEXT(sem_timedwait_fn, sem_timedwait, NULL);
      struct timespec end = slice_end(CLOCK_REALTIME);
      r = real(sem, &end);
    }
    if (r == 0 || errno != ETIMEDOUT) break;
  }
  leave(t);
  return r;
}

int sem_timedwait(sem_t* sem, const struct timespec* at) {
  volatile struct semsim_client_clock_page* page = semsim_warp_page();
  if (!page || !valid(at)) {
    NEXT(sem_timedwait_fn, sem_timedwait, NULL);
    return real(sem, at);
  }
  return sem_sliced(page, sem, CLOCK_REALTIME, at);
}

int sem_clockwait(sem_t* sem, clockid_t id, const struct timespec* at) {
  volatile struct semsim_client_clock_page* page = semsim_warp_page();
  if (!page || !valid(at) || (id != CLOCK_MONOTONIC && id != CLOCK_REALTIME)) {
    NEXT(sem_clockwait_fn, sem_clockwait, "GLIBC_2.30");
    return real(sem, id, at);
  }
  return sem_sliced(page, sem, id, at);
}

/* A futex wait with a timeout (FUTEX_WAIT: relative; FUTEX_WAIT_BITSET: absolute, monotonic unless
 * FUTEX_CLOCK_REALTIME), in real slices of FUTEX_WAIT_BITSET on the real monotonic clock. */
static long futex_sliced(volatile struct semsim_client_clock_page* page, long uaddr, int op, long val,
                         const struct timespec* timeout, long val3) {
  const int cmd = op & FUTEX_CMD_MASK;
  const int64_t deadline = cmd == FUTEX_WAIT
                               ? after(mono_now(), ns_of(timeout))
                               : deadline_of((op & FUTEX_CLOCK_REALTIME) ? CLOCK_REALTIME : CLOCK_MONOTONIC, timeout);
  const long slice_op = FUTEX_WAIT_BITSET | (op & FUTEX_PRIVATE_FLAG);
  const long bitset = cmd == FUTEX_WAIT ? (long)FUTEX_BITSET_MATCH_ANY : val3;
  struct entered t = enter(page, deadline, SEMSIM_WARP_SLICED);
  long r = -ETIMEDOUT;
  while (mono_now() < deadline) {
    struct timespec end = slice_end(CLOCK_MONOTONIC);
    r = semsim_raw(SYS_futex, uaddr, slice_op, val, (long)&end, 0, bitset);
    if (r != -ETIMEDOUT) break;
  }
  leave(t);
  return semsim_errno_result(r);
}

long syscall(long number, ...) {
  va_list ap;
  va_start(ap, number);
  long a = va_arg(ap, long), b = va_arg(ap, long), c = va_arg(ap, long);
  long d = va_arg(ap, long), e = va_arg(ap, long), f = va_arg(ap, long);
  va_end(ap);
  volatile struct semsim_client_clock_page* page = semsim_warp_page();
  if (page && number == SYS_getrandom) {
    semsim_warp_random(page, (void*)a, (unsigned long)b);
    return b;
  }
  if (page && number == SYS_futex && d) {
    const int cmd = (int)b & FUTEX_CMD_MASK;
    const struct timespec* timeout = (const struct timespec*)d;
    if ((cmd == FUTEX_WAIT || cmd == FUTEX_WAIT_BITSET) && valid(timeout))
      return futex_sliced(page, a, (int)b, c, timeout, f);
  }
  return semsim_errno_result(semsim_raw(number, a, b, c, d, e, f));
}

/* ---- the wake signal stays the library's ---- */

typedef int (*sigaction_fn)(int, const struct sigaction*, struct sigaction*);
typedef sighandler_t (*signal_fn)(int, sighandler_t);
typedef int (*sigmask_fn)(int, const sigset_t*, sigset_t*);

/* The program asked to handle the wake signal: a reset to the default (Node.js resets every
 * signal at start) is harmless; anything else is an escape. */
static void take_wake_signal(volatile struct semsim_client_clock_page* page, sighandler_t handler) {
  if (handler != SIG_DFL) escape(page, SEMSIM_WARP_ESCAPE_SIGNAL);
}

int sigaction(int sig, const struct sigaction* act, struct sigaction* old) {
  volatile struct semsim_client_clock_page* page = semsim_warp_page();
  if (page && sig == WAKE_SIGNAL) {
    if (act) take_wake_signal(page, act->sa_handler);
    if (old) {
      unsigned char* bytes = (unsigned char*)old;
      for (unsigned i = 0; i < sizeof *old; ++i) bytes[i] = 0; /* SIG_DFL, no flags, no mask */
    }
    return 0;
  }
  NEXT(sigaction_fn, sigaction, NULL);
  return real(sig, act, old);
}

#define SIGNAL_FUNCTION(name)                                     \
  sighandler_t name(int sig, sighandler_t handler) {              \
    volatile struct semsim_client_clock_page* page = semsim_warp_page(); \
    if (page && sig == WAKE_SIGNAL) {                             \
      take_wake_signal(page, handler);                            \
      return SIG_DFL;                                             \
    }                                                             \
    NEXT(signal_fn, name, NULL);                                  \
    return real(sig, handler);                                    \
  }
SIGNAL_FUNCTION(signal)
SIGNAL_FUNCTION(bsd_signal)
SIGNAL_FUNCTION(sysv_signal)

/* The program's mask change with the wake signal kept blocked (the library unblocks it only inside
 * its waits), and the old mask as the program would have it (the wake signal not blocked). */
static int mask_change(sigmask_fn real, int how, const sigset_t* set, sigset_t* old) {
  if (!semsim_warp_page()) return real(how, set, old);
  sigset_t copy;
  if (set) {
    copy = *set;
    uint64_t* word = (uint64_t*)&copy;
    if (how == SIG_SETMASK)
      *word |= WAKE_BIT;
    else
      *word &= ~WAKE_BIT;
    set = &copy;
  }
  int r = real(how, set, old);
  if (r == 0 && old) *(uint64_t*)old &= ~WAKE_BIT;
  return r;
}

int sigprocmask(int how, const sigset_t* set, sigset_t* old) {
  NEXT(sigmask_fn, sigprocmask, NULL);
  return mask_change(real, how, set, old);
}

int pthread_sigmask(int how, const sigset_t* set, sigset_t* old) {
  NEXT(sigmask_fn, pthread_sigmask, NULL);
  return mask_change(real, how, set, old);
}

/* ---- timers the kernel runs in real time: they run, and semsim is told ---- */

int timerfd_settime(int fd, int flags, const struct itimerspec* value, struct itimerspec* old) {
  volatile struct semsim_client_clock_page* page = semsim_warp_page();
  if (page && value && (value->it_value.tv_sec || value->it_value.tv_nsec)) escape(page, SEMSIM_WARP_ESCAPE_TIMERFD);
  return (int)semsim_errno_result(semsim_raw(SYS_timerfd_settime, fd, flags, (long)value, (long)old, 0, 0));
}

int setitimer(__itimer_which_t which, const struct itimerval* value, struct itimerval* old) {
  volatile struct semsim_client_clock_page* page = semsim_warp_page();
  if (page && which == ITIMER_REAL && value && (value->it_value.tv_sec || value->it_value.tv_usec))
    escape(page, SEMSIM_WARP_ESCAPE_ITIMER);
  return (int)semsim_errno_result(semsim_raw(SYS_setitimer, which, (long)value, (long)old, 0, 0, 0));
}

unsigned int alarm(unsigned int seconds) {
  volatile struct semsim_client_clock_page* page = semsim_warp_page();
  if (page && seconds) escape(page, SEMSIM_WARP_ESCAPE_ITIMER);
  return (unsigned int)semsim_raw(SYS_alarm, seconds, 0, 0, 0, 0, 0);
}

typedef int (*timer_settime_fn)(timer_t, int, const struct itimerspec*, struct itimerspec*);

int timer_settime(timer_t timer, int flags, const struct itimerspec* value, struct itimerspec* old) {
  volatile struct semsim_client_clock_page* page = semsim_warp_page();
  if (page && value && (value->it_value.tv_sec || value->it_value.tv_nsec)) escape(page, SEMSIM_WARP_ESCAPE_ITIMER);
  NEXT(timer_settime_fn, timer_settime, "GLIBC_2.3.3");
  return real(timer, flags, value, old);
}
