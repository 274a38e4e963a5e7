/* Warp's randomness (client_clock_page.h): every random byte a driver process asks the system for
 * comes from its client's stream, 8-byte blocks semsim_warp_random_block(seed, i), i counted by
 * the page's `drawn` across all the client's processes and threads: getrandom, getentropy,
 * syscall(SYS_getrandom) (semsim_warp_waits.c's syscall), arc4random and its forms, and a read of
 * /dev/urandom or /dev/random opened by name. Outside warp each function is the real one.
 *
 * An open of a random device gives a memory file of 1 MiB of the stream (drawn at the open), read
 * from its start: it ends there (a read past it returns 0), where the device never would. What
 * reads the devices (runtimes that cannot use getrandom) reads a few dozen bytes to seed. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "semsim_client_library.h"

#define DEVICE_FILE_BYTES (1 << 20)

void semsim_warp_random(volatile struct semsim_client_clock_page* page, void* buffer, unsigned long n) {
  if (n == 0) return;
  const uint64_t blocks = (n + 7) / 8;
  const uint64_t first = __atomic_fetch_add(&page->drawn, blocks, __ATOMIC_RELAXED);
  const uint64_t seed = page->seed;
  unsigned char* out = buffer;
  for (uint64_t k = 0; k < blocks; ++k) {
    const uint64_t block = semsim_warp_random_block(seed, first + k);
    for (int byte = 0; byte < 8 && n; ++byte, --n) *out++ = (unsigned char)(block >> (8 * byte));
  }
}

ssize_t getrandom(void* buffer, size_t n, unsigned int flags) {
  volatile struct semsim_client_clock_page* page = semsim_warp_page();
  if (!page) return semsim_errno_result(semsim_raw(SYS_getrandom, (long)buffer, (long)n, flags, 0, 0, 0));
  semsim_warp_random(page, buffer, n);
  return (ssize_t)n;
}

int getentropy(void* buffer, size_t n) {
  if (n > 256) {
    errno = EIO;
    return -1;
  }
  volatile struct semsim_client_clock_page* page = semsim_warp_page();
  if (page) {
    semsim_warp_random(page, buffer, n);
    return 0;
  }
  /* as glibc's: getrandom until full, through interruptions */
  for (unsigned char* at = buffer; at < (unsigned char*)buffer + n;) {
    long got = semsim_raw(SYS_getrandom, (long)at, (long)((unsigned char*)buffer + n - at), 0, 0, 0, 0);
    if (got == -EINTR) continue;
    if (got < 0) return (int)semsim_errno_result(got);
    at += got;
  }
  return 0;
}

static void* next_symbol(void** cache, const char* name) {
  void* f = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
  if (!f) __atomic_store_n(cache, f = dlsym(RTLD_NEXT, name), __ATOMIC_RELEASE);
  return f;
}

uint32_t arc4random(void) {
  volatile struct semsim_client_clock_page* page = semsim_warp_page();
  if (!page) {
    static void* cache;
    return ((uint32_t(*)(void))next_symbol(&cache, "arc4random"))();
  }
  uint32_t r;
  semsim_warp_random(page, &r, sizeof r);
  return r;
}

void arc4random_buf(void* buffer, size_t n) {
  volatile struct semsim_client_clock_page* page = semsim_warp_page();
  if (!page) {
    static void* cache;
    ((void (*)(void*, size_t))next_symbol(&cache, "arc4random_buf"))(buffer, n);
    return;
  }
  semsim_warp_random(page, buffer, n);
}

uint32_t arc4random_uniform(uint32_t upper) {
  volatile struct semsim_client_clock_page* page = semsim_warp_page();
  if (!page) {
    static void* cache;
    return ((uint32_t(*)(uint32_t))next_symbol(&cache, "arc4random_uniform"))(upper);
  }
  if (upper < 2) return 0;
  /* OpenBSD's rejection: the draws below 2^32 % upper would favour the small results */
  const uint32_t least = -upper % upper;
  for (;;) {
    const uint32_t r = arc4random();
    if (r >= least) return r % upper;
  }
}

/* ---- the random devices, opened by name ---- */

static int random_device(const char* path) {
  const char* want[] = {"/dev/urandom", "/dev/random"};
  for (int i = 0; i < 2; ++i) {
    const char *p = path, *w = want[i];
    while (*w && *p == *w) ++p, ++w;
    if (!*w && !*p) return 1;
  }
  return 0;
}

