/* Time-based UUIDs in warp (libuuid's uuid_generate_time and friends, which Python's uuid.uuid1
 * calls): libuuid mixes the process id and the real time into its clock sequence, so the same seed
 * would give other identifiers in every run. In warp a version-1 UUID takes the virtual wall clock,
 * and its clock sequence and node come from the client's random stream; the random kinds (version
 * 4) come from the stream too. Outside warp, libuuid's own functions, untouched. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>

#include "semsim_client_library.h"

typedef unsigned char semsim_uuid[16];

/* libuuid's own function. libuuid is often loaded by dlopen, as a dependency of a module (Python's
 * _uuid), outside the global scope where RTLD_NEXT looks: then it is asked by name. */
static void* next(void** cache, const char* name) {
  if (!*cache) *cache = dlsym(RTLD_NEXT, name);
  if (!*cache) {
    void* lib = dlopen("libuuid.so.1", RTLD_LAZY | RTLD_NOLOAD);
    if (lib) *cache = dlsym(lib, name);
  }
  return *cache;
}

/* Without libuuid's function (never expected: its caller links it): a random UUID from the kernel. */
static void kernel_random(unsigned char out[16]) {
  semsim_raw(SYS_getrandom, (long)out, 16, 0, 0, 0, 0);
  out[6] = (unsigned char)((out[6] & 0x0F) | 0x40);
  out[8] = (unsigned char)((out[8] & 0x3F) | 0x80);
}

/* 100 ns intervals from 1582-10-15 (the Gregorian reform, UUID's epoch) to the Unix epoch. */
#define UUID_EPOCH_OFFSET 0x01B21DD213814000ULL

static void time_based(volatile struct semsim_client_clock_page* page, unsigned char out[16]) {
  /* One process's sequence: the clock stands still during a turn, so each next UUID takes the next
   * 100 ns tick (as libuuid does within a tick). */
  static uint64_t last;
  static unsigned char node[6];
  static uint16_t sequence;
  static int drawn;
  if (!drawn) {
    unsigned char bytes[8];
    semsim_warp_random(page, bytes, sizeof bytes);
    memcpy(node, bytes, 6);
    node[0] |= 0x01; /* a random node is a multicast address (RFC 4122, 4.5) */
    sequence = (uint16_t)((bytes[6] << 8 | bytes[7]) & 0x3FFF);
    drawn = 1;
  }
  int64_t mono, wall;
  semsim_warp_now(&mono, &wall);
  uint64_t t = (uint64_t)(wall / 100) + UUID_EPOCH_OFFSET;
  if (t <= last) t = last + 1;
  last = t;
  const uint32_t low = (uint32_t)t;
  const uint16_t mid = (uint16_t)(t >> 32), high = (uint16_t)(((t >> 48) & 0x0FFF) | 0x1000);
  const uint16_t seq = (uint16_t)(sequence | 0x8000);
  const unsigned char fields[10] = {(unsigned char)(low >> 24), (unsigned char)(low >> 16), (unsigned char)(low >> 8),
                                    (unsigned char)low,         (unsigned char)(mid >> 8),  (unsigned char)mid,
                                    (unsigned char)(high >> 8), (unsigned char)high,        (unsigned char)(seq >> 8),
                                    (unsigned char)seq};
  memcpy(out, fields, 10);
  memcpy(out + 10, node, 6);
}

static void random_based(volatile struct semsim_client_clock_page* page, unsigned char out[16]) {
  semsim_warp_random(page, out, 16);
  out[6] = (unsigned char)((out[6] & 0x0F) | 0x40);
  out[8] = (unsigned char)((out[8] & 0x3F) | 0x80);
}

/* Outside warp: libuuid's function `name` (cached in *cache), or the kernel's random bytes. */
static void libuuids(void** cache, const char* name, semsim_uuid out) {
  void (*fn)(semsim_uuid) = (void (*)(semsim_uuid))next(cache, name);
  if (fn) fn(out);
  else kernel_random(out);
}

void uuid_generate_time(semsim_uuid out) {
  static void* real;
  volatile struct semsim_client_clock_page* page = semsim_warp_page();
  if (page) return time_based(page, out);
  libuuids(&real, "uuid_generate_time", out);
}

int uuid_generate_time_safe(semsim_uuid out) {
  static void* real;
  volatile struct semsim_client_clock_page* page = semsim_warp_page();
  if (page) {
    time_based(page, out);
    return 0; /* "safe": unique within the run's processes, each its own node */
  }
  int (*fn)(semsim_uuid) = (int (*)(semsim_uuid))next(&real, "uuid_generate_time_safe");
  if (fn) return fn(out);
  kernel_random(out);
  return -1; /* not "safe": libuuid's answer when it could not be sure */
}

void uuid_generate_random(semsim_uuid out) {
  static void* real;
  volatile struct semsim_client_clock_page* page = semsim_warp_page();
  if (page) return random_based(page, out);
  libuuids(&real, "uuid_generate_random", out);
}

void uuid_generate(semsim_uuid out) {
  static void* real;
  volatile struct semsim_client_clock_page* page = semsim_warp_page();
  if (page) return random_based(page, out);
  libuuids(&real, "uuid_generate", out);
}
