/* Scenario files: INI parsing (inih), --set overrides and validation.
 *
 * Every key is described once in keys[] (section, name, type, where it is
 * stored, allowed range); the INI handler and --set both go through
 * assign().  The installed inih's handler gets no line number (ini.h:
 * INI_HANDLER_LINENO is 0), so the parser feeds inih through its own
 * reader, which counts lines: the handler for a key runs right after the
 * reader handed over that key's line. */
#include "lib/suggest.h"
#include "scenario/scenario.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kernel/sched/topology.h"
#include "sim/engine.h"
#include "workload/access.h"
#include "lib/iniline.h"
#include "lib/readfile.h"
#include "lib/strnum.h"
#include "linux/cpumask.h"
#include "linux/migrate.h"
#include "linux/huge_mm.h"
#include "linux/memory-tiers.h"
#include "linux/sched/numa_balancing.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define STR_(x) #x
#define STR(x) STR_(x)

/* The cost model's fields, each a [costs] key of the same name. */
#define COST_FIELDS(X)                                                     \
	X(dram_local_ns) X(page_walk_ns) X(cr3_flush_ns) X(invlpg_ns)      \
	X(ipi_send_base_ns) X(ipi_send_per_cpu_ns) X(ipi_send_remote_ns)   \
	X(ipi_latency_ns) X(ipi_latency_remote_ns) X(ipi_handler_ns)       \
	X(ipi_callback_ns) X(invlpgb_ns) X(tlbi_ns) X(dsb_ns)               \
	X(pte_update_ns) X(pte_skip_ns) X(pte_table_ns) X(gather_ns)       \
	X(hint_fault_ns) X(migrate_setup_ns) X(copy_page_ns) X(remap_ns)   \
	X(lru_scan_ns)                                                     \
	X(context_switch_ns) X(sched_rq_scan_ns) X(stopper_move_ns)

enum key_id {
	K_SOCKETS, K_NODES_PER_SOCKET, K_CORES_PER_NODE, K_THREADS_PER_CORE, K_CPUS,
	K_MEM_PER_NODE, K_FLUSH_ENGINE, K_TLB_ENTRIES, K_HZ, K_DIST_SAME, K_DIST_REMOTE, K_REPEAT_TLBI, K_TLBI_RANGE, K_CPU_GHZ, K_MEM_BW, K_LINK_BW,
	K_MEMORY_NODES, K_MEMORY_NODE_GIB, K_MEMORY_NODE_LAT, K_MEMORY_NODE_BW,
#define COST_ID(f) K_COST_##f,
	COST_FIELDS(COST_ID)
#undef COST_ID
	K_NUMA_BALANCING, K_SCAN_DELAY, K_SCAN_MIN, K_SCAN_MAX, K_SCAN_SIZE, K_FLUSH_CEILING,
	K_HOT_THRESHOLD, K_PROMOTE_RATE, K_DEMOTION_ENABLED,
	K_THP_ENABLED, K_THP_DEFRAG, K_THP_16K, K_THP_32K, K_THP_64K, K_THP_128K, K_THP_256K,
	K_THP_512K, K_THP_1M, K_THP_2M,
	K_PROCESSES, K_THREADS, K_MEMORY, K_PRIVATE_FRACTION, K_PRIVATE_SHARE,
	K_HOT_FRACTION, K_HOT_SHARE, K_CPU_NS, K_SHARED_FT,
	K_PRIVATE_FT, K_MAP_SHARED, K_SPREAD_SHARED, K_MAIN_WORKS, K_VMA_MIB,
	K_BIND, K_RUN_MS, K_SLEEP_MS, K_ACCESS, K_ACCESS_SHAPE, K_ACCESS_SET, K_WORK, K_BYTES_PER_OP,
	K_POLICY_IN_FORCE, K_NB_BIND, K_EAT_NODE, K_EAT_GIB,
	K_MCALL, K_MPROC, K_MFROM, K_MTO, K_MAT, K_MEVERY, K_MBACK, K_PHASE_EVERY, K_PHASE_SHIFT,
	K_MADV_COLD_EVERY, K_MADV_COLD_KIB, K_MADV_DONTNEED_EVERY, K_MADV_DONTNEED_KIB,
	K_MADV_HUGEPAGE, K_THP_PARTIAL, K_THP_PARTIAL_OP, K_THP_PARTIAL_PATTERN,
	K_KERNEL, K_DURATION, K_SEED, K_COMPACT_EVERY, K_EXACT,
	NR_KEYS
};

#define NR_COST_KEYS (K_COST_stopper_move_ns - K_COST_dram_local_ns + 1)
_Static_assert(sizeof(struct cost_model) == NR_COST_KEYS * sizeof(double),
	       "struct cost_model changed: add the field to COST_FIELDS in scenario.c");
_Static_assert(NR_KEYS <= SCENARIO_MAX_KEYS, "raise SCENARIO_MAX_KEYS");

enum key_type {
	KT_INT,          /* int */
	KT_UINT,         /* unsigned */
	KT_DOUBLE,
	KT_SEED,         /* uint64_t, at most INT64_MAX so JSON keeps it exact */
	KT_BOOL,
	KT_ENGINE,       /* enum flush_engine */
	KT_FIRST_TOUCH,  /* enum first_touch */
	KT_BIND,         /* enum thread_bind */
	KT_ACCESS,       /* enum access_pattern */
	KT_MCALL,        /* enum migrate_syscall */
	KT_GIB_TO_MIB,   /* double GiB stored as uint64_t MiB */
	KT_KERNEL,       /* char[96], checked by kernel_config_parse */
	KT_THP_ENABLED,  /* enum thp_enabled */
	KT_THP_DEFRAG,   /* enum thp_defrag */
	KT_THP_SIZE,     /* enum thp_size_enabled */
	KT_MADV,         /* enum madv_hugepage */
	KT_PARTIAL_OP,   /* enum thp_partial_op */
	KT_PARTIAL_PATTERN, /* enum thp_partial_pattern */
	KT_SOCKET_LIST,  /* struct machine's memory nodes: the socket of each */
};

struct key_def {
	const char *section;
	const char *name;
	enum key_type type;
	size_t off;          /* offsetof(struct scenario, ...) */
	double min, max;     /* inclusive; see min_open */
	bool min_open;       /* min itself is not allowed */
	double unit_ns;      /* a time (period, instant, duration): ns per unit, else 0 */
};

/* A store page is mapped at most once per process: the page mapcount must
 * hold one mapping per process (linux/mm_types.h). */
#define MAX_PROCESSES 4096
_Static_assert(MAX_PROCESSES <= PAGE_MAPCOUNT_MAX, "struct page_state's mapcount is too narrow");

#define MIN_DURATION_S 0.001
#define MAX_DURATION_S 86400