/* A memory file of DEVICE_FILE_BYTES of the stream, at its start (-errno on failure). */
static long stream_file(volatile struct semsim_client_clock_page* page, int cloexec) {
  long fd = semsim_raw(SYS_memfd_create, (long)"semsim-random", cloexec ? MFD_CLOEXEC : 0, 0, 0, 0, 0);
  if (fd < 0) return fd;
  unsigned char chunk[4096];
  for (int done = 0; done < DEVICE_FILE_BYTES; done += (int)sizeof chunk) {
    semsim_warp_random(page, chunk, sizeof chunk);
    for (size_t at = 0; at < sizeof chunk;) {
      long put = semsim_raw(SYS_write, fd, (long)(chunk + at), (long)(sizeof chunk - at), 0, 0, 0);
      if (put == -EINTR) continue;
      if (put < 0) {
        semsim_raw(SYS_close, fd, 0, 0, 0, 0, 0);
        return put;
      }
      at += (size_t)put;
    }
  }
  semsim_raw(SYS_lseek, fd, 0, SEEK_SET, 0, 0, 0);
  return fd;
}

static int open_at(int dirfd, const char* path, int flags, mode_t mode) {
  volatile struct semsim_client_clock_page* page = semsim_warp_page();
  if (page && (flags & O_ACCMODE) == O_RDONLY && random_device(path))
    return (int)semsim_errno_result(stream_file(page, flags & O_CLOEXEC));
  return (int)semsim_errno_result(semsim_raw(SYS_openat, dirfd, (long)path, flags, mode, 0, 0));
}

/* The mode argument is there only when the flags create a file (as glibc reads it). */
#define MODE_OF(flags, last)                          \
  mode_t mode = 0;                                    \
  if ((flags) & (O_CREAT | __O_TMPFILE)) {            \
    va_list ap;                                       \
    va_start(ap, last);                               \
    mode = va_arg(ap, mode_t);                        \
    va_end(ap);                                       \
  }

int open(const char* path, int flags, ...) {
  MODE_OF(flags, flags);
  return open_at(AT_FDCWD, path, flags, mode);
}

int open64(const char* path, int flags, ...) {
  MODE_OF(flags, flags);
  return open_at(AT_FDCWD, path, flags, mode);
}

int openat(int dirfd, const char* path, int flags, ...) {
  MODE_OF(flags, flags);
  return open_at(dirfd, path, flags, mode);
}

int openat64(int dirfd, const char* path, int flags, ...) {
  MODE_OF(flags, flags);
  return open_at(dirfd, path, flags, mode);
}

/* The fortified forms (_FORTIFY_SOURCE), which take no mode. */
int __open_2(const char* path, int flags) { return open_at(AT_FDCWD, path, flags, 0); }
int __open64_2(const char* path, int flags) { return open_at(AT_FDCWD, path, flags, 0); }
int __openat_2(int dirfd, const char* path, int flags) { return open_at(dirfd, path, flags, 0); }
int __openat64_2(int dirfd, const char* path, int flags) { return open_at(dirfd, path, flags, 0); }

static int reads_only(const char* mode) {
  if (mode[0] != 'r') return 0;
  for (const char* m = mode; *m; ++m)
    if (*m == '+') return 0;
  return 1;
}

/* fopen of a random device for reading: a FILE on the stream's memory file (libc's fdopen makes
 * the FILE, as fopen would). */
static FILE* stream_fopen(volatile struct semsim_client_clock_page* page, const char* mode) {
  int cloexec = 0;
  for (const char* m = mode; *m; ++m)
    if (*m == 'e') cloexec = 1;
  long fd = semsim_errno_result(stream_file(page, cloexec));
  if (fd < 0) return NULL;
  FILE* f = fdopen((int)fd, mode);
  if (!f) semsim_raw(SYS_close, fd, 0, 0, 0, 0, 0);
  return f;
}

#define FOPEN(name)                                                                          \
  FILE* name(const char* path, const char* mode) {                                           \
    volatile struct semsim_client_clock_page* page = semsim_warp_page();                     \
    if (page && random_device(path) && reads_only(mode)) return stream_fopen(page, mode);    \
    static void* cache;                                                                      \
    return ((FILE * (*)(const char*, const char*)) next_symbol(&cache, #name))(path, mode); \
  }
FOPEN(fopen)
FOPEN(fopen64)
