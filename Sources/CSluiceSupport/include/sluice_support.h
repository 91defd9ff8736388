#ifndef SLUICE_SUPPORT_H
#define SLUICE_SUPPORT_H

#include <stdint.h>

/// Per-thread counters Sluice reads on its dispatch path. Swift has no thread-local storage of
/// its own; `pthread_getspecific` costs a function call each time, these a single load.
/// Defined in sluice_support.c; accessed only through the inline functions below.
extern _Thread_local intptr_t sluice_drain_depth;
extern _Thread_local intptr_t sluice_delivery_depth;
/// How many reducers run on this thread (they nest when one dispatches into an idle lane). Its
/// address identifies the thread: cheaper to get than `pthread_self()`, and never 0.
extern _Thread_local intptr_t sluice_reducer_depth;

static inline intptr_t sluice_get_drain_depth(void) { return sluice_drain_depth; }
static inline void sluice_set_drain_depth(intptr_t depth) { sluice_drain_depth = depth; }
static inline intptr_t sluice_get_delivery_depth(void) { return sluice_delivery_depth; }
static inline void sluice_set_delivery_depth(intptr_t depth) { sluice_delivery_depth = depth; }
static inline intptr_t *_Nonnull sluice_reducer_depth_pointer(void) { return &sluice_reducer_depth; }

#endif