#define OFF(field) offsetof(struct scenario, field)
/* time keys' units, in ns (key_def.unit_ns) */
#define UNIT_MS 1e6
#define UNIT_S 1e9
#define MACHINE(n, f, lo, hi) [K_##n] = { "machine", #f, KT_INT, OFF(m.f), lo, hi, false, 0 }
#define COST_DEF(f) \
	[K_COST_##f] = { "costs", #f, KT_DOUBLE, OFF(m.cost.f), 0, 1e9, false, 0 },
#define FRACTION(n, f) [K_##n] = { "workload", #f, KT_DOUBLE, OFF(w.f), 0, 1, false, 0 }
#define THP_SIZE(n, kb, order)                                                              \
	[K_THP_##n] = { "tunables", "transparent_hugepage.hugepages-" #kb "kB.enabled",       \
			KT_THP_SIZE, OFF(t.thp.size[order]), 0, 0, false, 0 }

/* Bounds: topology counts may be 0 here so the validation can say "no
 * CPUs"; anything above 4096 would exceed NR_CPUS_MAX anyway.  Off-diagonal
 * SLIT distances must exceed 10 (ACPI: 10 means local) and fit in a byte
 * below 255 (unreachable).  hz is CONFIG_HZ (the tick must be >= 1 ns). */
static const struct key_def keys[NR_KEYS] = {
	[K_SOCKETS] = { "machine", "sockets", KT_INT, OFF(m.nr_sockets), 0, 4096, false, 0 },
	MACHINE(NODES_PER_SOCKET, nodes_per_socket, 0, 4096),
	MACHINE(CORES_PER_NODE, cores_per_node, 0, 4096),
	MACHINE(THREADS_PER_CORE, threads_per_core, 0, 4096),
	[K_CPUS] = { "machine", "cpus", KT_INT, OFF(cpus), 1, 1 << 30, false, 0 },
	[K_MEM_PER_NODE] = { "machine", "mem_per_node_gib", KT_GIB_TO_MIB, OFF(m.mem_per_node_mib),
			     0, 1 << 30, true, 0 },
	[K_FLUSH_ENGINE] = { "machine", "flush_engine", KT_ENGINE, OFF(m.engine), 0, 0, false, 0 },
	MACHINE(TLB_ENTRIES, tlb_entries, 1, 1 << 24),
	MACHINE(HZ, hz, 1, 100000),
	[K_CPU_GHZ] = { "machine", "cpu_ghz", KT_DOUBLE, OFF(m.cpu_ghz), 0, 100, true, 0 },
	[K_MEM_BW] = { "machine", "mem_bw_gbs", KT_DOUBLE, OFF(m.mem_bw_gbs), 0, 1e6, false, 0 },
	[K_LINK_BW] = { "machine", "link_bw_gbs", KT_DOUBLE, OFF(m.link_bw_gbs), 0, 1e6, false, 0 },
	/* CPU-less memory nodes (machine.h): the socket each hangs off, e.g.
	 * 0,1 for one per socket; one latency, bandwidth and size for all */
	[K_MEMORY_NODES] = { "machine", "memory_nodes", KT_SOCKET_LIST, OFF(m), 0, 0, false, 0 },
	[K_MEMORY_NODE_GIB] = { "machine", "memory_node_gib", KT_GIB_TO_MIB, OFF(m.memory_node_mib),
				0, 1 << 30, true, 0 },
	[K_MEMORY_NODE_LAT] = { "machine", "memory_node_latency_ns", KT_DOUBLE,
				OFF(m.memory_node_latency_ns), 1, 1e6, false, 0 },
	[K_MEMORY_NODE_BW] = { "machine", "memory_node_bw_gbs", KT_DOUBLE, OFF(m.memory_node_bw_gbs),
			       0, 1e6, false, 0 },
	[K_REPEAT_TLBI] = { "machine", "arm64_repeat_tlbi", KT_BOOL, OFF(m.arm64_repeat_tlbi),
			    0, 0, false, 0 },
	[K_TLBI_RANGE] = { "machine", "arm64_tlbi_range", KT_BOOL, OFF(m.arm64_tlbi_range),
			   0, 0, false, 0 },
	[K_DIST_SAME] = { "machine", "distance_same_socket", KT_INT, OFF(distance_same_socket),
			  11, 254, false, 0 },
	[K_DIST_REMOTE] = { "machine", "distance_remote", KT_INT, OFF(distance_remote),
			    11, 254, false, 0 },
	COST_FIELDS(COST_DEF)
	[K_NUMA_BALANCING] = { "tunables", "kernel.numa_balancing", KT_INT, OFF(t.numa_balancing),
			       0, 3, false, 0 },
	[K_SCAN_DELAY] = { "tunables", "numa_balancing.scan_delay_ms", KT_UINT,
			   OFF(t.scan_delay_ms), 0, 1e9, false, 0 },
	[K_SCAN_MIN] = { "tunables", "numa_balancing.scan_period_min_ms", KT_UINT,
			 OFF(t.scan_period_min_ms), 1, 1e9, false, 0 },
	[K_SCAN_MAX] = { "tunables", "numa_balancing.scan_period_max_ms", KT_UINT,
			 OFF(t.scan_period_max_ms), 1, 1e9, false, 0 },
	[K_SCAN_SIZE] = { "tunables", "numa_balancing.scan_size_mb", KT_UINT,
			  OFF(t.scan_size_mb), 1, 1 << 24, false, 0 },
	/* memory tiering: debugfs numa_balancing/hot_threshold_ms, sysctl
	 * kernel.numa_balancing_promote_rate_limit_MBps and
	 * /sys/kernel/mm/numa/demotion_enabled */
	[K_HOT_THRESHOLD] = { "tunables", "numa_balancing.hot_threshold_ms", KT_UINT,
			      OFF(t.hot_threshold_ms), 1, 1e9, false, 0 },
	[K_PROMOTE_RATE] = { "tunables", "kernel.numa_balancing_promote_rate_limit_MBps", KT_UINT,
			     OFF(t.promote_rate_limit_mbps), 0, 1e9, false, 0 },
	[K_DEMOTION_ENABLED] = { "tunables", "numa.demotion_enabled", KT_BOOL,
				 OFF(t.demotion_enabled), 0, 0, false, 0 },
	[K_FLUSH_CEILING] = { "tunables", "x86.tlb_single_page_flush_ceiling", KT_INT,
			      OFF(m.tlb_single_page_flush_ceiling), 0, 1 << 30, false, 0 },
	/* /sys/kernel/mm/transparent_hugepage/ by their file names */
	[K_THP_ENABLED] = { "tunables", "transparent_hugepage.enabled", KT_THP_ENABLED,
			    OFF(t.thp.enabled), 0, 0, false, 0 },
	[K_THP_DEFRAG] = { "tunables", "transparent_hugepage.defrag", KT_THP_DEFRAG,
			   OFF(t.thp.defrag), 0, 0, false, 0 },
	THP_SIZE(16K, 16, 2), THP_SIZE(32K, 32, 3), THP_SIZE(64K, 64, 4), THP_SIZE(128K, 128, 5),
	THP_SIZE(256K, 256, 6), THP_SIZE(512K, 512, 7), THP_SIZE(1M, 1024, 8), THP_SIZE(2M, 2048, 9),
	[K_PROCESSES] = { "workload", "processes", KT_INT, OFF(w.processes), 1, MAX_PROCESSES, false, 0 },
	[K_THREADS] = { "workload", "threads", KT_INT, OFF(w.threads), 1, 4096, false, 0 },
	[K_MEMORY] = { "workload", "memory_gib", KT_DOUBLE, OFF(w.memory_gib), 0, 1 << 30, true, 0 },
	FRACTION(PRIVATE_FRACTION, private_fraction),
	FRACTION(PRIVATE_SHARE, private_access_share),
	FRACTION(HOT_FRACTION, hot_fraction),
	FRACTION(HOT_SHARE, hot_access_share),
	[K_CPU_NS] = { "workload", "cpu_ns_per_op", KT_DOUBLE, OFF(w.cpu_ns_per_op), 1e-3, 1e12, false, 0 },
	[K_SHARED_FT] = { "workload", "shared_first_touch", KT_FIRST_TOUCH,
			  OFF(w.shared_first_touch), 0, 0, false, 0 },
	[K_PRIVATE_FT] = { "workload", "private_first_touch", KT_FIRST_TOUCH,
			   OFF(w.private_first_touch), 0, 0, false, 0 },
	[K_MAP_SHARED] = { "workload", "map_shared", KT_BOOL, OFF(w.map_shared), 0, 0, false, 0 },
	[K_MAIN_WORKS] = { "workload", "main_thread_works", KT_BOOL, OFF(w.main_thread_works), 0, 0, false, 0 },
	[K_SPREAD_SHARED] = { "workload", "spread_shared", KT_BOOL, OFF(w.spread_shared), 0, 0, false, 0 },
	[K_VMA_MIB] = { "workload", "vma_mib", KT_UINT, OFF(w.vma_mib), 0, 1 << 30, false, 0 },
	[K_BIND] = { "workload", "bind", KT_BIND, OFF(w.bind), 0, 0, false, 0 },
	[K_RUN_MS] = { "workload", "run_ms", KT_DOUBLE, OFF(w.run_ms), 0, 1e9, false, UNIT_MS },
	[K_SLEEP_MS] = { "workload", "sleep_ms", KT_DOUBLE, OFF(w.sleep_ms), 0, 1e9, false, UNIT_MS },
	[K_ACCESS] = { "workload", "access", KT_ACCESS, OFF(w.access), 0, 0, false, 0 },
	[K_ACCESS_SHAPE] = { "workload", "access_shape", KT_DOUBLE, OFF(w.access_shape), 0, 1e12, false, 0 },
	[K_ACCESS_SET] = { "workload", "access_set", KT_DOUBLE, OFF(w.access_set), 0, 1, true, 0 },
	[K_WORK] = { "workload", "work_mops", KT_DOUBLE, OFF(w.work_mops), 0, 1e12, false, 0 },
	[K_BYTES_PER_OP] = { "workload", "bytes_per_op", KT_DOUBLE, OFF(w.bytes_per_op), 1, 1 << 21, false, 0 },
	[K_POLICY_IN_FORCE] = { "workload", "policy_in_force", KT_BOOL, OFF(w.policy_in_force), 0, 0, false, 0 },
	[K_NB_BIND] = { "workload", "numa_balancing_bind", KT_BOOL, OFF(w.numa_balancing_bind), 0, 0, false, 0 },
	[K_EAT_NODE] = { "workload", "eat_node", KT_INT, OFF(w.eat_node), -1, 63, false, 0 },
	[K_EAT_GIB] = { "workload", "eat_gib", KT_DOUBLE, OFF(w.eat_gib), 0, 1 << 30, false, 0 },
	[K_MCALL] = { "workload", "migrate_call", KT_MCALL, OFF(w.migrate_call), 0, 0, false, 0 },
	[K_MPROC] = { "workload", "migrate_process", KT_INT, OFF(w.migrate_process), 0, 4095, false, 0 },
	[K_MFROM] = { "workload", "migrate_from", KT_INT, OFF(w.migrate_from), 0, 63, false, 0 },
	[K_MTO] = { "workload", "migrate_to", KT_INT, OFF(w.migrate_to), 0, 63, false, 0 },
	[K_MAT] = { "workload", "migrate_at_s", KT_DOUBLE, OFF(w.migrate_at_s), 0, 1e9, false, UNIT_S },
	[K_MEVERY] = { "workload", "migrate_every_s", KT_DOUBLE, OFF(w.migrate_every_s), 0, 1e9, false, UNIT_S },
	[K_MBACK] = { "workload", "migrate_back_and_forth", KT_BOOL, OFF(w.migrate_back_and_forth), 0, 0, false, 0 },
	[K_PHASE_EVERY] = { "workload", "phase_every_s", KT_DOUBLE, OFF(w.phase_every_s), 0, 1e9, false, UNIT_S },
	[K_PHASE_SHIFT] = { "workload", "phase_shift", KT_INT, OFF(w.phase_shift), 0, MAX_PROCESSES, false, 0 },
	[K_MADV_COLD_EVERY] = { "workload", "madvise_cold_every_ms", KT_DOUBLE,
				OFF(w.madvise_cold_every_ms), 0, 1e9, false, UNIT_MS },
	[K_MADV_COLD_KIB] = { "workload", "madvise_cold_kib", KT_UINT, OFF(w.madvise_cold_kib), 4,
			      1u << 30, false, 0 },
	[K_MADV_DONTNEED_EVERY] = { "workload", "madvise_dontneed_every_ms", KT_DOUBLE,
				    OFF(w.madvise_dontneed_every_ms), 0, 1e9, false, UNIT_MS },
	[K_MADV_DONTNEED_KIB] = { "workload", "madvise_dontneed_kib", KT_UINT,
				  OFF(w.madvise_dontneed_kib), 4, 1u << 30, false, 0 },
	[K_MADV_HUGEPAGE] = { "workload", "madv_hugepage", KT_MADV, OFF(w.madv_hugepage), 0, 0, false, 0 },
	FRACTION(THP_PARTIAL, thp_partial),
	[K_THP_PARTIAL_OP] = { "workload", "thp_partial_op", KT_PARTIAL_OP, OFF(w.thp_partial_op),
			       0, 0, false, 0 },
	[K_THP_PARTIAL_PATTERN] = { "workload", "thp_partial_pattern", KT_PARTIAL_PATTERN,
				    OFF(w.thp_partial_pattern), 0, 0, false, 0 },
	[K_KERNEL] = { "kernel", "name", KT_KERNEL, OFF(kernel), 0, 0, false, 0 },
	/* 1 ms to a day: below, nothing happens (not even a tick at the
	 * default hz); above, the per-second series alone grow past what a
	 * run can use (1e9 s reserved 37 GiB) */
	[K_DURATION] = { "run", "duration_s", KT_DOUBLE, OFF(duration_s), MIN_DURATION_S, MAX_DURATION_S, false, UNIT_S },
	[K_SEED] = { "run", "seed", KT_SEED, OFF(seed), 0, 0, false, 0 },
	/* echo 1 > /proc/sys/vm/compact_memory this often (0: never) */
	[K_COMPACT_EVERY] = { "run", "compact_memory_every_s", KT_DOUBLE, OFF(compact_every_s),
			      0, 1e9, false, UNIT_S },
	/* every hint fault one by one (--exact), or a private slice's quiet
	 * faults aggregated (docs/model.md 3.3a) */
	[K_EXACT] = { "run", "exact", KT_BOOL, OFF(exact), 0, 0, false, 0 },
};

static const char *const sections[] = { "machine", "costs", "tunables", "workload", "kernel", "run" };

static bool is_tunable(int k)
{
	return !strcmp(keys[k].section, "tunables");
}

/* The key as a user writes it: tunables by their kernel name, the rest as
 * SECTION.KEY. */
static const char *key_display(int k, char *buf, size_t len)
{
	if (is_tunable(k))
		return keys[k].name;
	snprintf(buf, len, "%s.%s", keys[k].section, keys[k].name);
	return buf;
}

/* The key closest to the unknown @key, as a user writes it, into @buf:
 * false when none is close.  A tunable is offered by its own name and as
 * tunables.NAME, the rest as SECTION.KEY. */
static bool key_suggest(const char *key, char *buf, size_t len)
{
	static char shown[NR_KEYS][160];
	struct suggest sg;
	suggest_init(&sg, key);
	for (int k = 0; k < NR_KEYS; k++) {
		snprintf(shown[k], sizeof(shown[k]), "%s.%s", keys[k].section, keys[k].name);
		suggest_offer(&sg, is_tunable(k) ? keys[k].name : shown[k]);
	}
	const char *near = suggest_result(&sg);
	if (!near)
		return false;
	snprintf(buf, len, "%s", near);
	return true;
}

static int key_in_section(const char *section, const char *name)
{
	for (int k = 0; k < NR_KEYS; k++)
		if (!strcmp(keys[k].section, section) && !strcmp(keys[k].name, name))
			return k;
	return -1;
}

/* "--set" keys: a tunable's own name, or SECTION.KEY (which also accepts
 * tunables.kernel.numa_balancing). */
static int key_dotted(const char *key)
{
	for (int k = 0; k < NR_KEYS; k++) {
		size_t n = strlen(keys[k].section);
		if (!strncmp(key, keys[k].section, n) && key[n] == '.' &&
		    !strcmp(key + n + 1, keys[k].name))
			return k;
		if (is_tunable(k) && !strcmp(key, keys[k].name))
			return k;
	}
	return -1;
}

static void *field(struct scenario *sc, int k)
{
	return (char *)sc + keys[k].off;
}

/* ---- value parsing ------------------------------------------------------ */

static int parse_ll(const char *v, long long *out)
{
	return strnum_ll(v, out);
}

static int parse_double(const char *v, double *out)
{
	return strnum_double(v, out);
}

static int check_range(int k, double x, const char *v, char *why, size_t len)
{
	const struct key_def *d = &keys[k];
	bool low = d->min_open ? x <= d->min : x < d->min;
	if (!low && x <= d->max)
		return 0;
	snprintf(why, len, "%s is out of range (allowed: %s %g and at most %g)", v,
		 d->min_open ? "more than" : "at least", d->min, d->max);
	return -1;
}

/* A time key's resolution: the model's clock counts whole nanoseconds, and
 * every user of such a key converts it with time_ns() (sim/engine.h).  A
 * value that rounds to 0 ns would silently mean "off" (a period, a phase)
 * or re-arm a timer at the instant it fired (a hang): only 0 itself may
 * say off. */
static int check_resolution(int k, double x, const char *v, char *why, size_t len)
{
	double unit = keys[k].unit_ns;
	if (!unit || x == 0 || time_ns(x, unit) >= 1)
		return 0;
	snprintf(why, len, "%s is below the model's resolution of 1 ns (%g ns): a time is 0 "
		 "(off, or at the start) or at least 1 ns", v, x * unit);
	return -1;
}

static int parse_name(const char *v, const char *const *names, int n, int *out,
		      char *why, size_t len)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(v, names[i])) {
			*out = i;
			return 0;
		}
	size_t o = (size_t)snprintf(why, len, "'%s' is not one of:", v);
	for (int i = 0; i < n && o < len; i++)
		o += (size_t)snprintf(why + o, len - o, "%s %s", i ? "," : "", names[i]);
	return -1;
}

