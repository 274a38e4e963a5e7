/* semsim's clock library, preloaded into redis-server (LD_PRELOAD) so that Redis's wall clock
 * (key expiry, TIME, Lua's TIME) follows the simulation's virtual time.
 *
 * redis-server reads the time through clock_gettime, gettimeofday and time; these three are
 * overridden. Constraints, each learnt the hard way (libfaketime hangs this redis-server at
 * start in jemalloc's initialisation):
 *   - no malloc, dlsym, getenv or stdio: the control file is found by scanning `environ`, mapped
 *     and read with raw system calls; real time comes from the kernel's vDSO, found through the
 *     auxiliary vector that follows `environ` at start (a raw system call if there is none);
 *   - only the main thread sees virtual time (jemalloc's background thread computes timed waits
 *     from gettimeofday and would spin while virtual time stands still), told apart by its thread
 *     pointer, which costs no system call (a child forked for BGSAVE or an AOF rewrite is its
 *     main thread's copy, and writes the server's state at the virtual instant it forked);
 *   - the monotonic clock stays real: serverCron, child reaping and shutdown run on it.
 *
 * The same file is also a Redis module (--loadmodule with the preloaded path: one copy in
 * memory). A command sent as `SEMSIM.AT <ns> COMMAND ARGS...` runs as `COMMAND ARGS...` with the
 * clock set to <ns> first, so that requests due at different virtual instants travel to Redis in
 * one pipeline and each still runs at its own instant. A command filter strips the prefix before
 * Redis looks the command up: the clock costs Redis no command of its own (it did, as a separate
 * SEMSIM.CLOCK before each request: twice the commands to parse and answer). A later write of
 * the page wins over the setting. */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stddef.h>
#include <stdint.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "clock_page.h"

extern char** environ;

static volatile struct semsim_clock_page* page;
static void* main_thread;
static int (*vdso_clock_gettime)(clockid_t, struct timespec*);
/* SEMSIM.AT's setting, good while the page's seq is still `inband_seq` (odd: never). */
static int64_t inband_ns;
static uint32_t inband_seq = 1;

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

/* The vDSO's clock_gettime, from its ELF image: program headers, dynamic section, symbol table
 * (the kernel links it with a SysV hash table, whose chain count is the number of symbols). */
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

__attribute__((constructor)) static void semsim_clock_init(void) {
  main_thread = __builtin_thread_pointer();
  find_vdso();
  const char* path = find_env(SEMSIM_CLOCK_ENV);
  if (!path) return;
  long fd = raw(SYS_openat, AT_FDCWD, (long)path, O_RDONLY | O_CLOEXEC, 0, 0, 0);
  if (fd < 0) return;
  long p = raw(SYS_mmap, 0, sizeof(struct semsim_clock_page), PROT_READ, MAP_SHARED, fd, 0);
  raw(SYS_close, fd, 0, 0, 0, 0, 0);
  if (p < 0 && p > -4096) return;
  if (((volatile struct semsim_clock_page*)p)->magic != SEMSIM_CLOCK_MAGIC) return;
  page = (volatile struct semsim_clock_page*)p;
}

/* Virtual realtime in ns, or -1 when real time applies (no page, not virtual, another thread). */
static int64_t virtual_ns(void) {
  if (!page || __builtin_thread_pointer() != main_thread) return -1;
  for (;;) {
    uint32_t s1 = page->seq;
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    uint32_t flags = page->flags;
    int64_t ns = page->realtime_ns;
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (!(s1 & 1u) && page->seq == s1) {
      if (!(flags & SEMSIM_CLOCK_VIRTUAL)) return -1;
      return s1 == inband_seq ? inband_ns : ns;
    }
  }
}

int clock_gettime(clockid_t id, struct timespec* ts) {
  if (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE) {
    int64_t ns = virtual_ns();
    if (ns >= 0) {
      ts->tv_sec = ns / 1000000000;
      ts->tv_nsec = ns % 1000000000;
      return 0;
    }
  }
  return real_clock_gettime(id, ts);
}

int gettimeofday(struct timeval* tv, void* tz) {
  int64_t ns = virtual_ns();
  if (ns < 0) {
    struct timespec ts;
    if (tz || real_clock_gettime(CLOCK_REALTIME, &ts) != 0) return (int)raw(SYS_gettimeofday, (long)tv, (long)tz, 0, 0, 0, 0);
    tv->tv_sec = ts.tv_sec;
    tv->tv_usec = ts.tv_nsec / 1000;
    return 0;
  }
  tv->tv_sec = ns / 1000000000;
  tv->tv_usec = (ns % 1000000000) / 1000;
  return 0;
}

time_t time(time_t* out) {
  int64_t ns = virtual_ns();
  time_t t;
  if (ns >= 0) {
    t = (time_t)(ns / 1000000000);
  } else {
    struct timespec ts;
    real_clock_gettime(CLOCK_REALTIME, &ts);
    t = ts.tv_sec;
  }
  if (out) *out = t;
  return t;
}

/* The module: the few API functions it uses, fetched by name as redismodule.h's RedisModule_Init
 * does (the header is not packaged; the API is stable since Redis 4, filters since 5). */
