// Allocation counter for the Sluice benchmarks.
//
// On Linux with glibc this file defines malloc, calloc, realloc, posix_memalign, aligned_alloc,
// memalign and valloc in the executable itself. The static linker exports them (the shared
// libraries the executable links against, such as libswiftCore.so, reference them), so the
// dynamic linker binds every call in the process -- Swift runtime, Foundation, Dispatch -- to
// these definitions. Each one bumps a relaxed atomic counter and forwards to glibc's own entry
// points (__libc_malloc and friends), which glibc exports precisely so that replacements can
// forward to them. Forwarding to __libc_* instead of dlsym(RTLD_NEXT, ...) avoids the classic
// bootstrap problem (dlsym may itself call calloc before the real pointer is known).
//
// `free` is not interposed: every pointer still comes from glibc's allocator.
//
// The Swift side checks at startup that allocating a class instance moves the counter; if it
// does not, allocs_per_op is reported as null instead of a made-up number.

#include "alloc_counter.h"

#if defined(__linux__) && defined(__GLIBC__)

#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <unistd.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);

static _Atomic uint64_t allocation_count;

static inline void count_one(void) {
  atomic_fetch_add_explicit(&allocation_count, 1, memory_order_relaxed);
}

void *malloc(size_t size) {
  void *result = __libc_malloc(size);
  if (result != NULL) count_one();
  return result;
}

void *calloc(size_t count, size_t size) {
  void *result = __libc_calloc(count, size);
  if (result != NULL) count_one();
  return result;
}

void *realloc(void *pointer, size_t size) {
  void *result = __libc_realloc(pointer, size);
  if (result != NULL) count_one();
  return result;
}

int posix_memalign(void **out, size_t alignment, size_t size) {
  if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) return EINVAL;
  void *result = __libc_memalign(alignment, size);
  if (result == NULL) return ENOMEM;
  count_one();
  *out = result;
  return 0;
}

void *aligned_alloc(size_t alignment, size_t size) {
  void *result = __libc_memalign(alignment, size);
  if (result != NULL) count_one();
  return result;
}

void *memalign(size_t alignment, size_t size) {
  void *result = __libc_memalign(alignment, size);
  if (result != NULL) count_one();
  return result;
}

void *valloc(size_t size) {
  void *result = __libc_memalign((size_t)sysconf(_SC_PAGESIZE), size);
  if (result != NULL) count_one();
  return result;
}

int sluice_bench_alloc_counter_available(void) { return 1; }

uint64_t sluice_bench_alloc_count(void) {
  return atomic_load_explicit(&allocation_count, memory_order_relaxed);
}

#else

int sluice_bench_alloc_counter_available(void) { return 0; }

uint64_t sluice_bench_alloc_count(void) { return 0; }

#endif