static int parse_bool(const char *v, bool *out, char *why, size_t len)
{
	static const char *const yes[] = { "true", "yes", "1" }, *const no[] = { "false", "no", "0" };
	for (size_t i = 0; i < ARRAY_SIZE(yes); i++) {
		if (!strcasecmp(v, yes[i]) || !strcasecmp(v, no[i])) {
			*out = !strcasecmp(v, yes[i]);
			return 0;
		}
	}
	snprintf(why, len, "'%s' is not a boolean (true, false, yes, no, 1, 0)", v);
	return -1;
}

static int assign_number(struct scenario *sc, int k, const char *v, char *why, size_t len)
{
	long long i;
	double d;
	switch (keys[k].type) {
	case KT_INT:
	case KT_UINT:
		if (parse_ll(v, &i)) {
			snprintf(why, len, "'%s' is not an integer (decimal digits)", v);
			return -1;
		}
		if (check_range(k, (double)i, v, why, len))
			return -1;
		if (keys[k].type == KT_INT)
			*(int *)field(sc, k) = (int)i;
		else
			*(unsigned *)field(sc, k) = (unsigned)i;
		return 0;
	default:
		if (parse_double(v, &d)) {
			snprintf(why, len, "'%s' is not a decimal number", v);
			return -1;
		}
		if (check_range(k, d, v, why, len) || check_resolution(k, d, v, why, len))
			return -1;
		if (keys[k].type == KT_DOUBLE) {
			*(double *)field(sc, k) = d;
			return 0;
		}
		if (d * 1024 < 1) {
			snprintf(why, len, "%g GiB is less than 1 MiB", d);
			return -1;
		}
		*(uint64_t *)field(sc, k) = (uint64_t)(d * 1024 + 0.5);
		return 0;
	}
}

static int assign_seed(struct scenario *sc, int k, const char *v, char *why, size_t len)
{
	unsigned long long x;
	if (strnum_ull(v, (unsigned long long)INT64_MAX, &x)) {
		snprintf(why, len, "'%s' is not an integer from 0 to %lld", v, (long long)INT64_MAX);
		return -1;
	}
	*(uint64_t *)field(sc, k) = x;
	return 0;
}

static int assign_kernel(struct scenario *sc, int k, const char *v, char *why, size_t len)
{
	struct kernel_config cfg;
	if (kernel_config_parse(v, &cfg, why, len))
		return -1;
	snprintf((char *)field(sc, k), sizeof(sc->kernel), "%s", cfg.name);
	return 0;
}

/* An enum key stored as an int, by its names. */
static int assign_enum(struct scenario *sc, int k, const char *v, const char *const *names, int n,
		       char *why, size_t len)
{
	int e;
	if (parse_name(v, names, n, &e, why, len))
		return -1;
	*(int *)field(sc, k) = e;
	return 0;
}

/* A transparent_hugepage.hugepages-<N>kB.enabled key of no size the kernel
 * has: say why (the size, or the page-table level), else -1. */
static int thp_size_key_error(const char *name, char *why, size_t len)
{
	static const char prefix[] = "transparent_hugepage.hugepages-";
	const char *size = name + sizeof(prefix) - 1;
	char *end;
	/* digits only: strtoul alone would take "+64", " 64" and "-64" */
	if (strncmp(name, prefix, sizeof(prefix) - 1) || !isdigit((unsigned char)*size))
		return -1;
	errno = 0;
	unsigned long kb = strtoul(size, &end, 10);
	if (errno || strcmp(end, "kB.enabled"))
		return -1;
	if (kb < 4 || kb % 4 || ((kb / 4) & (kb / 4 - 1)))
		snprintf(why, len, "%lu kB is not a power-of-two number of 4 kB pages: no folio has that size",
			 kb);
	else if (kb == 4)
		snprintf(why, len, "4 kB is the base page, not a huge page size (sizes: 16 kB .. 2048 kB)");
	else if (kb == 8)
		snprintf(why, len, "8 kB (order 1) is never used for anonymous memory: sizes start at 16 kB");
	else
		snprintf(why, len, "%lu kB is larger than a PMD (2048 kB): an anonymous THP is mapped by "
			 "PTEs or by one PMD, and no page-table level above maps anonymous THPs", kb);
	return 0;
}

/* A decimal number at *@p, digits only (no sign, no space: strtol would
 * take "+1" and " 1"), at most @max; advances *@p. */
static bool node_number(const char **p, long max, long *out)
{
	long n = 0;
	const char *q = *p;
	if (!isdigit((unsigned char)*q))
		return false;
	for (; isdigit((unsigned char)*q); q++) {
		n = n * 10 + (*q - '0');
		if (n > max)
			return false;
	}
	*p = q;
	*out = n;
	return true;
}

/* A node list "0,2-3" into a mask; with @weights, "0=3,1=1" (weights
 * 1..255). The grammar is strict, for every policy key alike: decimal
 * nodes below 64 and ranges LOW-HIGH, comma-separated, no spaces, signs
 * or empty items, and no node given twice (a list that names a node twice
 * or overlaps two ranges is a typo, and for weights ambiguous). */
static int parse_nodes(const char *v, uint64_t *mask, uint8_t *weights, char *why, size_t len)
{
	const char *p = v;
	const char *form = weights ? "NODE=WEIGHT,..., nodes 0 to 63, weights 1 to 255"
				   : "e.g. 0,2-3: nodes 0 to 63";
	*mask = 0;
	while (*p) {
		long a, b, w = 1;
		if (!node_number(&p, 63, &a))
			goto bad;
		b = a;
		if (!weights && *p == '-' && (++p, !node_number(&p, 63, &b) || b < a))
			goto bad;
		if (weights && (*p != '=' || (++p, !node_number(&p, 255, &w)) || w < 1))
			goto bad;
		uint64_t span = (b == 63 ? ~0ull : (1ull << (b + 1)) - 1) & ~((1ull << a) - 1);
		if (*mask & span) {
			snprintf(why, len, "'%s' names node %d twice", v, __builtin_ctzll(*mask & span));
			return -1;
		}
		*mask |= span;
		if (weights)
			weights[a] = (uint8_t)w;
		if (*p == ',' && p[1])
			p++;
		else if (*p)
			goto bad;
	}
	if (*mask)
		return 0;
bad:
	snprintf(why, len, "'%s' is not a node list (%s)", v, form);
	return -1;
}

/* A first-touch policy: NAME, or NAME:NODES for bind, preferred (one
 * node), interleave, weighted (NODE=WEIGHT,...). */
/* A policy as the scenario file writes it (parse_first_touch's inverse). */
static void first_touch_policy_text(const struct first_touch_policy *pol, char *buf, size_t len)
{
	size_t n = (size_t)snprintf(buf, len, "%s", first_touch_names[pol->mode]);
	char sep = ':';
	for (int node = 0; node < 64 && n < len; node++) {
		if (!((pol->nodes >> node) & 1))
			continue;
		if (pol->mode == FT_WEIGHTED)
			n += (size_t)snprintf(buf + n, len - n, "%c%d=%u", sep, node, pol->weight[node]);
		else
			n += (size_t)snprintf(buf + n, len - n, "%c%d", sep, node);
		sep = ',';
	}
}

static int parse_first_touch(const char *v, struct first_touch_policy *pol, char *why,
			     size_t len)
{
	char name[32];
	const char *colon = strchr(v, ':');
	size_t n = colon ? (size_t)(colon - v) : strlen(v);
	int e;
	if (n >= sizeof(name)) {
		snprintf(why, len, "'%s' is not a first-touch policy", v);
		return -1;
	}
	memcpy(name, v, n);
	name[n] = 0;
	if (parse_name(name, first_touch_names, NR_FIRST_TOUCH, &e, why, len))
		return -1;
	struct first_touch_policy p = { .mode = (enum first_touch)e };
	bool takes = e == FT_BIND || e == FT_PREFERRED || e == FT_INTERLEAVE || e == FT_WEIGHTED;
	bool needs = e == FT_BIND || e == FT_PREFERRED || e == FT_WEIGHTED;
	if (colon && !takes) {
		snprintf(why, len, "'%s' takes no node list", name);
		return -1;
	}
	if (!colon && needs) {
		snprintf(why, len, "'%s' needs nodes: %s:NODES", name, name);
		return -1;
	}
	if (colon && parse_nodes(colon + 1, &p.nodes, e == FT_WEIGHTED ? p.weight : NULL, why, len))
		return -1;
	if (e == FT_PREFERRED && __builtin_popcountll(p.nodes) != 1) {
		snprintf(why, len, "preferred takes one node");
		return -1;
	}
	*pol = p;
	return 0;
}

/* machine.memory_nodes: the sockets of the CPU-less nodes, one number per
 * node ("0,1"; "0,0" two on socket 0); empty for none.  machine_finish
 * checks each names a socket of the machine. */
static int parse_socket_list(const char *v, struct machine *m, char *why, size_t len)
{
	const char *p = v;
	int n = 0;
	while (*p) {
		long sock;
		if (n == MAX_NUMNODES || !node_number(&p, 127, &sock) || (*p && *p != ','))
			goto bad;
		m->memory_node_socket[n++] = (int8_t)sock;
		if (*p == ',' && !*++p)
			goto bad;
	}
	m->nr_memory_nodes = n;
	return 0;
bad:
	snprintf(why, len, "'%s' is not a list of sockets (e.g. 0,1: one CPU-less node on each of "
		 "sockets 0 and 1; at most %d nodes, sockets below 128)", v, MAX_NUMNODES);
	return -1;
}

