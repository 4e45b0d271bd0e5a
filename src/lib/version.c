/* The build identity (lib/version.h): the Makefile compiles this one file
 * with -DNUMASIM_BUILD="..." and rebuilds it when the identity changes. */
#include "lib/version.h"

#ifndef NUMASIM_BUILD
#define NUMASIM_BUILD "unknown"
#endif

const char numasim_build_id[] = NUMASIM_BUILD;
