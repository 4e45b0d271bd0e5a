/* The buddy allocator as per-order counts of free blocks per node (see
 * linux/mmzone.h): __rmqueue_smallest and expand for allocations, the
 * free lists without merging for frees.  node_free_pages[] stays the total
 * every watermark test reads. */
#include "linux/mmzone.h"
#include "kernel/sim.h"

/* int_sqrt */
static uint64_t isqrt(uint64_t x)
{
	uint64_t r = 0;
	for (uint64_t b = 1ull << 62; b; b >>= 2) {
		if (x >= r + b) {
			x -= r + b;
			r = (r >> 1) + b;
		} else {
			r >>= 1;
		}
	}
	return r;
}

#define WATERMARK_SCALE_FACTOR 10 /* vm.watermark_scale_factor's default */

/* calculate_min_free_kbytes and __setup_per_zone_wmarks (v6.12; WMARK_PROMO
 * since v6.1): min_free_kbytes = sqrt(16 x memory in KiB), clamped to
 * 128 KiB .. 256 MiB, split over the nodes by size; low and high add
 * max(min / 4, 0.1% of the node) each, promo once more.  The model has one
 * zone per node, all of it managed.  Left out: the larger min_free_kbytes
 * khugepaged sets when THP is enabled (set_recommended_min_free_kbytes),
 * watermark boosting, lowmem reserves. */
static void setup_per_zone_wmarks(struct sim *s)
{
	uint64_t total = 0;
	for (int n = 0; n < s->m.nr_nodes; n++)
		total += machine_node_pages(&s->m, n);
	uint64_t min_free_kbytes = isqrt(total * (PAGE_SIZE >> 10) * 16);
	min_free_kbytes = min_free_kbytes < 128 ? 128 : min_free_kbytes > 262144 ? 262144 : min_free_kbytes;
	uint64_t pages_min = min_free_kbytes >> (PAGE_SHIFT - 10);
	for (int n = 0; n < s->m.nr_nodes; n++) {
		uint64_t managed = machine_node_pages(&s->m, n), *w = s->pgdat[n].watermark;
		uint64_t min = total ? pages_min * managed / total : 0;
		uint64_t scale = managed * WATERMARK_SCALE_FACTOR / 10000;
		uint64_t step = min >> 2 > scale ? min >> 2 : scale;
		w[WMARK_MIN] = min;
		w[WMARK_LOW] = min + step;
		w[WMARK_HIGH] = w[WMARK_LOW] + step;
		w[WMARK_PROMO] = w[WMARK_HIGH] + step;
	}
}

void pgdat_init(struct sim *s)
{
	setup_per_zone_wmarks(s);
	for (int n = 0; n < s->m.nr_nodes; n++) {
		struct pglist_data *pg = &s->pgdat[n];
		uint64_t pages = s->node_free_pages[n];
		for (int o = 0; o < NR_PAGE_ORDERS; o++)
			pg->nr_free[o] = 0;
		pg->nr_free[PAGEBLOCK_ORDER] = pages >> PAGEBLOCK_ORDER;
		for (int o = 0; o < PAGEBLOCK_ORDER; o++)
			if (pages & (1ull << o))
				pg->nr_free[o]++;
		pg->kcompactd_max_order = -1;
	}
}

/* Split a free block of @from down to @to: the halves not used stay free
 * (expand). */
static void expand(struct pglist_data *pg, unsigned from, unsigned to)
{
	for (unsigned o = to; o < from; o++)
		pg->nr_free[o]++;
}

bool alloc_pages_node(struct sim *s, int nid, unsigned order)
{
	struct pglist_data *pg = &s->pgdat[nid];
	for (unsigned o = order; o < NR_PAGE_ORDERS; o++) {
		if (!pg->nr_free[o])
			continue;
		pg->nr_free[o]--;
		expand(pg, o, order);
		s->node_free_pages[nid] -= 1ull << order;
		return true;
	}
	return false;
}