/* machine.memory_nodes as the file writes it. */
static void socket_list_text(const struct machine *m, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = 0;
	for (int i = 0; i < m->nr_memory_nodes && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%d", i ? "," : "", m->memory_node_socket[i]);
}

/* Parse @v into key @k.  On error, @why says what is wrong (no prefix). */
static int assign(struct scenario *sc, int k, const char *v, char *why, size_t len)
{
	int e;
	switch (keys[k].type) {
	case KT_SEED:
		return assign_seed(sc, k, v, why, len);
	case KT_BOOL:
		return parse_bool(v, (bool *)field(sc, k), why, len);
	case KT_ENGINE:
		if (parse_name(v, flush_engine_names, NR_FLUSH_ENGINES, &e, why, len))
			return -1;
		*(enum flush_engine *)field(sc, k) = (enum flush_engine)e;
		return 0;
	case KT_FIRST_TOUCH:
		return parse_first_touch(v, (struct first_touch_policy *)field(sc, k), why, len);
	case KT_SOCKET_LIST:
		return parse_socket_list(v, &sc->m, why, len);
	case KT_BIND:
		if (parse_name(v, thread_bind_names, NR_THREAD_BIND, &e, why, len))
			return -1;
		*(enum thread_bind *)field(sc, k) = (enum thread_bind)e;
		return 0;
	case KT_ACCESS:
		if (parse_name(v, access_pattern_names, NR_ACCESS_PATTERNS, &e, why, len))
			return -1;
		*(int *)field(sc, k) = e;
		return 0;
	case KT_MCALL:
		if (parse_name(v, migrate_syscall_names, NR_MCALLS, &e, why, len))
			return -1;
		*(int *)field(sc, k) = e;
		return 0;
	case KT_KERNEL:
		return assign_kernel(sc, k, v, why, len);
	case KT_THP_ENABLED:
		return assign_enum(sc, k, v, thp_enabled_names, NR_THP_ENABLED, why, len);
	case KT_THP_DEFRAG:
		return assign_enum(sc, k, v, thp_defrag_names, NR_THP_DEFRAG, why, len);
	case KT_THP_SIZE:
		return assign_enum(sc, k, v, thp_size_enabled_names, NR_THP_SIZE_ENABLED, why, len);
	case KT_MADV:
		return assign_enum(sc, k, v, madv_hugepage_names, NR_MADV_HP, why, len);
	case KT_PARTIAL_OP:
		return assign_enum(sc, k, v, thp_partial_op_names, NR_THP_PARTIAL_OP, why, len);
	case KT_PARTIAL_PATTERN:
		return assign_enum(sc, k, v, thp_partial_pattern_names, NR_THP_PATTERN, why, len);
	default:
		return assign_number(sc, k, v, why, len);
	}
}

static void set_origin(struct scenario *sc, int k, int line, const char *option)
{
	sc->origin[k].line = line;
	sc->origin[k].option = option;
	sc->origin[k].seq = ++sc->seq;
}

/* ---- defaults ----------------------------------------------------------- */

static void scenario_defaults(struct scenario *sc, const char *name, const char *source)
{
	memset(sc, 0, sizeof(*sc));
	snprintf(sc->name, sizeof(sc->name), "%s", name);
	snprintf(sc->source, sizeof(sc->source), "%s", source);
	machine_defaults(&sc->m);
	workload_defaults(&sc->w);
	/* the kernel's defaults (kernel/sched/fair.c, sysctl) */
	sc->t.numa_balancing = 1;
	sc->t.scan_delay_ms = 1000;
	sc->t.scan_period_min_ms = 1000;
	sc->t.scan_period_max_ms = 60000;
	sc->t.scan_size_mb = 256;
	sc->t.hot_threshold_ms = 1000;           /* MSEC_PER_SEC (v5.19) */
	sc->t.promote_rate_limit_mbps = 65536;   /* 64 GiB/s (v5.19) */
	sc->t.demotion_enabled = false;          /* numa_demotion_enabled's default */
	thp_tunables_defaults(&sc->t.thp);
	snprintf(sc->kernel, sizeof(sc->kernel), "v7.3");
	sc->seed = 1;
	sc->duration_s = 180;
	sc->distance_same_socket = 12;
	sc->distance_remote = 21;
}

/* ---- INI parsing -------------------------------------------------------- */

struct parser {
	struct scenario *sc;
	const char *text;
	size_t pos;
	int line;             /* line most recently handed to inih */
	bool section_bad;     /* in an unknown section, already reported */
	bool seen[ARRAY_SIZE(sections)]; /* the file's sections */
	char *err;
	size_t errlen;
	int err_line;         /* 0: no error yet */
};

/* Keep the first error only: later ones are often its consequences. */
static void perr(struct parser *p, const char *key, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	ini_verror(p->err, p->errlen, &p->err_line, p->sc->source, p->line, key, fmt, ap);
	va_end(ap);
}

static void check_section_header(struct parser *p, const char *line)
{
	char name[128];
	const char *rest;
	/* not a header, or a malformed one that inih reports */
	int kind = ini_section_header(line, name, sizeof(name), &rest);
	if (!kind)
		return;
	/* after the ']' only blanks or a comment: '[workload] junk' is no header */
	if (kind < 0) {
		p->section_bad = true;
		perr(p, name, "unexpected text after the section header: '%.*s'",
		     (int)strcspn(rest, "\r\n") < 40 ? (int)strcspn(rest, "\r\n") : 40, rest);
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(sections); i++)
		if (!strcmp(name, sections[i])) {
			p->section_bad = false;
			p->seen[i] = true;
			return;
		}
	p->section_bad = true;
	perr(p, name, "unknown section (known: machine, costs, tunables, workload, kernel, run)");
}

/* inih's reader (lib/iniline.h), with the section check on every line. */
static char *reader(char *str, int num, void *stream)
{
	struct parser *p = stream;
	bool too_long;
	if (!ini_next_line(p->text, &p->pos, &p->line, str, num, &too_long))
		return NULL;
	if (too_long)
		perr(p, NULL, "line longer than %d characters", num - 2);
	check_section_header(p, str);
	return str;
}

/* The keys of @section, whole names only: those that do not fit in @buf
 * are counted ("and 12 more"), never cut in the middle of a word. */
static void list_section_keys(const char *section, char *buf, size_t len)
{
	size_t o = 0;
	int more = 0;
	buf[0] = '\0';
	for (int k = 0; k < NR_KEYS; k++) {
		if (strcmp(keys[k].section, section))
			continue;
		size_t need = strlen(keys[k].name) + (o ? 2 : 0);
		if (more || o + need + sizeof(", and 999 more") >= len) {
			more++;
			continue;
		}
		o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? ", " : "", keys[k].name);
	}
	if (more)
		snprintf(buf + o, len - o, ", and %d more", more);
}

/* The key of @section closest to the unknown @name, or NULL. */
static const char *section_key_suggest(const char *section, const char *name)
{
	struct suggest sg;
	suggest_init(&sg, name);
	for (int k = 0; k < NR_KEYS; k++)
		if (!strcmp(keys[k].section, section))
			suggest_offer(&sg, keys[k].name);
	return suggest_result(&sg);
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
	struct parser *p = user;
	char why[512], shown[160], known[600];
	if (p->section_bad)
		return 1; /* reported at the section header */
	if (!*section) {
		/* a scenario's key: say where it goes. Anything else before the
		 * first [section] is a file that is no scenario (/etc/shadow's
		 * "root:..."): its text is not repeated. */
		for (int k = 0; k < NR_KEYS; k++)
			if (!strcmp(keys[k].name, name)) {
				perr(p, name, "key outside any section (put it under [%s])",
				     keys[k].section);
				return 0;
			}
		perr(p, NULL, "not a scenario file: a line before any [section] that is not a "
		     "scenario's key (its text is not shown)");
		return 0;
	}
	int k = key_in_section(section, name);
	if (k < 0 && !strcmp(section, "tunables") && !thp_size_key_error(name, why, sizeof(why))) {
		perr(p, name, "%s", why);
		return 0;
	}
	if (k < 0) {
		snprintf(shown, sizeof(shown), "%s.%s", section, name);
		const char *near = section_key_suggest(section, name);
		if (near) {
			perr(p, !strcmp(section, "tunables") ? name : shown, "unknown key; did you mean "
			     "'%s'? (every key: 'numasim show seed')", near);
			return 0;
		}
		list_section_keys(section, known, sizeof(known));
		perr(p, !strcmp(section, "tunables") ? name : shown, "unknown key (known in [%s]: %s; "
		     "'numasim show seed' shows them)", section, known);
		return 0;
	}
	if (p->sc->origin[k].line > 0) {
		perr(p, key_display(k, shown, sizeof(shown)), "set twice (first at line %d): a "
		     "scenario gives each key once", p->sc->origin[k].line);
		return 0;
	}
	if (assign(p->sc, k, value, why, sizeof(why))) {
		perr(p, key_display(k, shown, sizeof(shown)), "%s", why);
		return 0;
	}
	set_origin(p->sc, k, p->line, NULL);
	return 1;
}

static int load_text(struct scenario *sc, const char *text, char *err, size_t errlen)
{
	struct parser p = { .sc = sc, .text = text, .err = err, .errlen = errlen };
	int rc = ini_parse_stream(reader, &p, handler, &p);
	if (rc == -2) {
		snprintf(err, errlen, "%s: out of memory", sc->source);
		return -1;
	}
	/* rc > 0 is inih's first bad line: ours, or a line inih could not parse */
	if (rc > 0 && (!p.err_line || rc < p.err_line)) {
		snprintf(err, errlen, "%s:%d: expected '[section]' or 'key = value'", sc->source, rc);
		return -1;
	}
	if (p.err_line)
		return -1;
	/* an empty or comment-only file would silently be the 384-CPU default */
	static const char *const needed[] = { "machine", "workload" };
	for (size_t n = 0; n < ARRAY_SIZE(needed); n++)
		for (size_t i = 0; i < ARRAY_SIZE(sections); i++)
			if (!strcmp(sections[i], needed[n]) && !p.seen[i]) {
				snprintf(err, errlen, "%s: no [%s] section: a scenario file names its "
					 "machine and its workload (an empty section takes the defaults; "
					 "'numasim show small' prints a complete file)", sc->source,
					 needed[n]);
				return -1;
			}
	return 0;
}

int scenario_load_builtin(const char *name, struct scenario *sc, char *err, size_t errlen)
{
	const char *text = scenario_builtin_text(name);
	char source[96];
	if (!text) {
		struct suggest sg;
		suggest_init(&sg, name);
		for (const char *const *n = scenario_builtin_names(); *n; n++)
			suggest_offer(&sg, *n);
		const char *near = suggest_result(&sg);
		snprintf(err, errlen,
			 "%s: no such scenario file or built-in scenario%s%s%s (see 'numasim scenarios')",
			 name, near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
		return -1;
	}
	snprintf(source, sizeof(source), "builtin:%s", name);
	scenario_defaults(sc, name, source);
	return load_text(sc, text, err, errlen);
}

/* A scenario file is short text: no NUL (which would end it early, the
 * error then naming the wrong key) and no control characters but tabs and
 * line ends. */
#define MAX_SCENARIO_BYTES (1u << 20)

static int check_text(const char *path, const char *text, size_t len, char *err, size_t errlen)
{
	int line = 1;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];
		if (c == '\n')
			line++;
		else if (!c || (c < 0x20 && c != '\t' && c != '\r') || c == 0x7f) {
			snprintf(err, errlen, "%s:%d: %s byte 0x%02x: a scenario file is text", path, line,
				 c ? "a control" : "a NUL", c);
			return -1;
		}
	}
	return 0;
}

