/* semsim's client clock library, preloaded into every process of a driver (LD_PRELOAD) so that
 * the driver's wall clock has the skew, drift and jumps semsim plans for that client, while its
 * monotonic clock, shared by every process on the machine, stays true.
 *
 * The same lineage as the server's library (sim/redis/clock_library/semsim_clock.c), and the same
 * constraints: no malloc, dlsym, getenv or stdio (it runs before and inside whatever runtime the
 * driver has); the control page is found by scanning `environ` and mapped with raw system calls;
 * real time comes from the kernel's vDSO, found through the auxiliary vector. Unlike the server's,
 * every thread sees the moved clock (a Node.js or JVM runtime reads the time on many threads),
 * and the clock is never frozen: it is real time plus an offset and a drift, so a jump is one
 * write of the page.
 *
 * What it covers: clock_gettime (CLOCK_REALTIME and its coarse, alarm and TAI forms),
 * gettimeofday, time and timespec_get, as called through the dynamic linker. What it cannot
 * cover: a static binary (LD_PRELOAD never runs), a runtime that reads the vDSO itself (Go), or a
 * raw system call. semsim checks at the driver's `ready` line that its clock moved. */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "client_clock_page.h"

extern char** environ;

static volatile struct semsim_client_clock_page* page;
static int (*vdso_clock_gettime)(clockid_t, struct timespec*);

static long raw(long number, long a, long b, long c, long d, long e, long f) {
  long ret;
  register long r10 __asm__("r10") = d;
  register long r8 __asm__("r8") = e;
  register long r9 __asm__("r9") = f;
  __asm__ volatile("syscall"
                   : "=a"(ret)
                   : "a"(number), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                   : "rcx", "r11", "memory");
  return ret;
}

static const char* find_env(const char* name) {
  for (char** e = environ; e && *e; ++e) {
    const char* s = *e;
    const char* n = name;
    while (*n && *s == *n) ++s, ++n;
    if (!*n && *s == '=') return s + 1;
  }
  return NULL;
}

/* The vDSO's clock_gettime, from its ELF image (as the server's library finds it). */
static void find_vdso(void) {
  char** e = environ;
  while (e && *e) ++e;
  if (!e) return;
  const ElfW(Ehdr)* ehdr = NULL;
  for (const ElfW(auxv_t)* a = (const ElfW(auxv_t)*)(e + 1); a->a_type != AT_NULL; ++a)
    if (a->a_type == AT_SYSINFO_EHDR) ehdr = (const ElfW(Ehdr)*)a->a_un.a_val;
  if (!ehdr) return;
  const char* base = (const char*)ehdr;
  const ElfW(Phdr)* ph = (const ElfW(Phdr)*)(base + ehdr->e_phoff);
  const ElfW(Dyn)* dyn = NULL;
  ElfW(Addr) load = 0;
  for (int i = 0; i < ehdr->e_phnum; ++i) {
    if (ph[i].p_type == PT_LOAD) load = (ElfW(Addr))base + ph[i].p_offset - ph[i].p_vaddr;
    if (ph[i].p_type == PT_DYNAMIC) dyn = (const ElfW(Dyn)*)(base + ph[i].p_offset);
  }
  if (!dyn || !load) return;
  const ElfW(Sym)* symbols = NULL;
  const char* names = NULL;
  const ElfW(Word)* hash = NULL;
  for (; dyn->d_tag != DT_NULL; ++dyn) {
    if (dyn->d_tag == DT_SYMTAB) symbols = (const ElfW(Sym)*)(load + dyn->d_un.d_ptr);
    if (dyn->d_tag == DT_STRTAB) names = (const char*)(load + dyn->d_un.d_ptr);
    if (dyn->d_tag == DT_HASH) hash = (const ElfW(Word)*)(load + dyn->d_un.d_ptr);
  }
  if (!symbols || !names || !hash) return;
  for (ElfW(Word) i = 0; i < hash[1]; ++i) {
    const char* n = names + symbols[i].st_name;
    const char* want = "__vdso_clock_gettime";
    while (*want && *n == *want) ++n, ++want;
    if (!*want && !*n && ELF64_ST_TYPE(symbols[i].st_info) == STT_FUNC && symbols[i].st_shndx != SHN_UNDEF)
      vdso_clock_gettime = (int (*)(clockid_t, struct timespec*))(load + symbols[i].st_value);
  }
}

