/* semsim's client clock library, preloaded into every process of a driver (LD_PRELOAD) so that
 * the driver's wall clock has the skew, drift and jumps semsim plans for that client, while its
 * monotonic clock, shared by every process on the machine, stays true.
 *
 * The same lineage as the server's library (sim/redis/clock_library/semsim_clock.c), and the same
 * constraints: no malloc, getenv or stdio (it runs before and inside whatever runtime the driver
 * has), dlsym only for the few libc functions a warp wait must call (found lazily, on their first
 * call, never in the constructor); the control page is found by scanning `environ` and mapped
 * with raw system calls; real time comes from the kernel's vDSO, found through the auxiliary vector. Unlike the server's,
 * every thread sees the moved clock (a Node.js or JVM runtime reads the time on many threads),
 * and the clock is never frozen: it is real time plus an offset and a drift, so a jump is one
 * write of the page.
 *
 * What it covers: clock_gettime (CLOCK_REALTIME and its coarse, alarm and TAI forms),
 * gettimeofday, time and timespec_get, as called through the dynamic linker. What it cannot
 * cover: a static binary (LD_PRELOAD never runs), a runtime that reads the vDSO itself (Go), or a
 * raw system call. semsim checks at the driver's `ready` line that its clock moved.
 *
 * In warp (the page's flags have WARP at start; client_clock_page.h) the same functions read the
 * page's virtual clocks instead, monotonic ones included (the CPU-time clocks stay real), the
 * timed waits become virtual (semsim_warp_waits.c) and randomness comes from the client's stream
 * (semsim_warp_random.c). */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "semsim_client_library.h"

extern char** environ;

static volatile struct semsim_client_clock_page* page;
static int warp; /* WARP was set at start and the page is writable: the library's waits are on */
static int (*vdso_clock_gettime)(clockid_t, struct timespec*);

long semsim_raw(long number, long a, long b, long c, long d, long e, long f) {
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

int semsim_real_clock_gettime(clockid_t id, struct timespec* ts) {
  if (vdso_clock_gettime) return vdso_clock_gettime(id, ts);
  return (int)semsim_raw(SYS_clock_gettime, id, (long)ts, 0, 0, 0, 0);
}

__attribute__((constructor)) static void semsim_client_clock_init(void) {
  find_vdso();
  const char* path = find_env(SEMSIM_CLIENT_CLOCK_ENV);
  if (!path) return;
  /* Read-write for warp's fields (the wait slots, escapes, the stream's count), read-only will do
   * for a paced run. */
  int prot = PROT_READ | PROT_WRITE;
  long fd = semsim_raw(SYS_openat, AT_FDCWD, (long)path, O_RDWR | O_CLOEXEC, 0, 0, 0);
  if (fd < 0) {
    prot = PROT_READ;
    fd = semsim_raw(SYS_openat, AT_FDCWD, (long)path, O_RDONLY | O_CLOEXEC, 0, 0, 0);
  }
  if (fd < 0) return;
  long p = semsim_raw(SYS_mmap, 0, sizeof(struct semsim_client_clock_page), prot, MAP_SHARED, fd, 0);
  semsim_raw(SYS_close, fd, 0, 0, 0, 0, 0);
  if (p < 0 && p > -4096) return;
  if (((volatile struct semsim_client_clock_page*)p)->magic != SEMSIM_CLIENT_CLOCK_MAGIC) return;
  page = (volatile struct semsim_client_clock_page*)p;
  if ((prot & PROT_WRITE) && (__atomic_load_n(&page->flags, __ATOMIC_ACQUIRE) & SEMSIM_CLIENT_CLOCK_WARP)) {
    warp = 1;
    semsim_warp_start_waits(page);
  }
}

volatile struct semsim_client_clock_page* semsim_warp_page(void) { return warp ? page : NULL; }

long semsim_errno_result(long ret) {
  if (ret < 0 && ret > -4096) {
    errno = (int)-ret;
    return -1;
  }
  return ret;
}

/* The page's clock fields, read together (the seqlock: semsim writes them between two increments). */
struct clock_fields {
  uint32_t flags;
  int64_t offset, anchor;
  double drift;
  int64_t mono, wall;
};

static struct clock_fields read_page(void) {
  struct clock_fields f;
  for (;;) {
    uint32_t s1 = page->seq;
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    f.flags = page->flags;
    f.offset = page->offset_ns, f.anchor = page->anchor_ns;
    f.drift = page->drift_ppm;
    f.mono = page->mono_ns, f.wall = page->wall_ns;
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (!(s1 & 1u) && page->seq == s1) return f;
  }
}

void semsim_warp_now(int64_t* mono_ns, int64_t* wall_ns) {
  struct clock_fields f = read_page();
  *mono_ns = f.mono;
  *wall_ns = f.wall;
}

/* How far this driver's paced wall clock is from the real one now, in ns (0: pass through). */
static int64_t shift_ns(const struct clock_fields* f) {
  if (!(f->flags & SEMSIM_CLIENT_CLOCK_SHIFT)) return 0;
  if (f->drift == 0) return f->offset;
  struct timespec mono;
  semsim_real_clock_gettime(CLOCK_MONOTONIC, &mono);
  int64_t since = (int64_t)mono.tv_sec * 1000000000 + mono.tv_nsec - f->anchor;
  return f->offset + (int64_t)((double)since * f->drift / 1e6);
}

/* The driver's wall clock (read as clock `id`): the page's in warp, else the real one shifted. */
static int64_t wall_ns(clockid_t id) {
  struct clock_fields f = {0};
  if (page) f = read_page();
  if (f.flags & SEMSIM_CLIENT_CLOCK_WARP) return f.wall;
  struct timespec ts;
  semsim_real_clock_gettime(id, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec + shift_ns(&f);
}

static int monotonic(clockid_t id) {
  return id == CLOCK_MONOTONIC || id == CLOCK_MONOTONIC_RAW || id == CLOCK_MONOTONIC_COARSE ||
         id == CLOCK_BOOTTIME || id == CLOCK_BOOTTIME_ALARM;
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
  if (page && monotonic(id)) {
    struct clock_fields f = read_page();
    if (f.flags & SEMSIM_CLIENT_CLOCK_WARP) {
      split(f.mono, ts);
      return 0;
    }
  }
  if (!moved(id) || !page) return semsim_real_clock_gettime(id, ts);
  /* the alarm clock reads as CLOCK_REALTIME: the vDSO does not serve it */
  split(wall_ns(id == CLOCK_REALTIME_ALARM ? CLOCK_REALTIME : id), ts);
  return 0;
}

int gettimeofday(struct timeval* tv, void* tz) {
  if (tz && semsim_raw(SYS_gettimeofday, 0, (long)tz, 0, 0, 0, 0) != 0) return -1;
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
#ifdef TIME_MONOTONIC
  if (base == TIME_MONOTONIC) return clock_gettime(CLOCK_MONOTONIC, ts) == 0 ? base : 0;
#endif
  if (base != TIME_UTC) return 0;
  split(wall_ns(CLOCK_REALTIME), ts);
  return base;
}