int scenario_load_file(const char *path, struct scenario *sc, char *err, size_t errlen)
{
	char *text;
	size_t len;
	if (read_input_file(path, MAX_SCENARIO_BYTES, &text, &len, err, errlen))
		return -1;
	int rc = scenario_load_text(path, text, len, sc, err, errlen);
	free(text);
	return rc;
}

int scenario_load_text(const char *path, const char *text, size_t len, struct scenario *sc,
		       char *err, size_t errlen)
{
	if (len > MAX_SCENARIO_BYTES) {
		snprintf(err, errlen, "%s: more than the %u bytes a scenario file can have", path,
			 MAX_SCENARIO_BYTES);
		return -1;
	}
	if (check_text(path, text, len, err, errlen))
		return -1;
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t n = strlen(base);
	if (n > 4 && !strcmp(base + n - 4, ".ini"))
		n -= 4;
	char name[64];
	snprintf(name, sizeof(name), "%.*s", (int)(n < sizeof(name) ? n : sizeof(name) - 1), base);
	/* the name goes into reports, traces and plots: keep it plain */
	for (char *c = name; *c; c++)
		if (!(*c >= 'a' && *c <= 'z') && !(*c >= 'A' && *c <= 'Z') && !(*c >= '0' && *c <= '9') &&
		    !strchr("._+-", *c))
			*c = '_';
	scenario_defaults(sc, name, path);
	return load_text(sc, text, err, errlen);
}

/* ---- command-line overrides --------------------------------------------- */

int scenario_set_option(struct scenario *sc, const char *option, const char *key,
			const char *value, char *err, size_t errlen)
{
	char why[512], shown[160];
	int k = key_dotted(key);
	const char *bare = !strncmp(key, "tunables.", 9) ? key + 9 : key;
	if (k < 0 && !thp_size_key_error(bare, why, sizeof(why))) {
		snprintf(err, errlen, "%s: %s: %s", option, key, why);
		return -1;
	}
	if (k < 0) {
		char near[160];
		if (key_suggest(bare, near, sizeof(near))) {
			snprintf(err, errlen, "%s: %s: unknown key; did you mean '%s'?", option, key, near);
			return -1;
		}
		snprintf(err, errlen,
			 "%s: %s: unknown key (a tunable's name such as kernel.numa_balancing, "
			 "or SECTION.KEY such as workload.threads; see 'numasim show seed')",
			 option, key);
		return -1;
	}
	if (assign(sc, k, value, why, sizeof(why))) {
		snprintf(err, errlen, "%s: %s: %s", option, key_display(k, shown, sizeof(shown)), why);
		return -1;
	}
	struct scenario_override *o = &sc->overrides[sc->nr_overrides];
	if (sc->nr_overrides == SCENARIO_MAX_OVERRIDES || strlen(value) >= sizeof(o->value)) {
		snprintf(err, errlen, "%s: %s: %s", option, key_display(k, shown, sizeof(shown)),
			 sc->nr_overrides == SCENARIO_MAX_OVERRIDES
				 ? "more than " STR(SCENARIO_MAX_OVERRIDES) " options set scenario keys"
				 : "the value is too long");
		return -1;
	}
	snprintf(o->option, sizeof(o->option), "%s", option);
	snprintf(o->key, sizeof(o->key), "%s", key_display(k, shown, sizeof(shown)));
	snprintf(o->value, sizeof(o->value), "%s", value);
	sc->nr_overrides++;
	set_origin(sc, k, 0, option);
	return 0;
}

static void trim(char *s)
{
	size_t n = strlen(s), i = 0;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
	while (s[i] == ' ' || s[i] == '\t')
		i++;
	memmove(s, s + i, n - i + 1);
}

int scenario_set(struct scenario *sc, const char *assignment, char *err, size_t errlen)
{
	char buf[512];
	const char *eq = strchr(assignment, '=');
	if (!eq || strlen(assignment) >= sizeof(buf)) {
		snprintf(err, errlen, "--set: %.64s: %s", assignment,
			 eq ? "too long" : "expected KEY=VALUE");
		return -1;
	}
	snprintf(buf, sizeof(buf), "%s", assignment);
	buf[eq - assignment] = '\0';
	char *value = buf + (eq - assignment) + 1;
	trim(buf);
	trim(value);
	return scenario_set_option(sc, "--set", buf, value, err, errlen);
}

/* ---- the resolved scenario, key by key ---------------------------------- */

int scenario_nr_keys(void)
{
	return NR_KEYS;
}

void scenario_get(const struct scenario *sc, int k, struct scenario_value *v)
{
	const void *f = (const char *)sc + keys[k].off;
	memset(v, 0, sizeof(*v));
	v->section = keys[k].section;
	v->name = keys[k].name;
	switch (keys[k].type) {
	case KT_INT:
		v->type = SV_INT;
		/* machine.cpus: the topology's count (the key is a cross-check) */
		v->i = k == K_CPUS ? sc->m.nr_cpus : *(const int *)f;
		break;
	case KT_UINT:
		v->type = SV_INT;
		v->i = *(const unsigned *)f;
		break;
	case KT_SEED:
		v->type = SV_INT;
		v->i = (long long)*(const uint64_t *)f;
		break;
	case KT_DOUBLE:
		v->type = SV_DOUBLE;
		v->d = *(const double *)f;
		break;
	case KT_GIB_TO_MIB:
		v->type = SV_DOUBLE;
		v->d = (double)*(const uint64_t *)f / 1024;
		break;
	case KT_BOOL:
		v->type = SV_BOOL;
		v->b = *(const bool *)f;
		break;
	case KT_ENGINE:
		v->type = SV_STRING;
		v->s = flush_engine_names[*(const enum flush_engine *)f];
		break;
	case KT_FIRST_TOUCH:
		v->type = SV_STRING;
		first_touch_policy_text((const struct first_touch_policy *)f, v->buf, sizeof(v->buf));
		v->s = v->buf;
		break;
	case KT_BIND:
		v->type = SV_STRING;
		v->s = thread_bind_names[*(const enum thread_bind *)f];
		break;
	case KT_SOCKET_LIST:
		v->type = SV_STRING;
		socket_list_text(&sc->m, v->buf, sizeof(v->buf));
		v->s = v->buf;
		break;
	case KT_ACCESS:
		v->type = SV_STRING;
		v->s = access_pattern_names[*(const int *)f];
		break;
	case KT_MCALL:
		v->type = SV_STRING;
		v->s = migrate_syscall_names[*(const int *)f];
		break;
	case KT_KERNEL:
		v->type = SV_STRING;
		v->s = (const char *)f;
		break;
	case KT_THP_ENABLED:
		v->type = SV_STRING;
		v->s = thp_enabled_names[*(const int *)f];
		break;
	case KT_THP_DEFRAG:
		v->type = SV_STRING;
		v->s = thp_defrag_names[*(const int *)f];
		break;
	case KT_THP_SIZE:
		v->type = SV_STRING;
		v->s = thp_size_enabled_names[*(const int *)f];
		break;
	case KT_MADV:
		v->type = SV_STRING;
		v->s = madv_hugepage_names[*(const int *)f];
		break;
	case KT_PARTIAL_OP:
		v->type = SV_STRING;
		v->s = thp_partial_op_names[*(const int *)f];
		break;
	case KT_PARTIAL_PATTERN:
		v->type = SV_STRING;
		v->s = thp_partial_pattern_names[*(const int *)f];
		break;
	}
}

/* ---- validation --------------------------------------------------------- */

/* Report an error at key @k, wherever its value came from. */
static int vfail(const struct scenario *sc, int k, char *err, size_t errlen, const char *fmt, ...)
{
	char msg[1024], shown[160];
	const struct scenario_origin *o = &sc->origin[k];
	const char *key = key_display(k, shown, sizeof(shown));
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (o->option)
		snprintf(err, errlen, "%s: %s: %s", o->option, key, msg);
	else if (o->line > 0)
		snprintf(err, errlen, "%s:%d: %s: %s", sc->source, o->line, key, msg);
	else
		snprintf(err, errlen, "%s: %s: %s", sc->source, key, msg);
	return -1;
}

int scenario_key_count(void)
{
	return NR_KEYS;
}

int scenario_key_index(const char *key)
{
	return key_dotted(key);
}

const char *scenario_key_name(int k, char *buf, size_t len)
{
	return key_display(k, buf, len);
}

const char *scenario_key_section(int k)
{
	return keys[k].section;
}

int scenario_key_assigned(const struct scenario *sc, int k)
{
	return sc->origin[k].seq != 0;
}

int scenario_key_error(const struct scenario *sc, int k, char *err, size_t errlen,
		       const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return vfail(sc, k, err, errlen, "%s", msg);
}

/* Where key @k's value came from: "FILE:12" ("line 12" @in_file), "--set",
 * "the default". */
static void origin_text(const struct scenario *sc, int k, bool in_file, char *buf, size_t len)
{
	const struct scenario_origin *o = &sc->origin[k];
	if (o->option)
		snprintf(buf, len, "%s", o->option);
	else if (o->line > 0 && in_file)
		snprintf(buf, len, "line %d", o->line); /* the message starts with FILE: */
	else if (o->line > 0)
		snprintf(buf, len, "%.120s:%d", sc->source, o->line);
	else
		snprintf(buf, len, "the default");
}

/* Of several keys that together are wrong, blame the one assigned last (the
 * user's latest change); if none was assigned, the first. */
static int blame(const struct scenario *sc, const int *ks, int n)
{
	int best = ks[0];
	for (int i = 1; i < n; i++)
		if (sc->origin[ks[i]].seq > sc->origin[best].seq)
			best = ks[i];
	return best;
}

/* vfail for a rule over several keys: blame the one assigned last and say
 * where each of the others got its value, so that a file's line and a
 * --set that together break a rule are both named. */
static int vfail_keys(const struct scenario *sc, const int *ks, int n, char *err, size_t errlen,
		      const char *fmt, ...)
{
	char msg[512], with[400] = "";
	int k = blame(sc, ks, n);
	bool in_file = sc->origin[k].line > 0 && !sc->origin[k].option;
	size_t used = 0;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	for (int i = 0; i < n && used < sizeof(with); i++) {
		char name[160], from[160];
		if (ks[i] == k)
			continue;
		origin_text(sc, ks[i], in_file, from, sizeof(from));
		int w = snprintf(with + used, sizeof(with) - used, "%s%s from %s", used ? ", " : " (",
				 key_display(ks[i], name, sizeof(name)), from);
		used = w < 0 ? sizeof(with) : used + (size_t)w;
	}
	return vfail(sc, k, err, errlen, "%s%s%s", msg, with, used ? ")" : "");
}

static const int topo_keys[] = { K_SOCKETS, K_NODES_PER_SOCKET, K_CORES_PER_NODE, K_THREADS_PER_CORE };

