// posix_openpt, grantpt, unlockpt and ptsname_r are XSI and GNU functions: glibc declares them
// only when asked to. Defined before any header is included.
#if defined(__linux__)
#define _GNU_SOURCE
#endif

#include "pseudo_terminal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

int sluice_open_pseudo_terminal(char *name, size_t capacity) {
  int primary = posix_openpt(O_RDWR | O_NOCTTY);
  if (primary < 0) return -1;
  // ptsname_r, not ptsname: tests open terminals from several threads at once.
  if (grantpt(primary) != 0 || unlockpt(primary) != 0 || ptsname_r(primary, name, capacity) != 0) {
    int error = errno;
    close(primary);
    errno = error;
    return -1;
  }
  return primary;
}
