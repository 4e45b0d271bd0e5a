/* The scenario's [tunables] on the running kernel: written for the run,
 * read back for the report, restored afterwards (see tunables.h). */
#define _GNU_SOURCE /* SIGSYS */
#include "tunables.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "counters.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

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

/* Tests put the files under a directory of their own. */
static char root[NL_TUNABLE_PATH_MAX / 2];

void nl_tunables_root(const char *dir)
{
	snprintf(root, sizeof(root), "%s", dir ? dir : "");
}

void nl_tunables_read(struct nl_tunables *st)
{
	char path[NL_TUNABLE_PATH_MAX];
	for (int i = 0; i < NL_NR_TUNABLES; i++) {
		st->have[i] = false;
		for (int p = 0; p < 2 && files[i].paths[p] && !st->have[i]; p++) {
			snprintf(path, sizeof(path), "%s%s", root, files[i].paths[p]);
			if (!read_long(path, &st->value[i])) {
				st->have[i] = true;
				snprintf(st->path[i], sizeof(st->path[i]), "%s", path);
			}
		}
	}
}

/* ---- the plan: what to write and how to undo it -------------------------------- */

/* Everything a signal handler needs to put the kernel back, ready before
 * the first write, so that it can do so with open, write and close alone.
 * There is one kernel, so there is one plan. */
static struct {
	int n;                                   /* entries, in the order written */
	int tun[NL_NR_TUNABLES];
	char path[NL_NR_TUNABLES][NL_TUNABLE_PATH_MAX];
	long old[NL_NR_TUNABLES], new[NL_NR_TUNABLES];
	char old_text[NL_NR_TUNABLES][24], new_text[NL_NR_TUNABLES][24];
	int old_len[NL_NR_TUNABLES], new_len[NL_NR_TUNABLES];
	/* written, or about to be, and not yet put back: undoing a write
	 * that did not happen writes the value the file already has */
	volatile sig_atomic_t armed[NL_NR_TUNABLES];
} plan;

/* Write the switch last: balancing starts with the scenario's scan
 * parameters already in place, and stops first when they go back. */
static const int write_order[NL_NR_TUNABLES] = { 1, 2, 3, 4, 5, 0 };

/* Write @len bytes of @buf to @path: 0, or the errno.  Async-signal-safe. */
static int put(const char *path, const char *buf, int len)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return errno;
	ssize_t w = write(fd, buf, (size_t)len);
	int e = w < 0 ? errno : w != len ? EIO : 0;
	if (close(fd) && !e)
		e = errno;
	return e;
}

/* Put back every armed entry, last written first.  Async-signal-safe. */
static void undo_armed(void)
{
	for (int e = plan.n - 1; e >= 0; e--)
		if (plan.armed[e] && !put(plan.path[e], plan.old_text[e], plan.old_len[e]))
			plan.armed[e] = 0;
}

/* undo_armed, then one more try of each that failed, to say why. */
static int undo(char *err, size_t errlen)
{
	int rc = 0;
	undo_armed();
	for (int e = plan.n - 1; e >= 0; e--) {
		if (!plan.armed[e])
			continue;
		int why = put(plan.path[e], plan.old_text[e], plan.old_len[e]);
		if (!why) {
			plan.armed[e] = 0;
		} else if (!rc) {
			snprintf(err, errlen, "cannot put %s back to %ld (%s): %s: it stays %ld",
				 files[plan.tun[e]].key, plan.old[e], plan.path[e], strerror(why), plan.new[e]);
			rc = -1;
		}
	}
	return rc;
}

/* ---- signals ---------------------------------------------------------------------- */

/* Signals whose default action ends the process: they end the run,
 * after the tunables are back.  SIGKILL and SIGSTOP cannot be caught. */
static const int stop_signals[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE, SIGALRM, SIGUSR1,
				    SIGUSR2, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF };
/* A crash: put the tunables back, then let the signal do what it did. */
static const int fatal_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS };
static struct sigaction stop_old[ARRAY_SIZE(stop_signals)], fatal_old[ARRAY_SIZE(fatal_signals)];
static bool caught;

static volatile sig_atomic_t *stop_flag;
/* numaload's workload processes inherit the handlers: only the process
 * that wrote puts back (the others' plan is a copy) */
static pid_t owner;

static void on_stop(int sig)
{
	int saved = errno;
	if (getpid() == owner)
		undo_armed();
	if (stop_flag)
		*stop_flag = sig;
	errno = saved;
}

static void on_fatal(int sig)
{
	if (getpid() == owner)
		undo_armed();
	for (size_t i = 0; i < ARRAY_SIZE(fatal_signals); i++)
		if (fatal_signals[i] == sig)
			sigaction(sig, &fatal_old[i], NULL);
	raise(sig); /* delivered on return, to the old action (a core dump, ASan's report) */
}

