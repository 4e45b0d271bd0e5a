/* Histogram triggers on the kernel's tracepoints (see tracehist.h). */
#include "tracehist.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "counters.h"

const char *const nl_tlb_reason_names[NL_TLB_REASONS] = {
	"task_switch", "remote_shootdown", "local_shootdown", "local_mm_shootdown", "remote_ipi_send",
};

const char *const nl_flush_path_names[NL_NR_PATHS] = {
	[NL_PATH_BATCHED_PENDING] = "flush_tlb_batched_pending",
	[NL_PATH_UNMAP_BATCH] = "try_to_unmap_flush",
	[NL_PATH_PTEP_CLEAR] = "ptep_clear_flush",
	[NL_PATH_MMU_GATHER] = "tlb_finish_mmu",
	[NL_PATH_OTHER] = "other",
};

/* The functions that name a path, innermost meaning first: a flush from
 * flush_tlb_batched_pending inside change_protection's gather is that
 * function's, not the gather's. */
static const struct {
	const char *fn;
	enum nl_flush_path path;
} path_fns[] = {
	{ "flush_tlb_batched_pending", NL_PATH_BATCHED_PENDING },
	{ "arch_tlbbatch_flush", NL_PATH_UNMAP_BATCH },
	{ "try_to_unmap_flush", NL_PATH_UNMAP_BATCH },  /* also try_to_unmap_flush_dirty */
	{ "ptep_clear_flush", NL_PATH_PTEP_CLEAR },
	{ "tlb_finish_mmu", NL_PATH_MMU_GATHER },
	{ "tlb_flush_mmu", NL_PATH_MMU_GATHER },
};

/* Whether @stack has a frame of function @fn ("fn+0x12/0x40", or a
 * ".isra"/".constprop" clone of it). */
static bool has_frame(const char *stack, const char *fn)
{
	size_t n = strlen(fn);
	for (const char *p = strstr(stack, fn); p; p = strstr(p + 1, fn)) {
		bool start = p == stack || p[-1] == ' ' || p[-1] == '\t' || p[-1] == '\n';
		bool end = p[n] == '+' || p[n] == '.' || p[n] == '\n' || p[n] == '\0' ||
			   (p[n] == '_' && !strncmp(fn, "try_to_unmap_flush", n) &&
			    !strncmp(p + n, "_dirty", 6));
		if (start && end)
			return true;
	}
	return false;
}

enum nl_flush_path nl_flush_path_of(const char *stack)
{
	/* innermost frame first: the earliest line of the stack that names a path */
	const char *best = NULL;
	enum nl_flush_path path = NL_PATH_OTHER;
	for (size_t i = 0; i < sizeof(path_fns) / sizeof(path_fns[0]); i++) {
		if (!has_frame(stack, path_fns[i].fn))
			continue;
		const char *at = strstr(stack, path_fns[i].fn);
		if (!best || at < best) {
			best = at;
			path = path_fns[i].path;
		}
	}
	return path;
}

/* Filters: initiator-side events only (reason 2, 3: the local flush of a
 * flush_tlb_mm_range or batch; 4: the IPIs it sent). */
#define LOCAL_FILTER "if reason == 2 || reason == 3"
#define IPI_FILTER "if reason == 4"

const struct nl_trigger nl_triggers[] = {
	{ "tlb/tlb_flush", "hist:keys=reason,pages:vals=hitcount:size=1024" },
	{ "tlb/tlb_flush", "hist:keys=stacktrace:vals=hitcount:size=1024 " LOCAL_FILTER },
	{ "tlb/tlb_flush", "hist:keys=stacktrace:vals=hitcount:size=1024 " IPI_FILTER },
	{ "migrate/mm_migrate_pages", "hist:keys=reason:vals=hitcount,succeeded,failed:size=128" },
	{ "sched/sched_skip_vma_numa", "hist:keys=reason:vals=hitcount:size=128" },
	/* task_numa_migrate's outcomes (every modelled base has the three,
	 * with src_nid and dst_nid: the pair layout since v5.7) */
	{ "sched/sched_move_numa", "hist:keys=src_nid,dst_nid:vals=hitcount:size=128" },
	{ "sched/sched_swap_numa", "hist:keys=src_nid,dst_nid:vals=hitcount:size=128" },
	{ "sched/sched_stick_numa", "hist:keys=src_nid,dst_nid:vals=hitcount:size=128" },
};
const int nl_nr_triggers = (int)(sizeof(nl_triggers) / sizeof(nl_triggers[0]));

