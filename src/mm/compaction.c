/* Memory compaction, after mm/compaction.c (linux-next early 2026; large
 * folios are compacted from v6.9, switched by the base).
 *
 * Who compacts:
 *  - /proc/sys/vm/compact_memory, written every compact_memory_every_s of
 *    the scenario: compact_nodes() runs compact_node() on every node in
 *    turn, in the writer's context (on CPU 0), order -1 (the whole node),
 *    MIGRATE_SYNC;
 *  - kcompactd, one per node, woken by a large allocation that failed with
 *    __GFP_KSWAPD_RECLAIM (defrag=defer and defer+madvise): it compacts its
 *    node in MIGRATE_SYNC_LIGHT until a block of the order is free;
 *  - direct compaction of a first-touch THP allocation whose mask allows
 *    direct reclaim (set-up time, below).
 * A run isolates clusters of at most COMPACT_CLUSTER_MAX (32) pages of
 * movable folios on the node and migrates each cluster within the node
 * through migrate_pages (MR_COMPACTION), two steps a cluster (unmap and
 * flush, then move), so the TLB flushes and the tlb_flush_batched bumps are
 * the migration core's.
 *
 * The physical layout is modelled by counts (linux/mmzone.h): the free
 * blocks of each order per node.  Free pages below pageblock order are
 * holes in used pageblocks.  The free scanner's targets are those holes
 * (it never breaks up a free pageblock: suitable_migration_target); the
 * migrate scanner empties pageblocks: a run takes the node's occupancy of
 * its partly used pageblocks, u = 512 x used / (used + holes), and every u
 * source pages freed complete one empty pageblock, which takes with it the
 * 512 - u holes it had.  A run ends when no hole is left (the scanners
 * met), when the migrate scanner has been over the whole node, or, for an
 * order, when a block of it is free.  Without pfns, the migrate scanner
 * walks the node's PTE tables in address order, resuming where the last
 * run stopped.
 * Left out: proactive compaction (its fragmentation score is near zero
 * while free memory is in whole pageblocks, as here), compaction deferral,
 * skip hints, zones (one per node), non-LRU movable pages, the
 * per-pageblock migratetypes, the writer's lru_add_drain_all. */
#include <stdlib.h>

#include "linux/compaction.h"
#include "linux/migrate.h"
#include "linux/mm.h"
#include "kernel/sim.h"
#include "mm/internal.h"
#include "sim/bigalloc.h"

/* A kernel context that compacts: kcompactd/N, or the compact_memory
 * writer.  Its task_struct holds its unmap batch (tlb_ubc). */
struct compactor {
	struct task_struct task;
	struct migrate_ctx *ctx;
	uint32_t timer;
	bool kcompactd;
	bool queued;             /* kcompactd: woken, its work is due */
	int node;                /* the node of the run in progress, -1: idle */
	int order;               /* -1: the whole node */
	enum migrate_mode mode;
	bool moving;             /* a cluster is unmapped: its flush or move is next */
	bool flushed;            /* ... and flushed: its move is next */
	uint32_t tables_seen;    /* of the migrate scanner in this run */
	uint64_t scanned, isolated, free_taken;
	uint64_t migrated;       /* pages, over every run */
};

struct compact_state {
	struct compactor *kd;    /* per node */
	struct compactor writer;
	int writer_next;         /* the next node compact_nodes() takes */
	uint64_t next_forced;    /* ns */
	uint32_t timer_first;
	struct compactor *active;/* the one whose step is running */
};

/* ---- the free-block model ------------------------------------------------ */

int fragmentation_index(const struct sim *s, int nid, unsigned order)
{
	const struct pglist_data *pg = &s->pgdat[nid];
	uint64_t total = 0, suitable = 0;
	for (unsigned o = 0; o < NR_PAGE_ORDERS; o++) {
		total += pg->nr_free[o];
		if (o >= order)
			suitable += pg->nr_free[o] << (o - order);
	}
	if (!total)
		return 0;
	if (suitable)
		return -1000;
	uint64_t requested = 1ull << order;
	return 1000 - (int)((1000 + s->node_free_pages[nid] * 1000 / requested) / total);
}

