#ifndef SLUICE_BENCH_ALLOC_COUNTER_H
#define SLUICE_BENCH_ALLOC_COUNTER_H

#include <stdint.h>

/// Whether this build interposes the allocator at all (glibc on Linux only).
int sluice_bench_alloc_counter_available(void);

/// The number of successful calls to malloc, calloc, realloc, posix_memalign, aligned_alloc,
/// memalign and valloc made by any thread of the process so far. `free` is not counted.
uint64_t sluice_bench_alloc_count(void);

#endif
