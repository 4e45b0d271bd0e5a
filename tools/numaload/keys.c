/* The scenario keys numaload honours (see keys.h). */
#include "keys.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* What numaload does instead, for the keys it cannot honour. */
#define W_TOUCH "its threads touch their pages uniformly (within the hot set), one cache line " \
		"per operation, as fast as they can, without sleeping"
#define W_WORK "it runs for run.duration_s, not until a fixed amount of work is done"
#define W_POLICY "it first-touches under a task policy it then drops (the VMAs keep none) " \
		 "and runs no memory eater"
#define W_CALLS "it makes no migrate_pages, move_pages or mbind calls"
#define W_PHASE "its threads keep their own slices (no phases)"
#define W_MADV "it makes no madvise calls during the run"
#define W_THP "it maps its memory MADV_NOHUGEPAGE: 4 KiB pages only, no THP or mTHP"
#define W_COMPACT "it does not write /proc/sys/vm/compact_memory"
#define W_EXACT "a mode of numasim's model (docs/model.md 3.3a): a real kernel takes every " \
		"hint fault; give numasim --exact instead"
#define W_COSTS "a cost of numasim's machine model; a real machine has its own"
#define W_MODEL "a parameter of numasim's machine model that numaload can neither set nor check"
#define W_KERNEL "the running kernel is the kernel; give numasim the matching base with --kernel"
#define W_TIER "numaload leaves memory tiering's tunables as the kernel has them and " \
	       "runs on the machine's own nodes (numasim's CPU-less nodes are a model's)"
#define W_UNKNOWN "numaload does not know this key (add it to tools/numaload/keys.c)"

static int first_touch_limit(const struct scenario *sc, int k, char *why, size_t len);

/* Keys as a user writes them (scenario_key_name); "PREFIX*" covers every
 * key that begins with PREFIX.  A key's own entry wins over a prefix. */