bool compaction_suitable(const struct sim *s, int nid, unsigned order)
{
	if (node_has_free_block(s, nid, order))
		return false; /* the allocation would succeed: nothing to do */
	/* compact_gap: room for the pages in flight */
	if (s->node_free_pages[nid] < low_wmark_pages(&s->pgdat[nid]) + (2ull << order))
		return false;
	if (order > 3) { /* PAGE_ALLOC_COSTLY_ORDER */
		int fi = fragmentation_index(s, nid, order);
		if (fi >= 0 && fi <= EXTFRAG_THRESHOLD)
			return false; /* lack of memory, not fragmentation */
	}
	return true;
}

/* Take @n pages out of the holes (a pageblock being completed absorbs
 * them), smallest blocks first; returns how many were taken. */
static uint64_t take_holes(struct pglist_data *pg, uint64_t n)
{
	uint64_t taken = 0;
	for (unsigned o = 0; o < PAGEBLOCK_ORDER && taken < n; o++) {
		while (pg->nr_free[o] && taken < n) {
			uint64_t want = n - taken;
			pg->nr_free[o]--;
			if ((1ull << o) <= want) {
				taken += 1ull << o;
			} else {
				uint64_t rest = (1ull << o) - want;
				for (unsigned k = 0; k < o; k++)
					if (rest & (1ull << k))
						pg->nr_free[k]++;
				taken = n;
			}
		}
	}
	return taken;
}

bool compaction_alloc(struct sim *s, int nid, unsigned order)
{
	struct pglist_data *pg = &s->pgdat[nid];
	for (unsigned o = order; o < PAGEBLOCK_ORDER; o++) {
		if (!pg->nr_free[o])
			continue;
		pg->nr_free[o]--;
		for (unsigned k = order; k < o; k++)
			pg->nr_free[k]++;
		s->node_free_pages[nid] -= 1ull << order;
		if (s->compact->active)
			s->compact->active->free_taken += 1ull << order;
		return true;
	}
	return false; /* the free scanner found nothing: it met the migrate scanner */
}

void compaction_free(struct sim *s, int nid, unsigned order)
{
	free_pages_node(s, nid, order);
}

void compaction_free_source(struct sim *s, int nid, unsigned order)
{
	struct pglist_data *pg = &s->pgdat[nid];
	unsigned u = pg->compact_used ? pg->compact_used : PAGEBLOCK_NR_PAGES;
	s->node_free_pages[nid] += 1ull << order;
	pg->compact_pool += 1ull << order;
	while (pg->compact_pool >= u) {
		/* the pageblock is empty: its own holes join it */
		uint64_t had = take_holes(pg, PAGEBLOCK_NR_PAGES - u);
		pg->compact_pool -= u;
		if (had == PAGEBLOCK_NR_PAGES - u) {
			pg->nr_free[PAGEBLOCK_ORDER]++;
		} else { /* fewer holes than expected: what was gathered stays small */
			pg->nr_free[0] += had + u;
		}
	}
}

/* The start of a run on @nid: the occupancy of the pageblocks it empties. */
static void run_layout(struct sim *s, int nid)
{
	struct pglist_data *pg = &s->pgdat[nid];
	uint64_t node = s->m.mem_per_node_mib << (20 - PAGE_SHIFT);
	uint64_t used = node - s->node_free_pages[nid], holes = node_hole_pages(s, nid);
	uint64_t u = used + holes ? (PAGEBLOCK_NR_PAGES * used + (used + holes) / 2) / (used + holes) : 1;
	pg->compact_used = (unsigned)(u < 1 ? 1 : u > PAGEBLOCK_NR_PAGES ? PAGEBLOCK_NR_PAGES : u);
}

/* A run ends: what was freed into a pageblock not yet empty stays holes. */
static void run_release(struct sim *s, int nid)
{
	struct pglist_data *pg = &s->pgdat[nid];
	pg->nr_free[0] += pg->compact_pool;
	pg->compact_pool = 0;
}

/* ---- set-up ------------------------------------------------------------------ */

static int compactor_init(struct compactor *c, int pid, int cpu, uint32_t timer)
{
	c->task.pid = c->task.tgid = pid;
	c->task.idx = -1;
	c->task.cpu = cpu;
	c->timer = timer;
	c->node = -1;
	c->ctx = calloc(1, sizeof(*c->ctx));
	return c->ctx ? 0 : -1;
}

