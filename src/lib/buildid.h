/* This program's identity, finer than its version string: two builds of
 * one version (a developer's, CI's) may resolve a scenario differently, so
 * whatever caches derived data (the sweep manifest's point ids) keys it by
 * this as well. */
#ifndef NUMASIM_BUILDID_H
#define NUMASIM_BUILDID_H

#include <stddef.h>

/* The GNU build id of the running executable as hex ("gnu:HEX"), or, when
 * it has none, an FNV-1a hash of its file ("exe:HEX").  0, or -1 when
 * neither can be had (callers then cache nothing). */
int self_build_id(char *out, size_t len);

#endif