static void stop_signal_set(sigset_t *set)
{
	sigemptyset(set);
	for (size_t i = 0; i < ARRAY_SIZE(stop_signals); i++)
		sigaddset(set, stop_signals[i]);
}

void nl_tunables_catch_signals(volatile sig_atomic_t *flag)
{
	struct sigaction sa;
	stop_flag = flag;
	owner = getpid();
	if (caught)
		return;
	caught = true;
	memset(&sa, 0, sizeof(sa));
	stop_signal_set(&sa.sa_mask); /* one handler at a time */
	sa.sa_handler = on_stop;
	for (size_t i = 0; i < ARRAY_SIZE(stop_signals); i++)
		if (!sigaction(stop_signals[i], NULL, &stop_old[i]) && stop_old[i].sa_handler != SIG_IGN)
			sigaction(stop_signals[i], &sa, NULL);
	sa.sa_handler = on_fatal;
	for (size_t i = 0; i < ARRAY_SIZE(fatal_signals); i++)
		sigaction(fatal_signals[i], &sa, &fatal_old[i]);
}

void nl_tunables_release_signals(void)
{
	if (!caught)
		return;
	caught = false;
	for (size_t i = 0; i < ARRAY_SIZE(stop_signals); i++)
		sigaction(stop_signals[i], &stop_old[i], NULL);
	for (size_t i = 0; i < ARRAY_SIZE(fatal_signals); i++)
		sigaction(fatal_signals[i], &fatal_old[i], NULL);
}

/* ---- apply and restore --------------------------------------------------------------- */

static void plan_add(int i, const char *path, long old, long new)
{
	int e = plan.n;
	plan.armed[e] = 0;
	plan.tun[e] = i;
	snprintf(plan.path[e], sizeof(plan.path[e]), "%s", path);
	plan.old[e] = old;
	plan.new[e] = new;
	plan.old_len[e] = snprintf(plan.old_text[e], sizeof(plan.old_text[e]), "%ld\n", old);
	plan.new_len[e] = snprintf(plan.new_text[e], sizeof(plan.new_text[e]), "%ld\n", new);
	plan.n = e + 1;
}

int nl_tunables_prepare(const struct scenario *sc, struct nl_tunables *st, char *err, size_t errlen)
{
	memset(st, 0, sizeof(*st));
	nl_tunables_read(st);
	plan.n = 0;
	for (int j = 0; j < NL_NR_TUNABLES; j++) {
		int i = write_order[j], k = scenario_key_index(files[i].key);
		if (!scenario_key_assigned(sc, k))
			continue;
		long v = wanted(sc, i);
		if (!st->have[i])
			return scenario_key_error(sc, k, err, errlen, "cannot read %s%s%s%s%s on this machine "
						  "(debugfs mounted? root?)", root, files[i].paths[0],
						  files[i].paths[1] ? " or " : "", files[i].paths[1] ? root : "",
						  files[i].paths[1] ? files[i].paths[1] : "");
		if (st->value[i] == v)
			continue;
		/* writable?  Opening without O_TRUNC writes nothing */
		int fd = open(st->path[i], O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			return scenario_key_error(sc, k, err, errlen, "cannot write %s: %s", st->path[i],
						  strerror(errno));
		close(fd);
		plan_add(i, st->path[i], st->value[i], v);
	}
	return 0;
}

int nl_tunables_write(const struct scenario *sc, struct nl_tunables *st, char *err, size_t errlen)
{
	sigset_t block, old;
	stop_signal_set(&block);
	sigprocmask(SIG_BLOCK, &block, &old); /* a signal arriving now waits for a consistent plan */
	int rc = 0;
	for (int e = 0; e < plan.n && !rc; e++) {
		int i = plan.tun[e];
		plan.armed[e] = 1;
		int why = put(plan.path[e], plan.new_text[e], plan.new_len[e]);
		if (!why) {
			st->value[i] = plan.new[e];
			continue;
		}
		plan.armed[e] = 0; /* refused: the kernel kept the old value */
		char undone[512] = "";
		(void)undo(undone, sizeof(undone)); /* says why, if one cannot go back */
		rc = scenario_key_error(sc, scenario_key_index(files[i].key), err, errlen,
					"cannot write %ld to %s: %s%s%s", plan.new[e], plan.path[e],
					strerror(why), *undone ? "; and " : "", undone);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return rc;
}

int nl_tunables_apply(const struct scenario *sc, struct nl_tunables *st, char *err, size_t errlen)
{
	if (nl_tunables_prepare(sc, st, err, errlen))
		return -1;
	return nl_tunables_write(sc, st, err, errlen);
}

int nl_tunables_restore(char *err, size_t errlen)
{
	sigset_t block, old;
	stop_signal_set(&block);
	sigprocmask(SIG_BLOCK, &block, &old);
	int rc = undo(err, errlen);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return rc;
}
