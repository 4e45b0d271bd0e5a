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

/* One stable counting-sort pass: @in's n CPUs into @out by @key (0 ..
 * @nr - 1), in their order within a key. */
static int count_pass(int *out, const int *in, const int *key, int nr, int n)
{
	int *at = calloc((size_t)nr + 1, sizeof(int));
	if (!at)
		return -1;
	for (int i = 0; i < n; i++)
		at[key[in[i]] + 1]++;
	for (int d = 0; d < nr; d++)
		at[d + 1] += at[d];
	for (int i = 0; i < n; i++)
		out[at[key[in[i]]]++] = in[i];
	free(at);
	return 0;
}

/* The n CPUs into @cpus by (@key, @group if not NULL, number). */
static int sort_cpus(int *cpus, const int *key, int nr_key, const int *group, int nr_group, int n)
{
	int *by_number = malloc(sizeof(int) * (size_t)n), *by_group = malloc(sizeof(int) * (size_t)n);
	int rc = -1;
	if (!by_number || !by_group)
		goto out;
	for (int c = 0; c < n; c++)
		by_number[c] = c;
	if (group && count_pass(by_group, by_number, group, nr_group, n))
		goto out;
	rc = count_pass(cpus, group ? by_group : by_number, key, nr_key, n);
out:
	free(by_number);
	free(by_group);
	return rc;
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
	 * by number: a stable counting sort on the group, then on the domain
	 * (linear in the CPUs: a scan per (domain, group) pair was quadratic,
	 * 67 M steps at 4,096 CPUs) */
	const struct sd_map *ch = l ? &t->map[l - 1] : NULL;
	if (sort_cpus(mp->cpus, key, nr_dom, ch ? ch->dom_id : NULL, ch ? ch->nr_dom : 1, n))
		return -1;
	for (int i = 0; i < n; i++)
		mp->dom_start[mp->cpus[i]] = i && key[mp->cpus[i]] == key[mp->cpus[i - 1]]
						     ? mp->dom_start[mp->cpus[i - 1]] : i;
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
