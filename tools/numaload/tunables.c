/* The scenario's [tunables] on the running kernel: written for the run,
 * read back for the report, restored afterwards (see tunables.h). */
#include "tunables.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "counters.h"

/* Where each tunable lives: numa_balancing's scan tunables moved from
 * sysctl to debugfs in v5.13 ("sched: Move SCHED_DEBUG sysctl to
 * debugfs"); the ceiling is x86 debugfs. */
static const struct {
	const char *key;
	const char *paths[2];
} files[NL_NR_TUNABLES] = {
	{ "kernel.numa_balancing", { "/proc/sys/kernel/numa_balancing", NULL } },
	{ "numa_balancing.scan_delay_ms",
	  { "/sys/kernel/debug/sched/numa_balancing/scan_delay_ms",
	    "/proc/sys/kernel/numa_balancing_scan_delay_ms" } },
	{ "numa_balancing.scan_period_min_ms",
	  { "/sys/kernel/debug/sched/numa_balancing/scan_period_min_ms",
	    "/proc/sys/kernel/numa_balancing_scan_period_min_ms" } },
	{ "numa_balancing.scan_period_max_ms",
	  { "/sys/kernel/debug/sched/numa_balancing/scan_period_max_ms",
	    "/proc/sys/kernel/numa_balancing_scan_period_max_ms" } },
	{ "numa_balancing.scan_size_mb",
	  { "/sys/kernel/debug/sched/numa_balancing/scan_size_mb",
	    "/proc/sys/kernel/numa_balancing_scan_size_mb" } },
	{ "x86.tlb_single_page_flush_ceiling",
	  { "/sys/kernel/debug/x86/tlb_single_page_flush_ceiling", NULL } },
};

const char *nl_tunable_key(int i)
{
	return files[i].key;
}

static long wanted(const struct scenario *sc, int i)
{
	switch (i) {
	case 0: return sc->t.numa_balancing;
	case 1: return (long)sc->t.scan_delay_ms;
	case 2: return (long)sc->t.scan_period_min_ms;
	case 3: return (long)sc->t.scan_period_max_ms;
	case 4: return (long)sc->t.scan_size_mb;
	default: return sc->m.tlb_single_page_flush_ceiling;
	}
}

static int read_long(const char *path, long *v)
{
	char *t = nl_read_text(path);
	if (!t)
		return -1;
	char *end;
	errno = 0;
	*v = strtol(t, &end, 10);
	int bad = end == t || errno;
	free(t);
	return bad ? -1 : 0;
}

static int write_long(const char *path, long v)
{
	char buf[32];
	int n = snprintf(buf, sizeof(buf), "%ld\n", v);
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t w = write(fd, buf, (size_t)n);
	int e = errno;
	close(fd);
	errno = e;
	return w == n ? 0 : -1;
}

void nl_tunables_read(struct nl_tunables *st)
{
	for (int i = 0; i < NL_NR_TUNABLES; i++) {
		st->have[i] = false;
		for (int p = 0; p < 2 && files[i].paths[p] && !st->have[i]; p++)
			if (!read_long(files[i].paths[p], &st->value[i])) {
				st->have[i] = true;
				st->path[i] = files[i].paths[p];
			}
	}
}

int nl_tunables_apply(const struct scenario *sc, struct nl_tunables *st, char *err, size_t errlen)
{
	memset(st, 0, sizeof(*st));
	nl_tunables_read(st);
	for (int i = 0; i < NL_NR_TUNABLES; i++) {
		int k = scenario_key_index(files[i].key);
		if (!scenario_key_assigned(sc, k))
			continue;
		long v = wanted(sc, i);
		if (!st->have[i])
			return scenario_key_error(sc, k, err, errlen, "cannot read %s%s%s on this machine "
						  "(debugfs mounted? root?)", files[i].paths[0],
						  files[i].paths[1] ? " or " : "",
						  files[i].paths[1] ? files[i].paths[1] : "");
		if (st->value[i] == v)
			continue;
		st->old[i] = st->value[i];
		if (write_long(st->path[i], v)) {
			int e = errno;
			nl_tunables_restore(st);
			return scenario_key_error(sc, k, err, errlen, "cannot write %ld to %s: %s", v,
						  st->path[i], strerror(e));
		}
		st->changed[i] = true;
		st->value[i] = v;
	}
	return 0;
}

void nl_tunables_restore(struct nl_tunables *st)
{
	for (int i = 0; i < NL_NR_TUNABLES; i++)
		if (st->changed[i] && !write_long(st->path[i], st->old[i]))
			st->changed[i] = false;
}