uint32_t compaction_nr_timers(const struct sim *s)
{
	return (uint32_t)s->m.nr_nodes + 1;
}

int compaction_init(struct sim *s)
{
	struct compact_state *cs = zalloc_aligned64(1, sizeof(*cs));
	if (!cs)
		return -1;
	s->compact = cs;
	cs->timer_first = s->nr_timers - compaction_nr_timers(s);
	cs->kd = zalloc_aligned64((size_t)s->m.nr_nodes, sizeof(*cs->kd));
	if (!cs->kd)
		return -1;
	for (int n = 0; n < s->m.nr_nodes; n++) {
		if (compactor_init(&cs->kd[n], 100 + n, node_kthread_cpu(s, n),
				   cs->timer_first + (uint32_t)n))
			return -1;
		cs->kd[n].kcompactd = true;
	}
	return compactor_init(&cs->writer, 90, 0, cs->timer_first + (uint32_t)s->m.nr_nodes);
}

void compaction_free_state(struct sim *s)
{
	struct compact_state *cs = s->compact;
	if (!cs)
		return;
	for (int n = 0; cs->kd && n < s->m.nr_nodes; n++) {
		free(cs->kd[n].ctx);
		tlb_ubc_free(&cs->kd[n].task.tlb_ubc);
	}
	free(cs->kd);
	free(cs->writer.ctx);
	tlb_ubc_free(&cs->writer.task.tlb_ubc);
	free(cs);
	s->compact = NULL;
}

void compaction_start(struct sim *s)
{
	struct compact_state *cs = s->compact;
	if (s->compact_every_ns) {
		cs->next_forced = s->compact_every_ns;
		timerq_set(&s->e.q, cs->writer.timer, cs->next_forced);
	}
}

/* ---- the migrate scanner --------------------------------------------------- */

static bool folio_isolatable(const struct sim *s, const struct compactor *c, struct folio f)
{
	const struct page_state *head = &f.fs->pg[f.idx];
	unsigned order = folio_order(f);
	if (head->flags2 & FOLIO2_FREED)
		return false; /* a free page: skipped by its order */
	if (head->flags & FOLIO_ISOLATED)
		return false; /* not on the LRU: another migration has it */
	if (order) {
		/* compound pages were skipped before v6.9; since, a folio of
		 * pageblock order or of the target's order is */
		if (!s->k.compact_large_folios || order >= PAGEBLOCK_ORDER ||
		    (c->order >= 0 && order >= (unsigned)c->order))
			return false;
	}
	if (folio_maybe_dma_pinned(f))
		return false;
	return true;
}

/* isolate_migratepages: the next cluster of the node's movable folios, from
 * the scanner's position; returns the pages isolated. */
static unsigned long isolate_cluster(struct sim *s, struct compactor *c)
{
	struct pglist_data *pg = &s->pgdat[c->node];
	struct migrate_ctx *ctx = c->ctx;
	unsigned long pages = 0;

	ctx->nr = 0;
	while (pages < COMPACT_CLUSTER_MAX && c->tables_seen < s->nr_tables) {
		uint32_t id = pg->compact_cursor % s->nr_tables;
		struct vm_area_struct *vma = s->table_vma[id];
		uint32_t ti = id - vma->first_table_id;
		struct pte_table *t = vma_pte_table(vma, ti); /* set up on first use */
		uint64_t i0 = (uint64_t)ti * PTRS_PER_PTE;
		uint64_t n = vma_pages(vma) - i0 < PTRS_PER_PTE ? vma_pages(vma) - i0 : PTRS_PER_PTE;
		uint64_t k = pg->compact_cursor_page;
		/* a store's pages are scanned once, through its first mapping */
		bool mine = vma == vma->store->mappers[0] && (!t->lazy || t->home_nid == c->node);
		if (mine)
			workload_table_sync(vma, t);
		while (mine && k < n && pages < COMPACT_CLUSTER_MAX) {
			uint64_t idx = vma->store_pgoff + i0 + k;
			struct folio f = page_folio(vma->store, idx);
			unsigned long nr = folio_nr_pages(f);
			k = f.idx + nr - vma->store_pgoff - i0; /* past the folio */
			if (f.fs->pg[f.idx].nid != c->node)
				continue;
			c->scanned += nr;
			charge(s, COST_MIGRATE, (double)nr * s->m.cost.pte_skip_ns);
			if (!folio_isolatable(s, c, f) || ctx->nr >= MAX_MIGRATE_FOLIOS)
				continue;
			f.fs->pg[f.idx].flags |= FOLIO_ISOLATED;
			ctx->folios[ctx->nr++] = f;
			pages += nr;
			c->isolated += nr;
		}
		if (!mine || k >= n) {
			pg->compact_cursor = (id + 1) % s->nr_tables;
			pg->compact_cursor_page = 0;
			c->tables_seen++;
		} else {
			pg->compact_cursor_page = (uint32_t)k;
		}
	}
	return pages;
}