static const struct nl_key {
	const char *key;
	enum nl_rule rule;
	const char *why;
	/* an honoured key whose value numaload may not run: 0, or -1 with @why */
	int (*limit)(const struct scenario *sc, int k, char *why, size_t len);
} table[] = {
	{ "machine.sockets", NL_CHECK, NULL, NULL },
	{ "machine.nodes_per_socket", NL_CHECK, NULL, NULL },
	{ "machine.cores_per_node", NL_CHECK, NULL, NULL },
	{ "machine.threads_per_core", NL_CHECK, NULL, NULL },
	{ "machine.cpus", NL_CHECK, NULL, NULL },
	{ "machine.mem_per_node_gib", NL_CHECK, NULL, NULL },
	{ "machine.distance_same_socket", NL_CHECK, NULL, NULL },
	{ "machine.distance_remote", NL_CHECK, NULL, NULL },
	{ "machine.flush_engine", NL_CHECK, NULL, NULL },
	{ "machine.hz", NL_CHECK, NULL, NULL },
	{ "machine.*", NL_NEVER, W_MODEL, NULL },
	{ "costs.*", NL_NEVER, W_COSTS, NULL },
	{ "kernel.name", NL_NEVER, W_KERNEL, NULL },

	{ "kernel.numa_balancing", NL_WRITE, NULL, NULL },
	{ "numa_balancing.scan_delay_ms", NL_WRITE, NULL, NULL },
	{ "numa_balancing.scan_period_min_ms", NL_WRITE, NULL, NULL },
	{ "numa_balancing.scan_period_max_ms", NL_WRITE, NULL, NULL },
	{ "numa_balancing.scan_size_mb", NL_WRITE, NULL, NULL },
	{ "x86.tlb_single_page_flush_ceiling", NL_WRITE, NULL, NULL },
	{ "transparent_hugepage.*", NL_OFF, W_THP, NULL },
	{ "numa_balancing.hot_threshold_ms", NL_NEVER, W_TIER, NULL },
	{ "kernel.numa_balancing_promote_rate_limit_MBps", NL_NEVER, W_TIER, NULL },
	{ "numa.demotion_enabled", NL_NEVER, W_TIER, NULL },

	{ "workload.processes", NL_HONOUR, NULL, NULL },
	{ "workload.threads", NL_HONOUR, NULL, NULL },
	{ "workload.memory_gib", NL_HONOUR, NULL, NULL },
	{ "workload.private_fraction", NL_HONOUR, NULL, NULL },
	{ "workload.private_access_share", NL_HONOUR, NULL, NULL },
	{ "workload.hot_fraction", NL_HONOUR, NULL, NULL },
	{ "workload.hot_access_share", NL_HONOUR, NULL, NULL },
	{ "workload.cpu_ns_per_op", NL_HONOUR, NULL, NULL },
	{ "workload.shared_first_touch", NL_HONOUR, NULL, first_touch_limit },
	{ "workload.private_first_touch", NL_HONOUR, NULL, first_touch_limit },
	{ "workload.map_shared", NL_HONOUR, NULL, NULL },
	{ "workload.spread_shared", NL_HONOUR, NULL, NULL },
	{ "workload.main_thread_works", NL_HONOUR, NULL, NULL },
	{ "workload.vma_mib", NL_HONOUR, NULL, NULL },
	{ "workload.bind", NL_HONOUR, NULL, NULL },
	{ "workload.run_ms", NL_OFF, W_TOUCH, NULL },
	{ "workload.sleep_ms", NL_OFF, W_TOUCH, NULL },
	{ "workload.access", NL_OFF, W_TOUCH, NULL },
	{ "workload.access_shape", NL_OFF, W_TOUCH, NULL },
	{ "workload.access_set", NL_OFF, W_TOUCH, NULL },
	{ "workload.bytes_per_op", NL_OFF, W_TOUCH, NULL },
	{ "workload.work_mops", NL_OFF, W_WORK, NULL },
	{ "workload.policy_in_force", NL_OFF, W_POLICY, NULL },
	{ "workload.numa_balancing_bind", NL_OFF, W_POLICY, NULL },
	{ "workload.eat_node", NL_OFF, W_POLICY, NULL },
	{ "workload.eat_gib", NL_OFF, W_POLICY, NULL },
	{ "workload.migrate_*", NL_OFF, W_CALLS, NULL },
	{ "workload.phase_*", NL_OFF, W_PHASE, NULL },
	{ "workload.madvise_*", NL_OFF, W_MADV, NULL },
	{ "workload.madv_hugepage", NL_OFF, W_THP, NULL },
	{ "workload.thp_partial", NL_OFF, W_THP, NULL },
	{ "workload.thp_partial_*", NL_OFF, W_THP, NULL },

	{ "run.duration_s", NL_HONOUR, NULL, NULL },
	{ "run.seed", NL_HONOUR, NULL, NULL },
	{ "run.compact_memory_every_s", NL_OFF, W_COMPACT, NULL },
	{ "run.exact", NL_OFF, W_EXACT, NULL },
};

/* The entry for @k: its name, else the longest prefix ("costs.*"). */
static const struct nl_key *lookup(int k)
{
	char buf[160];
	const char *name = scenario_key_name(k, buf, sizeof(buf));
	const struct nl_key *best = NULL;
	size_t best_len = 0;
	for (size_t i = 0; i < ARRAY_SIZE(table); i++) {
		const char *key = table[i].key;
		size_t n = strlen(key);
		if (!strcmp(key, name))
			return &table[i];
		if (key[n - 1] == '*' && !strncmp(key, name, n - 1) && n > best_len) {
			best = &table[i];
			best_len = n;
		}
	}
	return best;
}

enum nl_rule nl_key_rule(int k, const char **why)
{
	const struct nl_key *e = lookup(k);
	if (why)
		*why = e ? e->why : W_UNKNOWN;
	return e ? e->rule : NL_NEVER;
}

bool nl_key_listed(int k)
{
	return lookup(k) != NULL;
}

