/* Scheduling domains, after kernel/sched/topology.c: the levels the load
 * balancer walks, built from the machine's topology.
 *
 * The model's machines have one last-level cache per NUMA node, so the
 * levels are, bottom up: SMT (the threads of a core; absent without SMT),
 * MC (the node: the LLC), then one NUMA level per distinct distance (the
 * nodes of a socket when a socket has several, then all nodes).  A level
 * that would span what its child spans is degenerate and left out, as
 * sd_degenerate does.  Each level's groups are its child level's spans. */
#ifndef NUMASIM_SCHED_TOPOLOGY_H
#define NUMASIM_SCHED_TOPOLOGY_H

#include <stdbool.h>
#include <stdint.h>

#include "machine/machine.h"

#define SD_MAX_LEVELS 6

enum sd_kind { SD_SMT, SD_MC, SD_NUMA };

struct sd_level {
	enum sd_kind kind;
	const char *name;
	int span_weight;          /* CPUs in one domain of the level */
	int group_weight;         /* CPUs in one of its groups (the child span) */
	unsigned min_interval_ms; /* = span_weight (sd_init) */
	unsigned max_interval_ms; /* = 2 * span_weight */
	unsigned busy_factor;     /* a busy CPU balances busy_factor times less often */
	unsigned imbalance_pct;
	unsigned cache_nice_tries;
	unsigned imb_numa_nr;     /* NUMA: the imbalance allowed between nodes */
};

/* At every level the CPUs are listed domain by domain and, within a
 * domain, group by group (cpus[]); a CPU's domain is the row of span_weight
 * CPUs starting at dom_start[cpu], its group the row of group_weight CPUs
 * starting at grp_start[cpu]. */
struct sd_map {
	int *cpus;
	int *dom_start;           /* [cpu]: index in cpus[] of its domain's first CPU */
	int *grp_start;           /* [cpu]: index in cpus[] of its group's first CPU */
	int *dom_id;              /* [cpu]: its domain's number (0..nr_dom-1) */
	int nr_dom;
};

struct sched_topology {
	int nr_levels;
	int nr_cpus;
	struct sd_level level[SD_MAX_LEVELS];
	struct sd_map map[SD_MAX_LEVELS];
};

int sched_topology_build(struct sched_topology *t, const struct machine *m);
void sched_topology_free(struct sched_topology *t);

/* The core (SMT group) of a CPU, and whether two CPUs share the LLC. */
static inline int cpu_core_id(const struct machine *m, int cpu)
{
	return cpu % (m->nr_cpu_nodes * m->cores_per_node);
}

/* Where the @i-th thread a process starts lands: fork balancing spreads
 * threads over the nodes and, within a node, over idle cores before SMT
 * siblings; more threads than CPUs wrap round. */
static inline int fork_spread_cpu(const struct machine *m, int i)
{
	int cores = m->nr_cpu_nodes * m->cores_per_node;
	int k = i % m->nr_cpus;
	int sib = k / cores, rest = k % cores;
	return sib * cores + (rest % m->nr_cpu_nodes) * m->cores_per_node + rest / m->nr_cpu_nodes;
}

#endif
