/* Memory tiers, after mm/memory-tiers.c (v6.12): every node with memory
 * gets an abstract distance (adistance) from its performance relative to
 * DRAM; nodes whose adistances fall in one chunk of MEMTIER_CHUNK_SIZE
 * form a tier, tiers are ordered by adistance, and the slowest tier that
 * holds a node with CPUs ends the top tier (node_is_toptier).  Each node's
 * demotion targets are the nearest nodes of the next tier down
 * (establish_demotion_targets), with every lower tier as fallback.
 * Computed once from the machine: the model does not hot-plug memory.
 * Left out: memory_dev_type registration by drivers (one type for all the
 * machine's CPU-less nodes, as kmem gives nodes of one performance), the
 * HMAT/CDAT read-write split (reads and writes perform alike here), the
 * sysfs memory_tiering device. */
#ifndef NUMASIM_LINUX_MEMORY_TIERS_H
#define NUMASIM_LINUX_MEMORY_TIERS_H

#include <stdbool.h>
#include <stdint.h>

#include "machine/machine.h"

#define MEMTIER_CHUNK_BITS 7
#define MEMTIER_CHUNK_SIZE (1 << MEMTIER_CHUNK_BITS)
/* DRAM's abstract distance: the middle of the fifth chunk */
#define MEMTIER_ADISTANCE_DRAM ((4 * MEMTIER_CHUNK_SIZE) + (MEMTIER_CHUNK_SIZE >> 1))

struct memory_tiers {
	int adistance[MAX_NUMNODES];     /* per node */
	int top_tier_adistance;          /* the top tier's last adistance */
	uint64_t preferred[MAX_NUMNODES];/* node_demotion[n].preferred: node mask */
	uint64_t lower_tier_mask[MAX_NUMNODES]; /* every node in a lower tier */
	bool has_slow_tier;              /* some node is not top tier */
};

/* mt_perf_to_adistance: proportional to latency, inversely to bandwidth,
 * against DRAM's (@dram_*); bandwidth 0 (unlimited) counts as DRAM's. */
int mt_perf_to_adistance(double lat_ns, double bw_gbs, double dram_lat_ns, double dram_bw_gbs);

/* Build @mt for machine @m (machine_finish done). */
void memory_tiers_init(const struct machine *m, struct memory_tiers *mt);

/* node_is_toptier: its tier's start at or below top_tier_adistance. */
static inline bool memtier_node_is_toptier(const struct memory_tiers *mt, int nid)
{
	int start = mt->adistance[nid] >> MEMTIER_CHUNK_BITS << MEMTIER_CHUNK_BITS;
	return start <= mt->top_tier_adistance;
}

/* The memory tier (adistance >> MEMTIER_CHUNK_BITS) of @nid. */
static inline int memtier_of(const struct memory_tiers *mt, int nid)
{
	return mt->adistance[nid] >> MEMTIER_CHUNK_BITS;
}

#endif
