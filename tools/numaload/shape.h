/* What numaload runs: a numasim scenario, read with numasim's own parser
 * (src/scenario/), checked key by key against what a real machine can
 * honour, and laid out exactly as numasim's workload (workload.c) lays it
 * out: slices, shared tables, first-touch nodes, hot set, task CPUs.
 *
 * Key rules (keys.c, one table): [machine] topology, memory, distances,
 * flush engine and hz describe the machine, so they must match the real
 * one (unset: taken from it); numa_balancing's tunables and x86's flush
 * ceiling are written to the running kernel for the run (tunables.c); the
 * workload's shape, run.duration_s and run.seed are honoured; what
 * numaload does not do (sleeps, access patterns, migration calls, madvise,
 * THP, compaction, --exact) is accepted only at numasim's default, off;
 * numasim's model parameters (costs, tlb_entries, cpu_ghz, kernel.name)
 * are errors at FILE:LINE: key. */
#ifndef NUMALOAD_SHAPE_H
#define NUMALOAD_SHAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "scenario/scenario.h"

#define NL_MAX_NODE_CPUS 1024

/* The machine numaload runs on, as sysfs and procfs describe it. */
struct nl_real {
	char release[128];            /* uname -r */
	char machine[72];             /* uname -m */
	int nr_nodes;                 /* nodes with CPUs */
	int node_id[MAX_NUMNODES];    /* their kernel node numbers */
	int node_ncpus[MAX_NUMNODES];
	int node_cpus[MAX_NUMNODES][NL_MAX_NODE_CPUS];
	uint64_t node_mem_kb[MAX_NUMNODES];   /* MemTotal */
	int distance[MAX_NUMNODES][MAX_NUMNODES];
	int node_socket[MAX_NUMNODES];        /* physical_package_id of its first CPU */
	int sockets, threads_per_core, nr_cpus;
	enum flush_engine engine;
	int config_hz;                /* CONFIG_HZ from /boot/config-RELEASE, 0 if unknown */
};

/* Read the running machine.  -1 with @err if sysfs is not readable. */
int nl_real_read(struct nl_real *r, char *err, size_t errlen);

/* Check every key @sc assigned against the rules above and @r, set the
 * [machine] keys it did not assign from @r, then validate the scenario as
 * numasim does.  -1 with "FILE:LINE: key: ..." in @err. */
int nl_shape_resolve(struct scenario *sc, const struct nl_real *r, char *err, size_t errlen);

/* ---- numasim's layout (workload.c), per process ------------------------------ */

#define NL_PMD_PAGES 512ull

struct nl_layout {
	uint64_t slice_pages;    /* per thread, whole 2 MiB tables */
	uint64_t private_pages;  /* all slices of a process */
	uint64_t shared_pages;   /* the shared region (store) */
	uint64_t vma_pages;      /* 0: one VMA per region */
};

enum nl_region { NL_SHARED = 0, NL_PRIVATE = 1, NL_SPREAD = 2 };

void nl_layout(const struct workload_params *p, struct nl_layout *l);
/* The thread (index within its process) whose slice table @chunk of
 * @region's store is, or -1 for a shared table (workload.c:store_table_owner). */
int nl_table_owner(const struct nl_layout *l, enum nl_region region, uint64_t chunk);
/* The CPU numasim starts task @task on (kernel/sched/topology.h:
 * fork_spread_cpu). */
int nl_task_cpu(const struct machine *m, int task);
/* The node a 2 MiB chunk is first touched on: the user's CPU's node under
 * local/remote, chunk % nodes under interleave, node 0
 * (workload.c:first_touch_node). */
int nl_first_touch_node(const struct machine *m, enum first_touch ft, int user_cpu, uint64_t chunk);
/* The hot set is numasim's own: workload_hot_cut and workload_page_hot
 * (workload/workload.h), with the store's first mapper as mm_id. */

#endif