static int check_topology(struct scenario *sc, char *err, size_t errlen)
{
	const struct machine *m = &sc->m;
	const int counts[] = { m->nr_sockets, m->nodes_per_socket, m->cores_per_node,
			       m->threads_per_core };
	for (int i = 0; i < 4; i++)
		if (counts[i] == 0)
			return vfail(sc, topo_keys[i], err, errlen, "0 leaves the machine with no CPUs");
	long long nodes = (long long)m->nr_sockets * m->nodes_per_socket;
	long long cpus = nodes * m->cores_per_node * m->threads_per_core;
	if (nodes > MAX_NUMNODES)
		return vfail_keys(sc, topo_keys, 2, err, errlen,
			     "%lld NUMA nodes but at most %d are supported", nodes, MAX_NUMNODES);
	if (cpus > NR_CPUS_MAX)
		return vfail_keys(sc, topo_keys, 4, err, errlen,
			     "%lld CPUs but at most %d are supported", cpus, NR_CPUS_MAX);
	if (sc->origin[K_CPUS].seq && sc->cpus != cpus) {
		/* blame the key changed last (a --set of cores_per_node, not the
		 * file's cpus line), and say where the other values came from */
		static const int ks[] = { K_CPUS, K_SOCKETS, K_NODES_PER_SOCKET, K_CORES_PER_NODE,
					  K_THREADS_PER_CORE };
		char o[5][160];
		int k = blame(sc, ks, 5);
		for (int i = 0; i < 5; i++)
			origin_text(sc, ks[i], sc->origin[k].line > 0, o[i], sizeof(o[i]));
		if (k == K_CPUS)
			return vfail(sc, K_CPUS, err, errlen, "%d CPUs but the topology gives %lld: "
				     "sockets %d (%s) x nodes_per_socket %d (%s) x cores_per_node %d "
				     "(%s) x threads_per_core %d (%s)", sc->cpus, cpus, m->nr_sockets,
				     o[1], m->nodes_per_socket, o[2], m->cores_per_node, o[3],
				     m->threads_per_core, o[4]);
		return vfail(sc, k, err, errlen, "the topology gives %lld CPUs (sockets x "
			     "nodes_per_socket x cores_per_node x threads_per_core) but machine.cpus "
			     "is %d (%s): change both", cpus, sc->cpus, o[0]);
	}
	for (int i = 0; i < m->nr_memory_nodes; i++)
		if (m->memory_node_socket[i] >= m->nr_sockets) {
			static const int ks[] = { K_MEMORY_NODES, K_SOCKETS };
			return vfail_keys(sc, ks, 2, err, errlen, "a CPU-less node on socket %d, but the "
					  "machine has sockets 0 to %d", m->memory_node_socket[i],
					  m->nr_sockets - 1);
		}
	/* the tick must be a whole number of nanoseconds (tick_ns) */
	if (1000000000 % m->hz)
		return vfail(sc, K_HZ, err, errlen, "%d does not divide 1000000000", m->hz);
	static const int ka[] = { K_FLUSH_ENGINE, K_REPEAT_TLBI, K_TLBI_RANGE };
	if (m->engine != FLUSH_ARM64 && (m->arm64_repeat_tlbi || m->arm64_tlbi_range))
		return vfail_keys(sc, ka, 3, err, errlen, "arm64_repeat_tlbi and arm64_tlbi_range "
				  "describe arm64's TLBI instructions, but flush_engine is %s",
				  flush_engine_names[m->engine]);
	const char *msg = machine_finish(&sc->m);
	if (msg)
		return vfail_keys(sc, topo_keys, 4, err, errlen, "%s", msg);
	return 0;
}

/* SLIT: 10 on the diagonal; node n is on socket n / nodes_per_socket. */
static void fill_distances(struct scenario *sc)
{
	struct machine *m = &sc->m;
	for (int i = 0; i < m->nr_cpu_nodes; i++)
		for (int j = 0; j < m->nr_cpu_nodes; j++) {
			bool same = i / m->nodes_per_socket == j / m->nodes_per_socket;
			m->distance[i][j] = i == j ? 10
				: same ? sc->distance_same_socket : sc->distance_remote;
		}
	machine_memory_node_distances(m);
}

/* Memory tiers: the CPU-less nodes' keys need nodes; tiering tunables need
 * NUMA_BALANCING_MEMORY_TIERING; that mode and demotion need a slow tier. */
static int check_tiers(const struct scenario *sc, char *err, size_t errlen)
{
	const struct machine *m = &sc->m;
	static const int node_keys[] = { K_MEMORY_NODE_GIB, K_MEMORY_NODE_LAT, K_MEMORY_NODE_BW };
	for (size_t i = 0; !m->nr_memory_nodes && i < ARRAY_SIZE(node_keys); i++)
		if (sc->origin[node_keys[i]].seq)
			return vfail(sc, node_keys[i], err, errlen, "the machine has no CPU-less node "
				     "to describe (machine.memory_nodes lists them by socket, e.g. 0,1)");
	static const int tier_keys[] = { K_HOT_THRESHOLD, K_PROMOTE_RATE };
	for (size_t i = 0; i < ARRAY_SIZE(tier_keys); i++)
		if (sc->origin[tier_keys[i]].seq && !(sc->t.numa_balancing & NUMA_BALANCING_MEMORY_TIERING)) {
			const int ks[] = { tier_keys[i], K_NUMA_BALANCING };
			return vfail_keys(sc, ks, 2, err, errlen, "acts only in memory tiering mode, "
					  "but kernel.numa_balancing is %d (2 or 3 is tiering)",
					  sc->t.numa_balancing);
		}
	if (m->nr_memory_nodes && m->cost.dram_local_ns < 1) {
		static const int ks[] = { K_COST_dram_local_ns, K_MEMORY_NODES };
		return vfail_keys(sc, ks, 2, err, errlen, "costs.dram_local_ns is %g, but the CPU-less "
				  "nodes' distance and tier are their latency over DRAM's: it must be at "
				  "least 1 ns", m->cost.dram_local_ns);
	}
	struct memory_tiers mt;
	memory_tiers_init(m, &mt);
	if (mt.has_slow_tier)
		return 0;
	char why[200];
	if (m->nr_memory_nodes)
		snprintf(why, sizeof(why), ": its CPU-less nodes' abstract distance, %d from %g ns and "
			 "%g GB/s, falls in DRAM's tier (%d), so they are top tier too",
			 mt.adistance[m->nr_cpu_nodes], m->memory_node_latency_ns,
			 m->memory_node_bw_gbs, MEMTIER_ADISTANCE_DRAM);
	else
		snprintf(why, sizeof(why), " (machine.memory_nodes adds CPU-less nodes, e.g. 0,1)");
	if (sc->t.numa_balancing & NUMA_BALANCING_MEMORY_TIERING) {
		const int ks[] = { K_NUMA_BALANCING, K_MEMORY_NODES, K_MEMORY_NODE_LAT };
		return vfail_keys(sc, ks, 3, err, errlen, "%d asks for memory tiering, but the machine "
				  "has no slower tier to promote from%s", sc->t.numa_balancing, why);
	}
	if (sc->t.demotion_enabled) {
		const int ks[] = { K_DEMOTION_ENABLED, K_MEMORY_NODES, K_MEMORY_NODE_LAT };
		return vfail_keys(sc, ks, 3, err, errlen, "the machine has no slower tier to demote "
				  "to%s", why);
	}
	return 0;
}

static int check_tunables(const struct scenario *sc, char *err, size_t errlen)
{
	static const int ks[] = { K_SCAN_MIN, K_SCAN_MAX };
	if (sc->t.scan_period_min_ms > sc->t.scan_period_max_ms)
		return vfail_keys(sc, ks, 2, err, errlen,
			     "scan_period_min_ms (%u) is above scan_period_max_ms (%u)",
			     sc->t.scan_period_min_ms, sc->t.scan_period_max_ms);
	return 0;
}

/* A share of touches aimed at a set of pages that is empty. */
static int check_share(const struct scenario *sc, int frac_k, int share_k, char *err, size_t errlen)
{
	const int ks[] = { share_k, frac_k };
	double f = *(const double *)((const char *)sc + keys[frac_k].off);
	double a = *(const double *)((const char *)sc + keys[share_k].off);
	if (f == 0 && a > 0)
		return vfail_keys(sc, ks, 2, err, errlen,
			     "%s is %g but %s is 0: no pages to take those touches",
			     keys[share_k].name, a, keys[frac_k].name);
	if (f == 1 && a < 1)
		return vfail_keys(sc, ks, 2, err, errlen,
			     "%s is %g but %s is 1: no other pages to take the rest",
			     keys[share_k].name, a, keys[frac_k].name);
	return 0;
}

/* A partial unmap or mprotect of each large folio needs large folios and
 * must leave part of each mapped. */
static int check_thp(const struct scenario *sc, char *err, size_t errlen)
{
	static const int ks[] = { K_THP_PARTIAL, K_THP_ENABLED, K_THP_2M };
	if (sc->w.thp_partial >= 1)
		return vfail(sc, K_THP_PARTIAL, err, errlen,
			     "%g leaves nothing of a folio mapped (a partial mapping needs a share below 1)",
			     sc->w.thp_partial);
	if (sc->w.thp_partial > 0) {
		bool any = sc->t.thp.enabled != THP_ENABLED_NEVER;
		for (int o = THP_MIN_ANON_ORDER; o < HPAGE_PMD_ORDER; o++)
			any |= sc->t.thp.size[o] != THP_SIZE_NEVER;
		if (!any)
			return vfail_keys(sc, ks, 3, err, errlen,
				     "thp_partial is %g but no transparent_hugepage size is enabled: "
				     "there is no large folio to map in part", sc->w.thp_partial);
	}
	return 0;
}

static int check_threads(const struct scenario *sc, char *err, size_t errlen)
{
	static const int ks[] = { K_RUN_MS, K_SLEEP_MS };
	static const int ka[] = { K_ACCESS_SHAPE, K_ACCESS };
	if ((sc->w.run_ms > 0) != (sc->w.sleep_ms > 0))
		return vfail_keys(sc, ks, 2, err, errlen,
			     "run_ms and sleep_ms go together: a thread that sleeps runs "
			     "run_ms of CPU time, then sleeps sleep_ms (both means)");
	if (sc->w.access != ACCESS_UNIFORM && !(sc->w.access_shape > 0))
		return vfail_keys(sc, ka, 2, err, errlen,
			     "access = %s needs access_shape > 0 (normal: the standard deviation "
			     "in pages; pareto: alpha)", access_pattern_names[sc->w.access]);
	/* The bandwidth roofline slows a node's accesses by stretching their
	 * latency until demand meets capacity (workload.c): with (nearly) no
	 * latency to stretch, no stretch meets it. cpu_ns_per_op's range (at
	 * least 1e-3 ns, far below a cycle) keeps every operation's time, and
	 * so every rate (1e9 / ns), finite: 1e-300 with no latency gave an
	 * infinite throughput. */
	static const int kb[] = { K_COST_dram_local_ns, K_MEM_BW, K_LINK_BW };
	if ((sc->m.mem_bw_gbs > 0 || sc->m.link_bw_gbs > 0) && sc->m.cost.dram_local_ns < 1)
		return vfail_keys(sc, kb, 3, err, errlen, "a bandwidth limit slows memory by "
				  "stretching its latency: dram_local_ns must be at least 1 ns while "
				  "machine.mem_bw_gbs or machine.link_bw_gbs is above 0 (0: unlimited)");
	if (check_share(sc, K_PRIVATE_FRACTION, K_PRIVATE_SHARE, err, errlen))
		return -1;
	return check_share(sc, K_HOT_FRACTION, K_HOT_SHARE, err, errlen);
}

/* The memory check mirrors workload_build (workload/workload.c): region
 * sizes rounded up to whole PTE tables (2 MiB), task g on CPU
 * g on fork_spread_cpu(g), a shared store's 2 MiB chunks first touched by
 * its process's threads in turn (process 0's for map_shared), private
 * slices by their owner, interleave per chunk. */
#define PMD_PAGES 512ull
#define PAGES_PER_GIB (1ull << 18)

struct mem_layout {
	uint64_t shared, slice, priv;  /* pages per store / per thread */
};

static uint64_t round_pmd(uint64_t pages)
{
	return (pages + PMD_PAGES - 1) / PMD_PAGES * PMD_PAGES;
}