/* ---- parsing ------------------------------------------------------------- */

/* The value of "name:" in @s (up to @end), or -1 if it is not there. */
static int field_u64(const char *s, const char *end, const char *name, uint64_t *out)
{
	size_t n = strlen(name);
	for (const char *p = s; p && p + n < end; p = strstr(p + 1, name)) {
		p = strstr(p, name);
		if (!p || p + n >= end)
			return -1;
		bool start = p == s || p[-1] == ' ' || p[-1] == '{' || p[-1] == ',' || p[-1] == '\t';
		if (!start || p[n] != ':')
			continue;
		const char *q = p + n + 1;
		while (*q == ' ' || *q == '\t')
			q++;
		char *e;
		errno = 0;
		unsigned long long v = strtoull(q, &e, 10);
		if (e == q || errno)
			return -1;
		*out = v;
		return 0;
	}
	return -1;
}

enum hist_kind {
	H_NONE, H_TLB_REASON, H_TLB_LOCAL_STACK, H_TLB_IPI_STACK, H_MIGRATE, H_SKIP,
	H_MOVE, H_SWAP, H_STICK
};

/* The sched_*_numa events, in H_MOVE .. H_STICK order. */
static const char *const sched_events[3] = {
	"sched/sched_move_numa", "sched/sched_swap_numa", "sched/sched_stick_numa"
};

static enum hist_kind kind_of(const char *event, const char *info, const char *end)
{
	char line[512];
	snprintf(line, sizeof(line), "%.*s", (int)(end - info), info);
	if (!strcmp(event, "tlb/tlb_flush")) {
		if (strstr(line, "keys=reason,pages"))
			return H_TLB_REASON;
		/* the key is "stacktrace" before v6.5, "common_stacktrace" after */
		bool stack = strstr(line, "keys=stacktrace") || strstr(line, "keys=common_stacktrace");
		if (stack && strstr(line, "reason == 4"))
			return H_TLB_IPI_STACK;
		if (stack && strstr(line, "reason == 2"))
			return H_TLB_LOCAL_STACK;
	} else if (!strcmp(event, "migrate/mm_migrate_pages") && strstr(line, "keys=reason")) {
		return H_MIGRATE;
	} else if (!strcmp(event, "sched/sched_skip_vma_numa") && strstr(line, "keys=reason")) {
		return H_SKIP;
	}
	for (int i = 0; i < 3; i++)
		if (!strcmp(event, sched_events[i]) && strstr(line, "keys=src_nid,dst_nid"))
			return (enum hist_kind)(H_MOVE + i);
	return H_NONE;
}

/* One record: the key text between { and }, the values after }. */
static int take_record(enum hist_kind k, const char *key, const char *kend, const char *vals,
		       const char *vend, struct nl_trace *t)
{
	uint64_t hits, reason, pages, ok, fail;
	char *stack;
	if (field_u64(vals, vend, "hitcount", &hits))
		return -1;
	switch (k) {
	case H_TLB_REASON:
		if (field_u64(key, kend, "reason", &reason) || field_u64(key, kend, "pages", &pages))
			return -1;
		if (reason < NL_TLB_REASONS) {
			t->tlb_reason[reason] += hits;
			if (pages == UINT64_MAX)
				t->tlb_full[reason] += hits;
		}
		return 0;
	case H_TLB_LOCAL_STACK:
	case H_TLB_IPI_STACK:
		stack = strndup(key, (size_t)(kend - key));
		if (!stack)
			return -1;
		(k == H_TLB_IPI_STACK ? t->ipi_path : t->local_path)[nl_flush_path_of(stack)] += hits;
		free(stack);
		return 0;
	case H_MIGRATE:
		if (field_u64(key, kend, "reason", &reason) ||
		    field_u64(vals, vend, "succeeded", &ok) || field_u64(vals, vend, "failed", &fail))
			return -1;
		if (reason == NL_MR_NUMA_MISPLACED) {
			t->migrate_calls += hits;
			t->migrate_succeeded += ok;
			t->migrate_failed += fail;
		} else {
			t->migrate_other_calls += hits;
		}
		return 0;
	case H_SKIP:
		if (field_u64(key, kend, "reason", &reason))
			return -1;
		if (reason < sizeof(t->skip_reason) / sizeof(t->skip_reason[0]))
			t->skip_reason[reason] += hits;
		return 0;
	case H_MOVE:
		t->numa_moves += hits;
		return 0;
	case H_SWAP:
		t->numa_swaps += hits;
		return 0;
	case H_STICK:
		t->numa_sticks += hits;
		return 0;
	default:
		return 0;
	}
}