/* compact_finished */
static bool run_finished(const struct sim *s, const struct compactor *c)
{
	if (c->tables_seen >= s->nr_tables || !node_hole_pages(s, c->node))
		return true; /* the scanners met */
	return c->order >= 0 && node_has_free_block(s, c->node, (unsigned)c->order);
}

static void run_begin(struct sim *s, struct compactor *c, int nid, int order, enum migrate_mode mode)
{
	c->node = nid;
	c->order = order;
	c->mode = mode;
	c->moving = false;
	c->tables_seen = 0;
	c->scanned = c->isolated = c->free_taken = 0;
	run_layout(s, nid);
}

static void run_end(struct sim *s, struct compactor *c)
{
	run_release(s, c->node);
	count_vm_events(s, COMPACTMIGRATE_SCANNED, c->scanned);
	count_vm_events(s, COMPACTFREE_SCANNED, c->free_taken);
	count_vm_events(s, COMPACTISOLATED, c->isolated + c->free_taken);
	if (c->kcompactd) {
		count_vm_events(s, KCOMPACTD_MIGRATE_SCANNED, c->scanned);
		count_vm_events(s, KCOMPACTD_FREE_SCANNED, c->free_taken);
	}
	c->node = -1;
}

/* One step of a run: the flush (and copy) of the last cluster's unmap; or
 * the move of the last cluster, then the next cluster's isolation and
 * unmap.  Returns false when the run is over. */
static bool run_step(struct sim *s, struct compactor *c)
{
	struct migrate_ctx *ctx = c->ctx;
	if (c->moving && !c->flushed) {
		/* the cluster's try_to_unmap_flush and copy, a step after its
		 * unmap */
		migrate_pages_flush(s, ctx);
		c->flushed = true;
		return true;
	}
	if (c->moving) {
		int rc = migrate_pages_finish(s, ctx);
		c->moving = false;
		c->migrated += ctx->nr_succeeded;
		if (rc < 0) { /* -ENOMEM: no free target left */
			run_end(s, c);
			return false;
		}
	}
	if (run_finished(s, c) || !isolate_cluster(s, c)) {
		run_end(s, c);
		return false;
	}
	ctx->target_nid = c->node;
	ctx->mode = c->mode;
	ctx->reason = MR_COMPACTION;
	ctx->setup_prepaid = false;
	ctx->old_thp_path = false;
	migrate_pages_begin(s, ctx);
	c->moving = true;
	c->flushed = false;
	return true;
}

int compaction_migrations_in_flight(const struct sim *s, const struct migrate_ctx **ctx, int max)
{
	const struct compact_state *cs = s->compact;
	int n = 0;
	if (!cs)
		return 0;
	for (int i = 0; cs->kd && i < s->m.nr_nodes && n < max; i++)
		if (cs->kd[i].moving && cs->kd[i].ctx)
			ctx[n++] = cs->kd[i].ctx;
	if (cs->writer.moving && cs->writer.ctx && n < max)
		ctx[n++] = cs->writer.ctx;
	return n;
}

/* ---- kcompactd and compact_memory ------------------------------------------ */

void wakeup_kcompactd(struct sim *s, int nid, unsigned order)
{
	struct compactor *c = &s->compact->kd[nid];
	struct pglist_data *pg = &s->pgdat[nid];
	if (!order)
		return;
	if ((int)order > pg->kcompactd_max_order)
		pg->kcompactd_max_order = (int)order;
	if (c->queued || c->node >= 0 || !compaction_suitable(s, nid, order))
		return; /* running, or kcompactd_node_suitable says no */
	c->queued = true;
	timerq_set(&s->e.q, c->timer, sim_now(s));
}

