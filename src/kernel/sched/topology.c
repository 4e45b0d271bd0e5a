/* Scheduling domains (see topology.h), after kernel/sched/topology.c
 * (sd_init, build_sched_domains and its imb_numa_nr, v6.17). */
#include "kernel/sched/topology.h"

#include <stdlib.h>

/* The domain a CPU belongs to at a level of the given kind (and, for
 * NUMA, of the given reach: the socket or the whole machine). */
static int dom_key(const struct machine *m, enum sd_kind kind, bool whole, int cpu)
{
	int node = machine_cpu_node(m, cpu);
	switch (kind) {
	case SD_SMT:
		return cpu_core_id(m, cpu);
	case SD_MC:
		return node;
	default:
		return whole ? 0 : node / m->nodes_per_socket;
	}
}

struct level_spec {
	enum sd_kind kind;
	bool whole;
	const char *name;
};

static int add_level(struct sched_topology *t, const struct machine *m, struct level_spec spec,
		     int child_weight)
{
	int n = m->nr_cpus, l = t->nr_levels;
	int *key = malloc(sizeof(int) * (size_t)n);
	int nr_dom = 0;
	if (!key)
		return -1;
	for (int c = 0; c < n; c++) {
		key[c] = dom_key(m, spec.kind, spec.whole, c);
		if (key[c] + 1 > nr_dom)
			nr_dom = key[c] + 1;
	}
	int weight = n / nr_dom;
	if (weight <= child_weight) { /* degenerate: spans what its child spans */
		free(key);
		return 0;
	}
	struct sd_map *mp = &t->map[l];
	mp->cpus = malloc(sizeof(int) * (size_t)n);
	mp->dom_start = malloc(sizeof(int) * (size_t)n);
	mp->grp_start = malloc(sizeof(int) * (size_t)n);
	mp->dom_id = key;
	mp->nr_dom = nr_dom;
	if (!mp->cpus || !mp->dom_start || !mp->grp_start)
		return -1;
	/* list CPUs by domain, then by their child domain (the group), then
	 * by number: a stable counting sort on (domain, group) */
	int k = 0;
	for (int d = 0; d < nr_dom; d++) {
		int first = k;
		if (l == 0) {
			for (int c = 0; c < n; c++)
				if (key[c] == d)
					mp->cpus[k++] = c;
		} else {
			const struct sd_map *ch = &t->map[l - 1];
			for (int g = 0; g < ch->nr_dom; g++)
				for (int c = 0; c < n; c++)
					if (key[c] == d && ch->dom_id[c] == g)
						mp->cpus[k++] = c;
		}
		for (int i = first; i < k; i++)
			mp->dom_start[mp->cpus[i]] = first;
	}
	int gw = l == 0 ? 1 : t->level[l - 1].span_weight;
	for (int i = 0; i < n; i++)
		mp->grp_start[mp->cpus[i]] = mp->dom_start[mp->cpus[i]] +
					     (i - mp->dom_start[mp->cpus[i]]) / gw * gw;

	struct sd_level *sd = &t->level[l];
	sd->kind = spec.kind;
	sd->name = spec.name;
	sd->span_weight = weight;
	sd->group_weight = gw;
	/* sd_init: balance every span_weight ms, up to twice that, 16 times
	 * less often while busy */
	sd->min_interval_ms = (unsigned)weight;
	sd->max_interval_ms = 2u * (unsigned)weight;
	sd->busy_factor = 16;
	sd->imbalance_pct = spec.kind == SD_SMT ? 110 : 117;
	sd->cache_nice_tries = spec.kind == SD_SMT ? 0 : spec.kind == SD_MC ? 1 : 2;
	sd->imb_numa_nr = 0;
	t->nr_levels++;
	return 0;
}

/* build_sched_domains' imb_numa_nr, computed at the package level (the
 * first domain above the LLC, before degenerate levels are dropped): the
 * number of LLCs in the package, or 1/8 of the package if it is one LLC
 * (v6.0); NUMA levels above scale it by how many spans of the first NUMA
 * level they hold. */
static void set_imb_numa_nr(struct sched_topology *t, const struct machine *m)
{
	unsigned llc = (unsigned)(m->cores_per_node * m->threads_per_core);
	unsigned pkg = llc * (unsigned)m->nodes_per_socket;
	unsigned imb = pkg == llc ? pkg >> 3 : pkg / llc, imb_span = 0;
	if (imb < 1)
		imb = 1;
	for (int l = 0; l < t->nr_levels; l++) {
		struct sd_level *sd = &t->level[l];
		if (sd->kind != SD_NUMA)
			continue;
		if (!imb_span)
			imb_span = (unsigned)sd->span_weight;
		unsigned factor = (unsigned)sd->span_weight / imb_span;
		sd->imb_numa_nr = imb * (factor ? factor : 1);
	}
}

int sched_topology_build(struct sched_topology *t, const struct machine *m)
{
	const struct level_spec specs[] = {
		{ SD_SMT, false, "SMT" },
		{ SD_MC, false, "MC" },
		{ SD_NUMA, false, "NUMA" },
		{ SD_NUMA, true, "NUMA" },
	};
	int weight = 1;
	t->nr_levels = 0;
	t->nr_cpus = m->nr_cpus;
	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		if (add_level(t, m, specs[i], weight))
			return -1;
		if (t->nr_levels)
			weight = t->level[t->nr_levels - 1].span_weight;
	}
	set_imb_numa_nr(t, m);
	return 0;
}

void sched_topology_free(struct sched_topology *t)
{
	for (int l = 0; l < SD_MAX_LEVELS; l++) {
		free(t->map[l].cpus);
		free(t->map[l].dom_start);
		free(t->map[l].grp_start);
		free(t->map[l].dom_id);
		t->map[l] = (struct sd_map){ 0 };
	}
	t->nr_levels = 0;
}