int nl_trace_parse(const char *event, const char *text, struct nl_trace *t)
{
	enum hist_kind kind = H_NONE;
	int seen = 0;
	const char *p = text;
	while (*p) {
		const char *eol = strchr(p, '\n');
		if (!eol)
			eol = p + strlen(p);
		if (!strncmp(p, "# trigger info:", 15)) {
			kind = kind_of(event, p, eol);
			seen += kind != H_NONE;
		} else if (*p == '{' && kind != H_NONE) {
			const char *close = strchr(p, '}');
			if (!close)
				return -1;
			const char *vend = strchr(close, '\n');
			if (!vend)
				vend = close + strlen(close);
			if (take_record(kind, p + 1, close, close + 1, vend, t))
				return -1;
			eol = vend;
		}
		p = *eol ? eol + 1 : eol;
	}
	if (!seen)
		return -1;
	if (!strcmp(event, "tlb/tlb_flush"))
		t->tlb_ok = true;
	else if (!strcmp(event, "migrate/mm_migrate_pages"))
		t->migrate_ok = true;
	else if (!strcmp(event, "sched/sched_skip_vma_numa"))
		t->skip_ok = true;
	for (int i = 0; i < 3; i++)
		if (!strcmp(event, sched_events[i]))
			t->sched_ok[i] = true;
	return 0;
}

/* ---- tracefs --------------------------------------------------------------- */

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t n = strlen(s);
	ssize_t w = write(fd, s, n);
	int e = errno;
	close(fd);
	errno = e;
	return w == (ssize_t)n ? 0 : -1;
}

int nl_trace_set(const char *tracefs, bool on, char *err, size_t errlen)
{
	char path[512], cmd[512];
	int installed = 0;
	snprintf(path, sizeof(path), "%s/events/tlb/tlb_flush/trigger", tracefs);
	if (on && access(path, W_OK)) {
		snprintf(err, errlen, "%s: %s (mount tracefs at %s, as root)", path, strerror(errno),
			 tracefs);
		return -1;
	}
	for (int i = 0; i < nl_nr_triggers; i++) {
		snprintf(path, sizeof(path), "%s/events/%s/trigger", tracefs, nl_triggers[i].event);
		if (access(path, F_OK))
			continue; /* the kernel lacks the event (sched_skip_vma_numa before v6.7) */
		snprintf(cmd, sizeof(cmd), "!%s", nl_triggers[i].trigger);
		(void)write_str(path, cmd); /* a stale copy from an interrupted run */
		if (!on)
			continue;
		if (write_str(path, nl_triggers[i].trigger)) {
			snprintf(err, errlen, "%s: cannot add '%s': %s", path, nl_triggers[i].trigger,
				 strerror(errno));
			nl_trace_set(tracefs, false, NULL, 0);
			return -1;
		}
		installed++;
	}
	return installed;
}

static void save_text(const char *dir, const char *event, const char *text)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s.hist", dir, event);
	for (char *p = path + strlen(dir) + 1; *p; p++)
		if (*p == '/')
			*p = '_';
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	size_t n = strlen(text);
	if (write(fd, text, n) != (ssize_t)n)
		fprintf(stderr, "numaload: %s: short write\n", path);
	close(fd);
}

void nl_trace_read(const char *tracefs, struct nl_trace *t, const char *save_dir)
{
	char path[512];
	const char *done = NULL;
	for (int i = 0; i < nl_nr_triggers; i++) {
		if (done && !strcmp(done, nl_triggers[i].event))
			continue; /* one hist file holds all of an event's histograms */
		done = nl_triggers[i].event;
		snprintf(path, sizeof(path), "%s/events/%s/hist", tracefs, nl_triggers[i].event);
		char *text = nl_read_text(path);
		if (text)
			(void)nl_trace_parse(nl_triggers[i].event, text, t);
		if (text && save_dir)
			save_text(save_dir, nl_triggers[i].event, text);
		free(text);
	}
}