static void mem_layout(const struct workload_params *w, struct mem_layout *l)
{
	uint64_t total = (uint64_t)(w->memory_gib * (double)(1ull << 30)) >> 12;
	uint64_t priv = (uint64_t)((double)total * w->private_fraction);
	l->slice = priv ? round_pmd(priv / (uint64_t)w->threads) : 0;
	l->priv = l->slice * (uint64_t)w->threads;
	l->shared = round_pmd(total - (priv < total ? priv : total));
}

static uint64_t nodes_pages(const struct machine *m, uint64_t mask)
{
	uint64_t n = 0;
	for (int nid = 0; nid < m->nr_nodes; nid++)
		n += (mask >> nid) & 1 ? machine_node_pages(m, nid) : 0;
	return n;
}

/* The policies: nodes that exist, weighted interleave only where the base
 * has it, one policy per VMA when kept in force. */
static int check_policies(const struct scenario *sc, char *err, size_t errlen)
{
	const struct workload_params *w = &sc->w;
	uint64_t all = sc->m.nr_nodes >= 64 ? ~0ull : (1ull << sc->m.nr_nodes) - 1;
	struct kernel_config k;
	char kerr[256];
	const struct { int key; const struct first_touch_policy *pol; } pols[] = {
		{ K_SHARED_FT, &w->shared_first_touch }, { K_PRIVATE_FT, &w->private_first_touch },
	};
	for (size_t i = 0; i < ARRAY_SIZE(pols); i++) {
		if (pols[i].pol->nodes & ~all)
			return vfail(sc, pols[i].key, err, errlen, "names a node the machine does not "
				     "have (nodes 0 to %d)", sc->m.nr_nodes - 1);
		if (pols[i].pol->mode == FT_WEIGHTED && !kernel_config_parse(sc->kernel, &k, kerr, sizeof(kerr)) &&
		    !k.weighted_interleave)
			return vfail(sc, pols[i].key, err, errlen, "kernel %s has no weighted interleave "
				     "(MPOL_WEIGHTED_INTERLEAVE is v6.9)", sc->kernel);
	}
	if (w->policy_in_force && w->spread_shared && !w->map_shared &&
	    memcmp(&w->shared_first_touch, &w->private_first_touch, sizeof(w->shared_first_touch))) {
		static const int ks[] = { K_POLICY_IN_FORCE, K_SPREAD_SHARED };
		return vfail_keys(sc, ks, 2, err, errlen, "spread_shared puts the shared and "
			     "private pages in one VMA, which can keep only one policy in force: give "
			     "shared_first_touch and private_first_touch the same policy");
	}
	/* the call's keys without the call do nothing: one given a value of
	 * its own is refused; an explicit 'migrate_call = none' (the no-call
	 * baseline of a scenario that has a call) may keep them */
	static const int km[] = { K_MPROC, K_MFROM, K_MTO, K_MAT, K_MEVERY, K_MBACK };
	struct workload_params d;
	workload_defaults(&d);
	const bool own[] = {
		w->migrate_process != d.migrate_process, w->migrate_from != d.migrate_from,
		w->migrate_to != d.migrate_to, w->migrate_at_s != d.migrate_at_s,
		w->migrate_every_s != d.migrate_every_s,
		w->migrate_back_and_forth != d.migrate_back_and_forth,
	};
	for (size_t i = 0; w->migrate_call == MCALL_NONE && !sc->origin[K_MCALL].seq &&
			   i < ARRAY_SIZE(km); i++)
		if (sc->origin[km[i]].seq && own[i])
			return vfail(sc, km[i], err, errlen, "there is no workload.migrate_call to "
				     "apply it to (migrate_pages, move_pages or mbind)");
	if (w->migrate_call != MCALL_NONE) {
		if (w->migrate_process >= w->processes)
			return vfail(sc, K_MPROC, err, errlen, "process %d does not exist (%d process%s)",
				     w->migrate_process, w->processes, w->processes > 1 ? "es" : "");
		if (w->migrate_from >= sc->m.nr_nodes || w->migrate_to >= sc->m.nr_nodes)
			return vfail(sc, w->migrate_from >= sc->m.nr_nodes ? K_MFROM : K_MTO, err, errlen,
				     "the machine has nodes 0 to %d", sc->m.nr_nodes - 1);
		if (w->migrate_from == w->migrate_to)
			return vfail(sc, K_MTO, err, errlen, "migrate_from and migrate_to are the same node");
		if (w->migrate_at_s >= sc->duration_s)
			return vfail(sc, K_MAT, err, errlen, "%g s is not within the run (%g s)",
				     w->migrate_at_s, sc->duration_s);
	}
	if (w->phase_every_s > 0 && (w->threads < 2 || w->private_fraction <= 0 || w->private_access_share <= 0))
		return vfail(sc, K_PHASE_EVERY, err, errlen, "phases trade the threads' private slices: "
			     "they need 2 threads or more, private_fraction and private_access_share above 0");
	if (w->phase_shift && (w->phase_shift % w->threads == 0))
		return vfail(sc, K_PHASE_SHIFT, err, errlen, "%d is a multiple of the %d threads: "
			     "every thread would keep its own slice", w->phase_shift, w->threads);
	if (w->phase_shift && w->phase_every_s <= 0)
		return vfail(sc, K_PHASE_SHIFT, err, errlen, "phase_shift needs phase_every_s");
	if ((w->eat_gib > 0 || w->eat_node >= 0) && (w->eat_node < 0 || w->eat_node >= sc->m.nr_nodes))
		return vfail(sc, K_EAT_NODE, err, errlen, "eat_gib needs eat_node, a node of the "
			     "machine (0 to %d)", sc->m.nr_nodes - 1);
	return 0;
}

/* The touches need pages to land on: a share of the touches sent to a kind
 * of page (private or shared, hot or cold) that has none would vanish from
 * the operation's time. Hot pages are drawn page by page
 * (workload_page_hot): each region a thread touches must expect at least
 * one page of each kind that takes touches. */
static int check_regions(const struct scenario *sc, const struct mem_layout *l, char *err,
			 size_t errlen)
{
	const struct workload_params *w = &sc->w;
	static const int km[] = { K_MEMORY };
	static const int kp[] = { K_PRIVATE_FRACTION, K_THREADS, K_MEMORY };
	static const int kh[] = { K_HOT_FRACTION, K_HOT_SHARE, K_MEMORY, K_PRIVATE_FRACTION };
	if (!l->slice && !l->shared)
		return vfail_keys(sc, km, 1, err, errlen, "%g GiB is less than one 4 KiB page",
				  w->memory_gib);
	if (w->private_access_share > 0 && !l->slice)
		return vfail_keys(sc, kp, 3, err, errlen, "private_fraction %g of %g GiB gives %d "
				  "threads' slices no page, but private_access_share %g of the touches "
				  "go to them", w->private_fraction, w->memory_gib, w->threads,
				  w->private_access_share);
	uint64_t least = l->slice && w->private_access_share > 0 ? l->slice : l->shared;
	if (l->shared && w->private_access_share < 1 && l->shared < least)
		least = l->shared;
	bool no_hot = w->hot_access_share > 0 && w->hot_fraction * (double)least < 1;
	bool no_cold = w->hot_access_share < 1 && (1 - w->hot_fraction) * (double)least < 1;
	if (no_hot || no_cold)
		return vfail_keys(sc, kh, 4, err, errlen, "hot_fraction %.12g leaves the %s pages of a "
				  "%llu-page region less than one page, but hot_access_share %g sends "
				  "touches there", w->hot_fraction, no_hot ? "hot" : "cold",
				  (unsigned long long)least, w->hot_access_share);
	return 0;
}

/* The memory check mirrors workload_build (workload/workload.c): region
 * sizes rounded up to whole PTE tables (2 MiB); the page allocator falls
 * back through the nodes, so only the machine's total (less a memory
 * eater) and a bind policy's nodes bound what fits. */
static int check_memory(const struct scenario *sc, char *err, size_t errlen)
{
	const struct workload_params *w = &sc->w;
	const struct machine *m = &sc->m;
	struct mem_layout l;
	uint64_t node_pages = w->eat_node >= 0 && w->eat_node < m->nr_nodes
				      ? machine_node_pages(m, w->eat_node) : machine_node_pages(m, 0);
	uint64_t eat = (uint64_t)(w->eat_gib * PAGES_PER_GIB);
	double node_gib = (double)node_pages / PAGES_PER_GIB;
	if (eat > node_pages)
		return vfail(sc, K_EAT_GIB, err, errlen, "%g GiB but a node has %g GiB", w->eat_gib,
			     node_gib);
	mem_layout(w, &l);
	if (check_regions(sc, &l, err, errlen))
		return -1;
	uint64_t procs = (uint64_t)w->processes;
	uint64_t shared = l.shared * (w->map_shared ? 1 : procs), priv = l.priv * procs;
	uint64_t all = m->nr_nodes >= 64 ? ~0ull : (1ull << m->nr_nodes) - 1;
	uint64_t total = shared + priv, cap = nodes_pages(m, all) - eat;
	char tiers[96] = "";
	if (m->nr_memory_nodes)
		snprintf(tiers, sizeof(tiers), " + %d CPU-less x %g GiB", m->nr_memory_nodes,
			 (double)m->memory_node_mib / 1024);
	if (total > cap)
		return vfail(sc, K_MEMORY, err, errlen,
			     "needs %g GiB but the machine has %g GiB (%d nodes x %g GiB%s%s)",
			     (double)total / PAGES_PER_GIB, (double)cap / PAGES_PER_GIB,
			     m->nr_cpu_nodes, (double)m->mem_per_node_mib / 1024, tiers,
			     eat ? ", less the eater" : "");
	const struct { int key; const struct first_touch_policy *pol; uint64_t pages; } regions[] = {
		{ K_SHARED_FT, &w->shared_first_touch, shared }, { K_PRIVATE_FT, &w->private_first_touch, priv },
	};
	for (size_t i = 0; i < ARRAY_SIZE(regions); i++) {
		const struct first_touch_policy *pol = regions[i].pol;
		if (pol->mode != FT_BIND || !regions[i].pages)
			continue;
		uint64_t need = 0;
		for (size_t j = 0; j < ARRAY_SIZE(regions); j++)
			if (regions[j].pol->mode == FT_BIND && (regions[j].pol->nodes & pol->nodes))
				need += regions[j].pages;
		uint64_t room = nodes_pages(m, pol->nodes);
		if (w->eat_gib > 0 && (pol->nodes >> w->eat_node) & 1)
			room -= eat;
		if (need > room)
			return vfail(sc, regions[i].key, err, errlen, "binds %g GiB to nodes with %g GiB: "
				     "MPOL_BIND does not fall back", (double)need / PAGES_PER_GIB,
				     (double)room / PAGES_PER_GIB);
	}
	return 0;
}

/* ---- the model's footprint (scenario_check_host) ---------------------- */

/* What the model holds per PTE table (2 MiB of a VMA) from set-up on: the
 * table-to-VMA map (sim.table_vma, 8 bytes), the touch model's group list
 * (4), set-up's list of the tables' groups (4, until build_groups is done
 * with it) and a lazy table's home node (1), written then; and the touch
 * model's per-table arrays, zero-filled but written wherever a table's
 * counts change: pending-fault counts (2 x 4), pool entry (6) and Fenwick
 * trees (2 x 8, and up to as much again in the pads past a group's tables,
 * written at set-up: touch_fen_size).  At most 63 in all. */
