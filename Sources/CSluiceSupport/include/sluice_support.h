#ifndef SLUICE_SUPPORT_H
#define SLUICE_SUPPORT_H

#include <stdint.h>

/// Per-thread counters Sluice reads on its dispatch path. Swift has no thread-local storage of
/// its own; `pthread_getspecific` costs a function call each time, these a single load.
/// Defined in sluice_support.c; accessed only through the inline functions below.
extern _Thread_local intptr_t sluice_drain_depth;
extern _Thread_local intptr_t sluice_delivery_depth;

static inline intptr_t sluice_get_drain_depth(void) { return sluice_drain_depth; }
static inline void sluice_set_drain_depth(intptr_t depth) { sluice_drain_depth = depth; }
static inline intptr_t sluice_get_delivery_depth(void) { return sluice_delivery_depth; }
static inline void sluice_set_delivery_depth(intptr_t depth) { sluice_delivery_depth = depth; }

#endif