/* numaload places a chunk with MPOL_PREFERRED on one node computed as
 * numasim computes it (shape.c:nl_first_touch_node): the node lists of
 * bind, preferred and weighted interleave are not done yet. */
static int first_touch_limit(const struct scenario *sc, int k, char *why, size_t len)
{
	char buf[160];
	const char *name = scenario_key_name(k, buf, sizeof(buf));
	const struct first_touch_policy *ft = strstr(name, "private") ? &sc->w.private_first_touch
								      : &sc->w.shared_first_touch;
	if (ft->mode <= FT_NODE0 && !ft->nodes)
		return 0;
	snprintf(why, len, "numaload cannot honour this policy on a real machine yet "
		 "(local, remote, interleave, node0 only)");
	return -1;
}

/* ---- numasim's defaults ------------------------------------------------------ */

/* A scenario of numasim's defaults, read by numasim's parser as an empty
 * scenario file would be. */
static const struct scenario *defaults(void)
{
	static struct scenario *d;
	static const char text[] = "[machine]\n[workload]\n";
	char err[256];
	if (!d) {
		d = malloc(sizeof(*d));
		if (d && scenario_load_text("defaults.ini", text, sizeof(text) - 1, d, err, sizeof(err))) {
			free(d);
			d = NULL;
		}
	}
	return d;
}

static bool value_equal(const struct scenario_value *a, const struct scenario_value *b)
{
	switch (a->type) {
	case SV_INT: return a->i == b->i;
	case SV_DOUBLE: return a->d == b->d;
	case SV_BOOL: return a->b == b->b;
	default: return !strcmp(a->s, b->s);
	}
}

static void value_text(const struct scenario_value *v, char *buf, size_t len)
{
	switch (v->type) {
	case SV_INT: snprintf(buf, len, "%lld", v->i); break;
	case SV_DOUBLE: snprintf(buf, len, "%g", v->d); break;
	case SV_BOOL: snprintf(buf, len, "%s", v->b ? "true" : "false"); break;
	default: snprintf(buf, len, "%s", v->s); break;
	}
}

/* An NL_OFF key: 0 at numasim's default, else -1 with the default in @why. */
static int off_at_default(const struct scenario *sc, int k, const char *what, char *why, size_t len)
{
	struct scenario_value v, d;
	char text[300];
	if (!defaults()) {
		snprintf(why, len, "cannot build numasim's defaults to compare with (out of memory)");
		return -1;
	}
	scenario_get(sc, k, &v);
	scenario_get(defaults(), k, &d);
	if (value_equal(&v, &d))
		return 0;
	value_text(&d, text, sizeof(text));
	snprintf(why, len, "numaload cannot honour this on a real machine: %s (only numasim's "
		 "default, %s, is accepted)", what, text);
	return -1;
}

/* 0 if numaload can run key @k as @sc has it, else -1 with @why. */
static int refusal(const struct scenario *sc, int k, char *why, size_t len)
{
	const struct nl_key *e = lookup(k);
	if (!e || e->rule == NL_NEVER) {
		snprintf(why, len, "numaload cannot honour this on a real machine: %s", e ? e->why : W_UNKNOWN);
		return -1;
	}
	if (e->rule == NL_OFF)
		return off_at_default(sc, k, e->why, why, len);
	return e->limit ? e->limit(sc, k, why, len) : 0;
}

/* Of several keys refused, name the one assigned first: the file's
 * earliest line, as numasim's parser reports. */
int nl_keys_refuse(const struct scenario *sc, char *err, size_t errlen)
{
	char why[512];
	int first = -1;
	for (int k = 0; k < scenario_key_count(); k++)
		if (scenario_key_assigned(sc, k) && refusal(sc, k, why, sizeof(why)) &&
		    (first < 0 || sc->origin[k].seq < sc->origin[first].seq))
			first = k;
	if (first < 0)
		return 0;
	refusal(sc, first, why, sizeof(why));
	return scenario_key_error(sc, first, err, errlen, "%s", why);
}