typedef struct RedisModuleCtx RedisModuleCtx;
typedef struct RedisModuleString RedisModuleString;
typedef struct RedisModuleCommandFilterCtx RedisModuleCommandFilterCtx;
typedef int (*RedisModuleCmdFunc)(RedisModuleCtx*, RedisModuleString**, int);
typedef void (*RedisModuleCommandFilterFunc)(RedisModuleCommandFilterCtx*);
static void (*RM_SetModuleAttribs)(RedisModuleCtx*, const char*, int, int);
static int (*RM_CreateCommand)(RedisModuleCtx*, const char*, RedisModuleCmdFunc, const char*, int, int, int);
static void* (*RM_RegisterCommandFilter)(RedisModuleCtx*, RedisModuleCommandFilterFunc, int);
static int (*RM_CommandFilterArgsCount)(RedisModuleCommandFilterCtx*);
static RedisModuleString* (*RM_CommandFilterArgGet)(RedisModuleCommandFilterCtx*, int);
static int (*RM_CommandFilterArgDelete)(RedisModuleCommandFilterCtx*, int);
static const char* (*RM_StringPtrLen)(const RedisModuleString*, size_t*);
static int (*RM_ReplyWithError)(RedisModuleCtx*, const char*);

/* The decimal digits of `s` as a number up to INT64_MAX, or -1. Not RM_StringToLongLong: it costs
 * as much again as the rest of the filter (callgrind: 330 instructions a prefix). */
static int64_t nanoseconds(const char* s, size_t len) {
  if (len == 0 || len > 19) return -1;
  uint64_t v = 0;
  for (size_t i = 0; i < len; ++i) {
    if (s[i] < '0' || s[i] > '9') return -1;
    v = v * 10 + (uint64_t)(s[i] - '0');
  }
  return v > (uint64_t)INT64_MAX ? -1 : (int64_t)v;
}

/* Why a SEMSIM.AT prefix cannot be applied, or NULL (and the instant in *ns) if it can. */
static const char* refusal(int argc, RedisModuleString* instant, int64_t* ns) {
  if (argc < 3) return "ERR SEMSIM.AT wants an instant and a command to run then";
  size_t len;
  const char* digits = RM_StringPtrLen(instant, &len);
  if ((*ns = nanoseconds(digits, len)) < 0) return "ERR SEMSIM.AT wants nanoseconds since the Unix epoch";
  if (!page || !(page->flags & SEMSIM_CLOCK_VIRTUAL)) return "ERR SEMSIM.AT: Redis's clock is not virtual";
  return NULL;
}

/* Every command passes here before Redis looks it up (commands that scripts run too: they never
 * start with SEMSIM.AT). A prefix that can be applied sets the clock and goes. */
static void at_filter(RedisModuleCommandFilterCtx* filter) {
  size_t len;
  const char* name = RM_StringPtrLen(RM_CommandFilterArgGet(filter, 0), &len);
  if (len != 9 || strncasecmp(name, "SEMSIM.AT", 9) != 0) return;
  int64_t ns;
  if (refusal(RM_CommandFilterArgsCount(filter), RM_CommandFilterArgGet(filter, 1), &ns)) return;
  /* semsim writes the page only while no request of its is in Redis: seq is even here. */
  inband_ns = ns;
  inband_seq = page->seq;
  RM_CommandFilterArgDelete(filter, 0);
  RM_CommandFilterArgDelete(filter, 0);
}

/* SEMSIM.AT itself runs only when the filter refused the prefix: the command does not run (not at
 * another instant) and the reply says why. */
static int at_command(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  int64_t ns;
  const char* why = refusal(argc, argc > 1 ? argv[1] : NULL, &ns);
  return RM_ReplyWithError(ctx, why ? why : "ERR SEMSIM.AT was not applied");
}

int RedisModule_OnLoad(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  (void)argv;
  (void)argc;
  int (*get_api)(const char*, void*) = (int (*)(const char*, void*))((void**)ctx)[0];
  if (get_api("RedisModule_SetModuleAttribs", &RM_SetModuleAttribs) || get_api("RedisModule_CreateCommand", &RM_CreateCommand) ||
      get_api("RedisModule_RegisterCommandFilter", &RM_RegisterCommandFilter) ||
      get_api("RedisModule_CommandFilterArgsCount", &RM_CommandFilterArgsCount) ||
      get_api("RedisModule_CommandFilterArgGet", &RM_CommandFilterArgGet) ||
      get_api("RedisModule_CommandFilterArgDelete", &RM_CommandFilterArgDelete) ||
      get_api("RedisModule_StringPtrLen", &RM_StringPtrLen) ||
      get_api("RedisModule_ReplyWithError", &RM_ReplyWithError))
    return 1; /* REDISMODULE_ERR */
  RM_SetModuleAttribs(ctx, "semsimclock", 1, 1 /* REDISMODULE_APIVER_1 */);
  if (!RM_RegisterCommandFilter(ctx, at_filter, 0)) return 1;
  return RM_CreateCommand(ctx, "semsim.at", at_command, "fast", 0, 0, 0);
}
