#include "sluice_support.h"

_Thread_local intptr_t sluice_drain_depth = 0;
_Thread_local intptr_t sluice_delivery_depth = 0;
_Thread_local intptr_t sluice_reducer_depth = 0;