#define TABLE_FIXED_BYTES 64
/* A table held page by page: a page_state (8 bytes) and a PTE byte per
 * page, and its struct pte_table (168), which set-up writes only for a
 * table it builds page by page or of large folios, and a path otherwise
 * when it first reaches the table, just before building it.  The arrays
 * behind them are mapped zero-filled (big_zalloc, big_zalloc_sparse) and
 * cost nothing until written. */
#define TABLE_PAGES_BYTES (PMD_PAGES * (sizeof(struct page_state) + 1) + sizeof(struct pte_table))
/* The page states and PTE bytes ask for transparent huge pages
 * (big_zalloc): a run of written tables can hold a 2 MiB page partly used
 * at each of its ends in each; the structs (big_zalloc_sparse), a 4 KiB
 * page. */
#define RUN_ROUNDING_BYTES (4 * (2ull << 20) + 2 * 4096)
/* The process itself (binary, libraries, the report's buffers), measured at
 * 4-5 MiB, with room. */

/* The NUMA scanner's shortest period for a process of @rss pages, in
 * jiffies: task_scan_min (at most one pass per period per mm:
 * numa_next_scan), rounded up to a jiffy by msecs_to_jiffies; 0 when it is
 * under a millisecond (passes are then bounded only by the ticks). */
static uint64_t scan_min_jiffies(const struct scenario *sc, uint64_t rss)
{
	uint64_t size = sc->t.scan_size_mb ? sc->t.scan_size_mb : 1, windows = 1;
	if (size < 2560) /* MAX_SCAN_WINDOW */
		windows = 2560 / size;
	uint64_t floor = 1000 / windows, scan_pages = size << (20 - PAGE_SHIFT);
	uint64_t nr_windows = rss ? (rss + scan_pages - 1) / scan_pages : 1;
	uint64_t ms = sc->t.scan_period_min_ms / nr_windows;
	if (ms < floor)
		ms = floor;
	uint64_t hz = sc->m.hz > 0 ? (uint64_t)sc->m.hz : 1000;
	return (ms * hz + 999) / 1000;
}

/* An upper bound on the PTE tables of one process that a run of @sc holds
 * page by page by its end, of @tables in @vmas VMAs.  All of them where
 * set-up builds them page by page (a hot set; a store mapped by several
 * processes; THP, whose folios may mix sizes and nodes) or a path may walk
 * every table (a migration call, compaction, kswapd on a tiered machine).
 * Otherwise what madvise's calls cover, and what the NUMA scanner reaches:
 * one pass per shortest scan period from scan_delay on, each pass meeting at
 * most scan_size of tables it changes (a lazily built table has every PTE
 * present and not PROT_NONE, so a chunk with one in it counts against
 * task_numa_work's budget) plus a table at the end of the pass and one per
 * VMA; 8 x scan_size (virtpages) where the scanner may leave PTEs as they
 * are: a single-threaded process or the tiering mode. */
static uint64_t reachable_tables(const struct scenario *sc, uint64_t rss, uint64_t tables,
				 uint64_t vmas)
{
	const struct workload_params *w = &sc->w;
	const struct thp_tunables *thp = &sc->t.thp;
	bool thp_on = thp->enabled != THP_ENABLED_NEVER;
	for (unsigned o = 0; o < NR_PAGE_ORDERS; o++)
		thp_on |= thp->size[o] == THP_SIZE_ALWAYS || thp->size[o] == THP_SIZE_MADVISE;
	if (w->hot_fraction > 0 || (w->map_shared && w->processes > 1) || thp_on ||
	    w->migrate_call != MCALL_NONE || sc->compact_every_s > 0 || sc->m.nr_memory_nodes)
		return tables;
	uint64_t dur_ms = (uint64_t)ceil(sc->duration_s * 1000), reach = 0;
	const struct { double every_ms; int kib; } calls[] = {
		{ w->madvise_cold_every_ms, w->madvise_cold_kib },
		{ w->madvise_dontneed_every_ms, w->madvise_dontneed_kib },
	};
	for (size_t i = 0; i < ARRAY_SIZE(calls); i++)
		if (calls[i].every_ms > 0)
			reach += ((uint64_t)((double)dur_ms / calls[i].every_ms) + 1) *
				 ((uint64_t)calls[i].kib / 2048 + 2);
	if (sc->t.numa_balancing) {
		uint64_t hz = sc->m.hz > 0 ? (uint64_t)sc->m.hz : 1000;
		uint64_t period = scan_min_jiffies(sc, rss);
		uint64_t end = dur_ms * hz / 1000 + 1, delay = sc->t.scan_delay_ms * hz / 1000;
		uint64_t passes = end < delay ? 0 : period ? (end - delay) / period + 1 : tables;
		uint64_t per_pass = sc->t.scan_size_mb / 2 + 1 + vmas;
		if (w->threads == 1 || (sc->t.numa_balancing & 2))
			per_pass = 8ull * sc->t.scan_size_mb / 2 + 1 + vmas;
		reach += passes > tables ? tables : passes * per_pass;
	}
	return reach < tables ? reach : tables;
}

uint64_t scenario_model_tables(const struct scenario *sc)
{
	const struct workload_params *w = &sc->w;
	struct mem_layout l;
	mem_layout(w, &l);
	uint64_t vma_pages = w->vma_mib ? round_pmd((uint64_t)w->vma_mib << (20 - PAGE_SHIFT)) : 0;
	uint64_t mm_pages = l.shared + l.priv;
	uint64_t vmas = 2 + (vma_pages ? mm_pages / vma_pages + 2 : 0);
	return reachable_tables(sc, mm_pages, mm_pages / PMD_PAGES + vmas, vmas) * (uint64_t)w->processes;
}

/* What a run of @sc holds in memory at its peak, from how the model
 * allocates: a bound, not a guess.  Up front, TABLE_FIXED_BYTES per PTE
 * table and nothing per page (the page states and PTE bytes are written per
 * table, below); per table held page by page, TABLE_PAGES_BYTES, for the
 * tables the run can reach (reachable_tables), never more than the whole
 * arrays; per task, per CPU and per simulated second, their structures and
 * their share of the report.
 *
 * Measured (/usr/bin/time %M, release build, 2-core VM with THP on
 * madvise), peak RSS against the bound, in MiB:
 *   seed, 120 GiB, 61,440 tables       1 s:     6   (0 tables held)     46
 *                                      60 s:    44   (7,552)            319
 *                                     180 s:   115   (22,912)           319
 *   1,024 CPUs, 4 TiB, 2.1 M tables    1 s:    56                       185
 *                                      60 s:    93   (7,552)            537
 *   4,096 CPUs, 16 TiB, 8.4 M tables   1 s:   214   (0)                644
 *                                      60 s:   250   (7,552)            996
 *   tpp-cache (every table held)      120 s:   155   (32,768)           177
 *   seed-tiered (kswapd's scattered reach)   242   (23,680)           319
 * The touch trees' pads (touch_fen_size) write a 4 KiB page of each
 * group's tree tail in each of the two trees at set-up: 8 KiB a group, up
 * to 16 B a table in the bound; without them the 4,096-CPU run peaked at
 * 149 and 195 MiB.
 * Every built-in scenario's peak is under its bound; the seed's scanner
 * held 128 tables a pass at 1 pass a second where the bound allows 10.
 * The old rule, 9.4 bytes a page, asked 37.3 GiB for 16 TiB; with every
 * table's struct written at set-up the 16 TiB run peaked at 1.5 GiB. */
uint64_t scenario_model_bytes(const struct scenario *sc)
{
	const struct workload_params *w = &sc->w;
	struct mem_layout l;
	mem_layout(w, &l);
	uint64_t procs = (uint64_t)w->processes, tasks = procs * (uint64_t)w->threads;
	uint64_t nodes = (uint64_t)sc->m.nr_nodes;
	uint64_t vma_pages = w->vma_mib ? round_pmd((uint64_t)w->vma_mib << (20 - PAGE_SHIFT)) : 0;
	uint64_t mm_pages = l.shared + l.priv; /* mapped in each process */
	uint64_t vmas = 2 + (vma_pages ? mm_pages / vma_pages + 2 : 0); /* workload_build's room */
	uint64_t tables = mm_pages / PMD_PAGES + vmas; /* per process */
	uint64_t stores = (w->map_shared ? 1 : procs) + procs;
	uint64_t store = l.shared * (w->map_shared ? 1 : procs) + l.priv * procs;
	/* all written: each array rounded up to its last huge page */
	uint64_t arrays = store * sizeof(struct page_state) + mm_pages * procs +
			  tables * procs * sizeof(struct pte_table) + (stores + vmas * procs) * (2ull << 20);
	uint64_t held = scenario_model_tables(sc);
	uint64_t written = held * TABLE_PAGES_BYTES + (held ? vmas * procs * RUN_ROUNDING_BYTES : 0);
	uint64_t seconds = (uint64_t)ceil(sc->duration_s) + 1;
	uint64_t bytes = SCENARIO_BASE_BYTES
			 + tables * procs * TABLE_FIXED_BYTES
			 + (written < arrays ? written : arrays)
			 /* the task, its migration context, its rows per node, its report */
			 + tasks * (sizeof(struct task_struct) + sizeof(struct migrate_ctx) + 2048 + 64 * nodes)
			 + (uint64_t)sc->m.nr_cpus * 4096 /* cpu_state and masks */
			 /* the per-second series, per process too, and as JSON */
			 + seconds * (1024 + 256 * procs);
	return bytes;
}

int scenario_check_host(const struct scenario *sc, uint64_t host_bytes, char *err, size_t errlen)
{
	uint64_t need = scenario_model_bytes(sc);
	if (need <= host_bytes / 10 * 8)
		return 0;
	static const int ks[] = { K_MEMORY, K_PROCESSES, K_THREADS, K_MAP_SHARED };
	return vfail_keys(sc, ks, 4, err, errlen,
		     "modelling this workload may take up to %.1f GiB of this computer's memory, "
		     "more than the 80%% of its %.1f GiB that a run may use", (double)need / (1 << 30),
		     (double)host_bytes / (1 << 30));
}

int scenario_validate(struct scenario *sc, char *err, size_t errlen)
{
	if (check_topology(sc, err, errlen))
		return -1;
	fill_distances(sc);
	if (check_tiers(sc, err, errlen) || check_tunables(sc, err, errlen) || check_threads(sc, err, errlen) ||
	    check_thp(sc, err, errlen) || check_policies(sc, err, errlen))
		return -1;
	return check_memory(sc, err, errlen);
}

int scenario_to_sim(const struct scenario *sc, struct sim *s, char *err, size_t errlen)
{
	struct scenario *v = malloc(sizeof(*v));
	if (!v) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	*v = *sc;
	int rc = scenario_validate(v, err, errlen);
	if (!rc) {
		memset(s, 0, sizeof(*s));
		s->m = v->m;
		s->t = v->t;
		s->w.p = v->w;
		s->seed = v->seed;
		s->duration_ns = time_ns(v->duration_s, NSEC_PER_SEC);
		s->compact_every_ns = time_ns(v->compact_every_s, NSEC_PER_SEC);
		s->exact = v->exact;
		if (kernel_config_parse(v->kernel, &s->k, err, errlen)) {
			rc = -1;
		} else if ((v->t.numa_balancing & NUMA_BALANCING_MEMORY_TIERING) && !s->k.memory_tiering) {
			static const int ks[] = { K_NUMA_BALANCING, K_KERNEL };
			rc = vfail_keys(v, ks, 2, err, errlen, "%d is memory tiering mode, which %s does "
					"not have (c574bbe91703, v5.18)", v->t.numa_balancing, v->kernel);
		}
	}
	free(v);
	return rc;
}
