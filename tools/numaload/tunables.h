/* The [tunables] of a scenario on the running kernel, by the kernel's own
 * files: /proc/sys/kernel/numa_balancing, the numa_balancing scan tunables
 * (debugfs sched/numa_balancing/ since v5.13, sysctl before) and x86's
 * tlb_single_page_flush_ceiling (debugfs).  Only keys the scenario assigns
 * are written; every readable one is reported. */
#ifndef NUMALOAD_TUNABLES_H
#define NUMALOAD_TUNABLES_H

#include <stdbool.h>
#include <stddef.h>

#include "scenario/scenario.h"

#define NL_NR_TUNABLES 6

struct nl_tunables {
	long value[NL_NR_TUNABLES];      /* current value, if have */
	bool have[NL_NR_TUNABLES];
	const char *path[NL_NR_TUNABLES];
	long old[NL_NR_TUNABLES];        /* before numaload wrote it */
	bool changed[NL_NR_TUNABLES];
};

/* The key's name, as in the scenario and the JSON ("kernel.numa_balancing"). */
const char *nl_tunable_key(int i);
/* Read all; write those @sc assigns.  -1 with "FILE:LINE: key: ..." if one
 * cannot be read or written (then nothing stays changed). */
int nl_tunables_apply(const struct scenario *sc, struct nl_tunables *st, char *err, size_t errlen);
void nl_tunables_read(struct nl_tunables *st);
/* Put back what apply changed. */
void nl_tunables_restore(struct nl_tunables *st);

#endif
