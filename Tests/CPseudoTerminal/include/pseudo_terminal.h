#ifndef SLUICE_PSEUDO_TERMINAL_H
#define SLUICE_PSEUDO_TERMINAL_H

#include <stddef.h>

/// Opens a new pseudo-terminal through the portable calls (posix_openpt, grantpt, unlockpt,
/// ptsname_r), which glibc declares only on request and so hides from Swift.
///
/// Returns the primary side's file descriptor and writes the path of the secondary side to
/// `name`, a buffer of `capacity` bytes. Returns -1 with errno set when a call fails (ERANGE
/// when the path does not fit); nothing is left open then.
int sluice_open_pseudo_terminal(char *_Nonnull name, size_t capacity);

#endif
