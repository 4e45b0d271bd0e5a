/* The [tunables] of a scenario on the running kernel, by the kernel's own
 * files: /proc/sys/kernel/numa_balancing, the numa_balancing scan tunables
 * (debugfs sched/numa_balancing/ since v5.13, sysctl before) and x86's
 * tlb_single_page_flush_ceiling (debugfs).  Only keys the scenario assigns
 * are written; every readable one is reported.
 *
 * What numaload writes it puts back on every way out: a failed write, the
 * end of the run, and the signals that would end it (nl_tunables_catch_signals,
 * installed before the first write), whose handler restores with
 * open/write/close of buffers prepared before any write.  Only SIGKILL
 * (and a power cut) leaves the kernel as numaload set it. */
#ifndef NUMALOAD_TUNABLES_H
#define NUMALOAD_TUNABLES_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "scenario/scenario.h"

#define NL_NR_TUNABLES 6
#define NL_TUNABLE_PATH_MAX 256

struct nl_tunables {
	long value[NL_NR_TUNABLES];      /* current value, if have */
	bool have[NL_NR_TUNABLES];
	char path[NL_NR_TUNABLES][NL_TUNABLE_PATH_MAX];  /* where it was read */
};

/* The key's name, as in the scenario and the JSON ("kernel.numa_balancing"). */
const char *nl_tunable_key(int i);
/* Tests: look for the files under @dir instead of / (NULL: /). */
void nl_tunables_root(const char *dir);
void nl_tunables_read(struct nl_tunables *st);

/* Catch the signals that would end numaload (or crash it) so that they
 * first restore what it wrote; a signal that ends the run sets *@flag to
 * its number.  Signals ignored at start (nohup) stay ignored.  Call before
 * nl_tunables_apply. */
void nl_tunables_catch_signals(volatile sig_atomic_t *flag);
/* The signals' actions as they were, once everything is restored. */
void nl_tunables_release_signals(void);
/* Read every tunable and check that each one @sc assigns can be read and
 * opened for writing, and prepare the writes and their undoing; nothing is
 * written.  -1 with "FILE:LINE: key: ..." if one cannot. */
int nl_tunables_prepare(const struct scenario *sc, struct nl_tunables *st, char *err, size_t errlen);
/* Write what prepare planned, kernel.numa_balancing last.  -1 with
 * "FILE:LINE: key: ..." if the kernel refuses one; then what was written
 * has been put back. */
int nl_tunables_write(const struct scenario *sc, struct nl_tunables *st, char *err, size_t errlen);
/* prepare, then write. */
int nl_tunables_apply(const struct scenario *sc, struct nl_tunables *st, char *err, size_t errlen);
/* Put back what was written, in the reverse order.  -1 with @err naming
 * the first file that could not be restored. */
int nl_tunables_restore(char *err, size_t errlen);

#endif