static int real_clock_gettime(clockid_t id, struct timespec* ts) {
  if (vdso_clock_gettime) return vdso_clock_gettime(id, ts);
  return (int)raw(SYS_clock_gettime, id, (long)ts, 0, 0, 0, 0);
}

__attribute__((constructor)) static void semsim_client_clock_init(void) {
  find_vdso();
  const char* path = find_env(SEMSIM_CLIENT_CLOCK_ENV);
  if (!path) return;
  long fd = raw(SYS_openat, AT_FDCWD, (long)path, O_RDONLY | O_CLOEXEC, 0, 0, 0);
  if (fd < 0) return;
  long p = raw(SYS_mmap, 0, sizeof(struct semsim_client_clock_page), PROT_READ, MAP_SHARED, fd, 0);
  raw(SYS_close, fd, 0, 0, 0, 0, 0);
  if (p < 0 && p > -4096) return;
  if (((volatile struct semsim_client_clock_page*)p)->magic != SEMSIM_CLIENT_CLOCK_MAGIC) return;
  page = (volatile struct semsim_client_clock_page*)p;
}

/* How far this driver's wall clock is from the real one now, in ns (0: pass through). */
static int64_t shift_ns(void) {
  if (!page) return 0;
  for (;;) {
    uint32_t s1 = page->seq;
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    uint32_t flags = page->flags;
    int64_t offset = page->offset_ns, anchor = page->anchor_ns;
    double drift = page->drift_ppm;
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if ((s1 & 1u) || page->seq != s1) continue;
    if (!(flags & SEMSIM_CLIENT_CLOCK_SHIFT)) return 0;
    if (drift == 0) return offset;
    struct timespec mono;
    real_clock_gettime(CLOCK_MONOTONIC, &mono);
    int64_t since = (int64_t)mono.tv_sec * 1000000000 + mono.tv_nsec - anchor;
    return offset + (int64_t)((double)since * drift / 1e6);
  }
}

static int64_t wall_ns(clockid_t id) {
  struct timespec ts;
  real_clock_gettime(id, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec + shift_ns();
}

static int moved(clockid_t id) {
  return id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE || id == CLOCK_REALTIME_ALARM || id == CLOCK_TAI;
}

static void split(int64_t ns, struct timespec* ts) {
  ts->tv_sec = ns / 1000000000;
  ts->tv_nsec = ns % 1000000000;
  if (ts->tv_nsec < 0) ts->tv_sec -= 1, ts->tv_nsec += 1000000000;
}

int clock_gettime(clockid_t id, struct timespec* ts) {
  if (!moved(id) || !page) return real_clock_gettime(id, ts);
  /* the alarm clock reads as CLOCK_REALTIME: the vDSO does not serve it */
  split(wall_ns(id == CLOCK_REALTIME_ALARM ? CLOCK_REALTIME : id), ts);
  return 0;
}

int gettimeofday(struct timeval* tv, void* tz) {
  if (tz && raw(SYS_gettimeofday, 0, (long)tz, 0, 0, 0, 0) != 0) return -1;
  struct timespec ts;
  split(wall_ns(CLOCK_REALTIME), &ts);
  tv->tv_sec = ts.tv_sec;
  tv->tv_usec = ts.tv_nsec / 1000;
  return 0;
}

time_t time(time_t* out) {
  struct timespec ts;
  split(wall_ns(CLOCK_REALTIME), &ts);
  if (out) *out = ts.tv_sec;
  return ts.tv_sec;
}

int timespec_get(struct timespec* ts, int base) {
  if (base != TIME_UTC) return 0;
  split(wall_ns(CLOCK_REALTIME), ts);
  return base;
}