bool alloc_pages_bulk_node(struct sim *s, int nid, uint64_t nr)
{
	struct pglist_data *pg = &s->pgdat[nid];
	if (s->node_free_pages[nid] < nr)
		return false;
	s->node_free_pages[nid] -= nr;
	for (unsigned o = 0; nr && o < NR_PAGE_ORDERS; o++) {
		if (!pg->nr_free[o])
			continue; /* nothing to take (set-up's tables: up to the pageblocks) */
		/* whole blocks of this order first, smallest order first */
		uint64_t take = nr >> o;
		if (take > pg->nr_free[o])
			take = pg->nr_free[o];
		pg->nr_free[o] -= take;
		nr -= take << o;
		if (nr && nr < (1ull << o) && pg->nr_free[o]) {
			/* part of one block: the rest of it stays free as the
			 * binary pieces of what is left (expand, page by page) */
			uint64_t rest = (1ull << o) - nr;
			pg->nr_free[o]--;
			for (unsigned k = 0; k < o; k++)
				if (rest & (1ull << k))
					pg->nr_free[k]++;
			nr = 0;
		}
	}
	/* the loop always ends with nr == 0: a smaller remainder is taken from
	 * a larger block, and the total was checked above */
	return true;
}

void free_pages_node(struct sim *s, int nid, unsigned order)
{
	s->pgdat[nid].nr_free[order]++;
	s->node_free_pages[nid] += 1ull << order;
}

/* The names of mm/vmstat.c's vmstat_text. */
const char *const node_stat_names[NR_NODE_STAT_ITEMS] = {
	[PGPROMOTE_SUCCESS] = "pgpromote_success",
	[PGPROMOTE_CANDIDATE] = "pgpromote_candidate",
	[PGPROMOTE_CANDIDATE_NRL] = "pgpromote_candidate_nrl",
	[PGDEMOTE_KSWAPD] = "pgdemote_kswapd",
	[PGDEMOTE_DIRECT] = "pgdemote_direct",
};

const char *const numa_stat_names[NR_NUMA_STAT_ITEMS] = {
	[NUMA_HIT] = "numa_hit",
	[NUMA_MISS] = "numa_miss",
	[NUMA_FOREIGN] = "numa_foreign",
	[NUMA_INTERLEAVE_HIT] = "numa_interleave",
	[NUMA_LOCAL] = "numa_local",
	[NUMA_OTHER] = "numa_other",
};

/* zone_statistics, after mm/page_alloc.c (v5.16+, counted in pages):
 * hit on the node if it is the preferred zone's, else a miss there and a
 * foreign on the preferred node; local or other by the allocating CPU's
 * node.  The model has one zone per node. */
void zone_statistics(struct sim *s, int preferred, int nid, int local, unsigned long nr)
{
	uint64_t *z = &s->node_numa[(size_t)nid * NR_NUMA_STAT_ITEMS];
	if (nid == preferred) {
		z[NUMA_HIT] += nr;
	} else {
		z[NUMA_MISS] += nr;
		s->node_numa[(size_t)preferred * NR_NUMA_STAT_ITEMS + NUMA_FOREIGN] += nr;
	}
	z[nid == local ? NUMA_LOCAL : NUMA_OTHER] += nr;
}

/* alloc_pages_mpol counts one per allocation (not per page) when an
 * interleave policy's page is on the node it chose. */
void count_numa_interleave_hit(struct sim *s, int nid)
{
	s->node_numa[(size_t)nid * NR_NUMA_STAT_ITEMS + NUMA_INTERLEAVE_HIT]++;
}

/* count_numa_interleave_hit for @nr allocations at once. */
void count_numa_interleave_hits(struct sim *s, int nid, unsigned long nr)
{
	s->node_numa[(size_t)nid * NR_NUMA_STAT_ITEMS + NUMA_INTERLEAVE_HIT] += nr;
}

bool node_has_free_block(const struct sim *s, int nid, unsigned order)
{
	for (unsigned o = order; o < NR_PAGE_ORDERS; o++)
		if (s->pgdat[nid].nr_free[o])
			return true;
	return false;
}

uint64_t node_hole_pages(const struct sim *s, int nid)
{
	uint64_t n = 0;
	for (unsigned o = 0; o < PAGEBLOCK_ORDER; o++)
		n += s->pgdat[nid].nr_free[o] << o;
	return n;
}
