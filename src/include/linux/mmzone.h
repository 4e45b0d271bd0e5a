/* Per-node memory state (include/linux/mmzone.h's pglist_data and the
 * buddy allocator's free_area), as far as the model needs it.
 *
 * The model has no pfns, so the buddy allocator is kept as counts: how many
 * free blocks of each order a node has.  An allocation takes the smallest
 * block that fits and splits it (expand), as __rmqueue_smallest does; a
 * free puts the block back at its own order.  Without pfns no buddy can be
 * found to merge with, so freed pages stay at their order until compaction
 * gathers them: that is what fragmentation is here.  The largest block is a
 * pageblock (order 9, 2 MiB): nothing in the model needs the kernel's
 * order-10 blocks. */
#ifndef NUMASIM_MMZONE_H
#define NUMASIM_MMZONE_H

#include <stdbool.h>
#include <stdint.h>

#define NR_PAGE_ORDERS 10     /* orders 0 .. pageblock_order */
#define PAGEBLOCK_ORDER 9
#define PAGEBLOCK_NR_PAGES (1ul << PAGEBLOCK_ORDER)

enum zone_watermarks {
	WMARK_MIN,
	WMARK_LOW,
	WMARK_HIGH,
	WMARK_PROMO,  /* v6.1: where kswapd stops when tiering promotes */
	NR_WMARK
};

/* Node statistics of the memory-tiering paths (enum node_stat_item's
 * PGPROMOTE_* and PGDEMOTE_*), per node: the candidate count is what the
 * promotion rate limit reads. */
enum node_stat_item {
	PGPROMOTE_SUCCESS,
	PGPROMOTE_CANDIDATE,
	PGPROMOTE_CANDIDATE_NRL,  /* promoted with room to spare, no rate limit (2025) */
	PGDEMOTE_KSWAPD,
	PGDEMOTE_DIRECT,
	NR_NODE_STAT_ITEMS
};
extern const char *const node_stat_names[NR_NODE_STAT_ITEMS];

struct pglist_data {
	uint64_t nr_free[NR_PAGE_ORDERS];  /* free_area[order].nr_free */
	uint64_t watermark[NR_WMARK];      /* the node's one zone's _watermark[] */
	uint64_t stat[NR_NODE_STAT_ITEMS]; /* node_page_state */
	/* memory tiering's promotion (kernel/sched/fair.c), on the fast node */
	unsigned nbp_rl_start;             /* ms: the rate limit's window start */
	uint64_t nbp_rl_nr_cand;           /* candidates at that start */
	unsigned nbp_th_start;             /* ms: the threshold's adjust period start */
	uint64_t nbp_th_nr_cand;
	unsigned nbp_threshold;            /* ms, 0: the default */
	/* compaction (mm/compaction.c) */
	int kcompactd_max_order;           /* the largest order asked for since it last ran, -1: none */
	uint32_t compact_cursor;           /* where the migrate scanner resumes: a table id ... */
	uint32_t compact_cursor_page;      /* ... and a page in it */
	uint64_t compact_pool;             /* pages freed into the pageblock being emptied */
	unsigned compact_used;             /* used pages of a pageblock compaction empties */
	uint64_t held_pages;               /* memory the workload's pages do not use (a memory eater) */
	/* the deferred split queue (mm/huge_memory.c), as a count */
	uint64_t split_queue_len;
};

struct sim;

/* Set every node's free blocks from the machine's memory, and its
 * watermarks (setup_per_zone_wmarks). */
void pgdat_init(struct sim *s);
static inline uint64_t min_wmark_pages(const struct pglist_data *pg) { return pg->watermark[WMARK_MIN]; }
static inline uint64_t low_wmark_pages(const struct pglist_data *pg) { return pg->watermark[WMARK_LOW]; }
static inline uint64_t high_wmark_pages(const struct pglist_data *pg) { return pg->watermark[WMARK_HIGH]; }
static inline uint64_t promo_wmark_pages(const struct pglist_data *pg) { return pg->watermark[WMARK_PROMO]; }
/* Allocate one block of @order on node @nid; false if it has none that large. */
bool alloc_pages_node(struct sim *s, int nid, unsigned order);
/* @nr base pages on @nid, as order-0 allocations would take them (smallest
 * blocks first); false, taking nothing, if the node has fewer free pages. */
bool alloc_pages_bulk_node(struct sim *s, int nid, uint64_t nr);
void free_pages_node(struct sim *s, int nid, unsigned order);
/* The per-node NUMA allocation counters (enum numa_stat_item, as
 * /sys/devices/system/node/nodeN/vmstat and numastat print them). */
enum numa_stat_item {
	NUMA_HIT,             /* allocated on the node the allocation preferred */
	NUMA_MISS,            /* allocated here, preferred elsewhere */
	NUMA_FOREIGN,         /* preferred here, allocated elsewhere */
	NUMA_INTERLEAVE_HIT,  /* an interleave allocation on its interleave node */
	NUMA_LOCAL,           /* allocated here by a CPU of this node */
	NUMA_OTHER,           /* allocated here by a CPU of another node */
	NR_NUMA_STAT_ITEMS
};
extern const char *const numa_stat_names[NR_NUMA_STAT_ITEMS];
/* zone_statistics: @nr pages allocated on @nid, the allocation preferring
 * @preferred, made by a CPU of node @local. */
void zone_statistics(struct sim *s, int preferred, int nid, int local, unsigned long nr);
/* An MPOL_(WEIGHTED_)INTERLEAVE allocation landed on its interleave node. */
void count_numa_interleave_hit(struct sim *s, int nid);
void count_numa_interleave_hits(struct sim *s, int nid, unsigned long nr);

/* zone_watermark_ok for @nr order-0 pages: free pages stay at or above
 * @mark after taking them. */
static inline bool node_watermark_ok(const uint64_t *free_pages, const struct pglist_data *pg,
				     enum zone_watermarks mark, uint64_t nr)
{
	return *free_pages >= pg->watermark[mark] + nr;
}
/* mm/vmscan.c: wake node @nid's kswapd for an allocation of @order. */
void wakeup_kswapd(struct sim *s, int nid, unsigned order);

/* A free block of at least @order on @nid? */
bool node_has_free_block(const struct sim *s, int nid, unsigned order);
/* Free pages in blocks smaller than a pageblock: the holes compaction can fill. */
uint64_t node_hole_pages(const struct sim *s, int nid);

#endif
