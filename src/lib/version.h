/* The program's version and build identity. */
#ifndef NUMASIM_VERSION_ID_H
#define NUMASIM_VERSION_ID_H

/* The build: `git describe --always --dirty` of the tree it was built from,
 * or "src-" and a hash of its sources (scripts/build-id.sh, set by the
 * Makefile); "unknown" for a build outside it. */
extern const char numasim_build_id[];

#endif
