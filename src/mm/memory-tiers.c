/* Memory tiers from abstract distance, after mm/memory-tiers.c (v6.12):
 * see linux/memory-tiers.h.  Tiers by abstract distance came with v6.1
 * (Aneesh Kumar K.V's explicit memory tiers series); adistance from HMAT
 * performance (mt_perf_to_adistance) with v6.7. */
#include "linux/memory-tiers.h"

#include <limits.h>

int mt_perf_to_adistance(double lat_ns, double bw_gbs, double dram_lat_ns, double dram_bw_gbs)
{
	/* the kernel's integer arithmetic, in the units HMAT reports (ns and
	 * MB/s), reads and writes alike; left to right as it divides */
	long long lat = (long long)(lat_ns + 0.5), dlat = (long long)(dram_lat_ns + 0.5);
	long long bw = (long long)(bw_gbs * 1000 + 0.5), dbw = (long long)(dram_bw_gbs * 1000 + 0.5);
	if (bw <= 0 || dbw <= 0)
		bw = dbw = 1; /* unlimited: no bandwidth term */
	if (dlat <= 0)
		dlat = 1;
	/* the scenario's bounds (1e6 ns, 1e-6 .. 1e6 GB/s) keep this within
	 * long long; a tier number far past the rest is as good as any */
	long long adist = MEMTIER_ADISTANCE_DRAM * (2 * lat) / (2 * dlat) * (2 * dbw) / (2 * bw);
	return adist < INT_MAX / 2 ? (int)adist : INT_MAX / 2;
}

/* The nodes of tier @tier. */
static uint64_t tier_nodes(const struct machine *m, const struct memory_tiers *mt, int tier)
{
	uint64_t mask = 0;
	for (int n = 0; n < m->nr_nodes; n++)
		if (memtier_of(mt, n) == tier)
			mask |= 1ull << n;
	return mask;
}

/* The next tier below @tier that has nodes, or -1. */
static int next_tier(const struct machine *m, const struct memory_tiers *mt, int tier)
{
	int next = -1;
	for (int n = 0; n < m->nr_nodes; n++) {
		int t = memtier_of(mt, n);
		if (t > tier && (next < 0 || t < next))
			next = t;
	}
	return next;
}

/* establish_demotion_targets: from each node, the nodes of the next tier
 * down at the best distance (find_next_best_node: nearest first). */
static void demotion_targets(const struct machine *m, struct memory_tiers *mt)
{
	for (int n = 0; n < m->nr_nodes; n++) {
		int lower = next_tier(m, mt, memtier_of(mt, n));
		mt->preferred[n] = 0;
		mt->lower_tier_mask[n] = 0;
		if (lower < 0)
			continue;
		uint64_t cand = tier_nodes(m, mt, lower);
		int best = -1;
		for (int t = 0; t < m->nr_nodes; t++)
			if ((cand >> t) & 1 && (best < 0 || m->distance[n][t] < best))
				best = m->distance[n][t];
		for (int t = 0; t < m->nr_nodes; t++) {
			if ((cand >> t) & 1 && m->distance[n][t] == best)
				mt->preferred[n] |= 1ull << t;
			if (memtier_of(mt, t) > memtier_of(mt, n))
				mt->lower_tier_mask[n] |= 1ull << t;
		}
	}
}

void memory_tiers_init(const struct machine *m, struct memory_tiers *mt)
{
	int slowest_cpu_tier = 0;
	for (int n = 0; n < m->nr_nodes; n++) {
		mt->adistance[n] = machine_node_has_cpus(m, n)
			? MEMTIER_ADISTANCE_DRAM
			: mt_perf_to_adistance(m->memory_node_latency_ns, m->memory_node_bw_gbs,
					       m->cost.dram_local_ns, m->mem_bw_gbs);
		if (machine_node_has_cpus(m, n) && memtier_of(mt, n) > slowest_cpu_tier)
			slowest_cpu_tier = memtier_of(mt, n);
	}
	/* the slowest tier with CPUs, seen from the bottom, ends the top tier */
	mt->top_tier_adistance = (slowest_cpu_tier << MEMTIER_CHUNK_BITS) + MEMTIER_CHUNK_SIZE - 1;
	mt->has_slow_tier = false;
	for (int n = 0; n < m->nr_nodes; n++)
		mt->has_slow_tier |= !memtier_node_is_toptier(mt, n);
	demotion_targets(m, mt);
}