static void kcompactd_timer(struct sim *s, struct compactor *c, int nid, uint64_t now)
{
	struct pglist_data *pg = &s->pgdat[nid];
	sim_enter(s, &c->task, now);
	s->compact->active = c;
	if (c->queued) { /* kcompactd_do_work */
		c->queued = false;
		count_vm_event(s, KCOMPACTD_WAKE);
		int order = pg->kcompactd_max_order;
		pg->kcompactd_max_order = -1;
		if (order <= 0 || !compaction_suitable(s, nid, (unsigned)order)) {
			s->compact->active = NULL;
			return;
		}
		run_begin(s, c, nid, order, MIGRATE_SYNC_LIGHT);
	}
	if (c->node >= 0 && run_step(s, c))
		timerq_set(&s->e.q, c->timer, sim_now(s));
	s->compact->active = NULL;
}

static void writer_timer(struct sim *s, struct compactor *c, uint64_t now)
{
	struct compact_state *cs = s->compact;
	sim_enter(s, &c->task, now);
	cs->active = c;
	if (c->node < 0) { /* echo 1 > /proc/sys/vm/compact_memory: compact_nodes */
		cs->writer_next = 0;
		run_begin(s, c, cs->writer_next++, -1, MIGRATE_SYNC);
	}
	while (!run_step(s, c)) {
		if (cs->writer_next >= s->m.nr_nodes) { /* every node done: the next write */
			while (cs->next_forced <= sim_now(s))
				cs->next_forced += s->compact_every_ns;
			if (cs->next_forced < s->duration_ns)
				timerq_set(&s->e.q, c->timer, cs->next_forced);
			cs->active = NULL;
			return;
		}
		run_begin(s, c, cs->writer_next++, -1, MIGRATE_SYNC);
	}
	timerq_set(&s->e.q, c->timer, sim_now(s));
	cs->active = NULL;
}

void compaction_timer(struct sim *s, uint32_t id, uint64_t now)
{
	struct compact_state *cs = s->compact;
	uint32_t k = id - cs->timer_first;
	if (k < (uint32_t)s->m.nr_nodes)
		kcompactd_timer(s, &cs->kd[k], (int)k, now);
	else
		writer_timer(s, &cs->writer, now);
}

unsigned long compact_node_sync(struct sim *s, int nid, uint64_t now)
{
	struct compactor *c = &s->compact->writer;
	uint64_t before = c->migrated;
	sim_enter(s, &c->task, now);
	s->compact->active = c;
	run_begin(s, c, nid, -1, MIGRATE_SYNC);
	while (run_step(s, c))
		;
	s->compact->active = NULL;
	return (unsigned long)(c->migrated - before);
}

/* ---- direct compaction at set-up --------------------------------------------- */

/* try_to_compact_pages for a first-touch allocation.  First touch happens
 * at set-up, before any task runs: no TLB holds anything and a migration
 * within the node leaves every PTE as it was, so the model applies its
 * result -- the pages it moves and the pageblock it gathers -- and counts
 * it, without simulating the moves one by one. */
void try_to_compact_pages(struct sim *s, int nid, unsigned order, int cpu)
{
	if (!compaction_suitable(s, nid, order))
		return; /* COMPACT_SKIPPED: not counted as a stall */
	count_vm_events_cpu(s, cpu, COMPACTSTALL, 1);
	run_layout(s, nid);
	uint64_t moved = 0;
	while (!node_has_free_block(s, nid, order) && compaction_alloc(s, nid, 0)) {
		compaction_free_source(s, nid, 0);
		moved++;
	}
	run_release(s, nid);
	count_vm_events_cpu(s, cpu, PGMIGRATE_SUCCESS, moved);
	count_vm_events_cpu(s, cpu, COMPACTMIGRATE_SCANNED, moved);
	count_vm_events_cpu(s, cpu, COMPACTFREE_SCANNED, moved);
	count_vm_events_cpu(s, cpu, COMPACTISOLATED, 2 * moved);
	count_vm_events_cpu(s, cpu, node_has_free_block(s, nid, order) ? COMPACTSUCCESS : COMPACTFAIL, 1);
}
