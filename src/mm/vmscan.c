/* Page reclaim, after mm/vmscan.c (v6.12), as far as memory tiering needs
 * it: kswapd demoting the cold anonymous folios of a node to the next tier
 * down.  The model has no swap and no page cache, so demotion is the only
 * reclaim there is; without a lower tier (or with demotion_enabled off),
 * kswapd finds nothing it can reclaim.
 *
 * kswapd/N wakes when a promotion finds node N short of room
 * (migrate_misplaced_folio_prepare) or when a first touch takes a node
 * below its low watermark (the allocator's slow path), and reclaims until
 * the node is balanced: its free pages above the high watermark, or the
 * promo watermark in memory tiering mode (pgdat_balanced, c574bbe91703).
 * Each round of shrink_inactive_list isolates up to SWAP_CLUSTER_MAX
 * folios; shrink_folio_list checks each one's references
 * (folio_referenced): a folio referenced since kswapd last looked is kept,
 * the others go on the demote list, and demote_folio_list migrates the
 * list with migrate_pages(MIGRATE_ASYNC, MR_DEMOTION) to the node's
 * demotion target -- one batched TLB flush for the list since v6.3
 * (7e12beb8ca2a), a flush per folio before.  Counted in pgdemote_kswapd
 * on the source node.  A run that reclaims nothing counts a failure; after
 * MAX_RECLAIM_RETRIES of them the node is hopeless and wake-ups are
 * ignored until a run reclaims again.
 *
 * The LRU is modelled as a clock: kswapd walks the node's folios in the
 * order of the workload's page tables, resuming where it stopped, and a
 * folio counts as referenced with the probability that the workload
 * touched it since the hand last passed its table, 1 - e^(-rate x dt),
 * from its touch rate (workload/touch.h) and dt the time its toucher ran
 * since: a private slice's owner's CPU time, a shared region's wall
 * time.  Left out: the active and
 * inactive lists and their balance (inactive_is_low), the second reference
 * that activates a folio (FOLIOREF_ACTIVATE: here a referenced folio is
 * only kept), MGLRU (on by default in Debian's 6.12: its generations are
 * not modelled), direct reclaim, memcg, the khugepaged and proactive
 * demotion counters. */
#include <math.h>
#include <stdlib.h>

#include "linux/migrate.h"
#include "linux/mm.h"
#include "linux/mmzone.h"
#include "linux/vmscan.h"
#include "kernel/sim.h"
#include "mm/internal.h"
#include "sim/bigalloc.h"

#define SWAP_CLUSTER_MAX 32
#define MAX_RECLAIM_RETRIES 16

struct kswapd {
	struct task_struct task; /* kswapd/N; holds its unmap batch (tlb_ubc) */
	struct migrate_ctx *ctx;
	uint32_t timer;
	bool queued;             /* woken, its work is due */
	bool running;            /* balance_pgdat in progress */
	bool moving, flushed;    /* a demote list is unmapped / and flushed */
	int src;                 /* the list's node */
	unsigned failures;       /* pgdat->kswapd_failures */
	uint32_t cursor, cursor_page; /* the LRU clock's hand: table id, page */
	uint32_t tables_seen;    /* in this run */
	uint64_t reclaimed;      /* in this run */
	struct rng rng;          /* which folios the workload referenced */
};

struct vmscan_state {
	struct kswapd *kd;       /* per node */
	uint32_t timer_first;
};

uint32_t vmscan_nr_timers(const struct sim *s)
{
	return s->tiers.has_slow_tier ? (uint32_t)s->m.nr_nodes : 0;
}

int vmscan_init(struct sim *s, uint32_t timer_first)
{
	if (!vmscan_nr_timers(s))
		return 0;
	struct vmscan_state *vs = calloc(1, sizeof(*vs));
	if (!vs)
		return -1;
	s->vmscan = vs;
	vs->timer_first = timer_first;
	vs->kd = zalloc_aligned64((size_t)s->m.nr_nodes, sizeof(*vs->kd));
	if (!vs->kd)
		return -1;
	for (int n = 0; n < s->m.nr_nodes; n++) {
		struct kswapd *k = &vs->kd[n];
		k->task.pid = k->task.tgid = 200 + n;
		k->task.idx = -1;
		k->task.cpu = node_kthread_cpu(s, n);
		k->timer = timer_first + (uint32_t)n;
		k->rng = rng_stream(s->seed, RNG_RECLAIM, (uint64_t)n);
		k->ctx = calloc(1, sizeof(*k->ctx));
		if (!k->ctx)
			return -1;
	}
	return 0;
}

void vmscan_free(struct sim *s)
{
	struct vmscan_state *vs = s->vmscan;
	if (!vs)
		return;
	for (int n = 0; vs->kd && n < s->m.nr_nodes; n++) {
		free(vs->kd[n].ctx);
		tlb_ubc_free(&vs->kd[n].task.tlb_ubc);
	}
	free(vs->kd);
	free(vs);
	s->vmscan = NULL;
}

/* pgdat_balanced: free pages above the high watermark, or the promo one
 * in memory tiering mode, where promotion needs room to land. */
static bool pgdat_balanced(const struct sim *s, int nid)
{
	const struct pglist_data *pg = &s->pgdat[nid];
	uint64_t mark = numa_tiering_mode(s) ? promo_wmark_pages(pg) : high_wmark_pages(pg);
	return s->node_free_pages[nid] > mark;
}

/* can_demote: demotion enabled and the node has a target. */
static bool can_demote(const struct sim *s, int nid)
{
	return s->t.demotion_enabled && s->tiers.preferred[nid];
}

void wakeup_kswapd(struct sim *s, int nid, unsigned order)
{
	(void)order; /* no high-order reclaim without compaction's help here */
	s->kswapd_wakes++;
	struct kswapd *k = s->vmscan ? &s->vmscan->kd[nid] : NULL;
	if (!k || k->queued || k->running)
		return;
	/* hopeless, or balanced already: kswapd stays asleep */
	if (k->failures >= MAX_RECLAIM_RETRIES || pgdat_balanced(s, nid))
		return;
	k->queued = true;
	timerq_set(&s->e.q, k->timer, sim_now(s));
}

/* folio_referenced, as the chance that the workload touched a page of the
 * folio since the hand last passed its table. */
static bool folio_referenced(struct sim *s, struct kswapd *k, struct vm_area_struct *vma,
			     struct pte_table *t, struct folio f, double dt_ns)
{
	const double *rate = &s->w.touch.rate[2 * (size_t)t->group];
	double r = 0;
	for (unsigned long i = 0; i < folio_nr_pages(f); i++) {
		uint64_t a = vma_address(vma, f.idx + i);
		bool hot = a && (vma->ptes[pte_index(vma, a)] & PTE_SIM_HOT);
		r += rate[hot ? 0 : 1] * (t->weight ? t->weight : 1);
	}
	return rng_unit(&k->rng) < 1 - exp(-r * dt_ns);
}

/* The clock a table's touches run by: its slice owner's CPU time (a
 * sleeping thread touches nothing), or the wall time for a shared region,
 * whose toucher rate is its process's. */
static uint64_t touch_clock(const struct sim *s, const struct pte_table *t, uint64_t now)
{
	if (t->group < s->w.touch.nr_slices)
		return task_sum_exec_runtime(&s->tasks[s->w.toucher[t->group]], now);
	return now;
}

/* -ln(1e-12): a page touched at this rate x time or more was referenced
 * with a chance above 1 - 1e-12 */
#define SURELY_REFERENCED 27.6

/* Whether every page of table @t was surely referenced within @dt_ns: its
 * least-touched kind of page (cold, if it has any) at its rate.  Such a
 * table is passed over whole, its folios charged as looked at, without a
 * draw each (the one approximation of the clock: at most a 1e-12 chance a
 * folio, lost). */
static bool table_surely_referenced(const struct sim *s, const struct pte_table *t, double dt_ns)
{
	const double *rate = &s->w.touch.rate[2 * (size_t)t->group];
	double least = rate[1] > 0 ? rate[1] : rate[0];
	return least * (t->weight ? t->weight : 1) * dt_ns > SURELY_REFERENCED;
}

/* The pages of table @t on @nid that the clock would look at. */
static unsigned long table_pages_on(const struct vm_area_struct *vma, const struct pte_table *t,
				    uint64_t i0, uint64_t n, int nid)
{
	if (t->lazy)
		return t->home_nid == nid ? (unsigned long)n : 0;
	unsigned long pages = 0;
	for (uint64_t p = 0; p < n; p++)
		pages += vma->store->pg[vma->store_pgoff + i0 + p].nid == nid;
	return pages;
}

/* shrink_inactive_list + shrink_folio_list for one batch: the next
 * SWAP_CLUSTER_MAX unreferenced folios of the node onto the demote list,
 * from the hand's position.  Returns the pages listed. */
static unsigned long isolate_demote_list(struct sim *s, struct kswapd *k, int nid)
{
	struct migrate_ctx *ctx = k->ctx;
	unsigned long pages = 0;
	uint64_t now = sim_now(s);
	ctx->nr = 0;
	while (ctx->nr < SWAP_CLUSTER_MAX && k->tables_seen < s->nr_tables) {
		uint32_t id = k->cursor % s->nr_tables;
		struct vm_area_struct *vma = s->table_vma[id];
		uint32_t ti = id - vma->first_table_id;
		struct pte_table *t = vma_pte_table(vma, ti); /* set up on first use */
		uint64_t i0 = (uint64_t)ti * PTRS_PER_PTE;
		uint64_t n = vma_pages(vma) - i0 < PTRS_PER_PTE ? vma_pages(vma) - i0 : PTRS_PER_PTE;
		uint64_t p = k->cursor_page;
		/* a store's folios are on the LRU once: seen through its first mapping */
		bool mine = vma == vma->store->mappers[0] && (!t->lazy || t->home_nid == nid);
		uint64_t clock = mine ? touch_clock(s, t, now) : 0;
		double dt = clock > t->aged_at ? (double)(clock - t->aged_at) : 0;
		if (mine && !p && table_surely_referenced(s, t, dt)) {
			charge(s, COST_MIGRATE, (double)table_pages_on(vma, t, i0, n, nid) *
							s->m.cost.lru_scan_ns);
			p = n; /* every folio kept */
		}
		if (mine && p < n)
			workload_table_sync(vma, t);
		while (mine && p < n && ctx->nr < SWAP_CLUSTER_MAX) {
			struct folio f = page_folio(vma->store, vma->store_pgoff + i0 + p);
			const struct page_state *head = &f.fs->pg[f.idx];
			unsigned long nr = folio_nr_pages(f);
			p = f.idx + nr - vma->store_pgoff - i0; /* past the folio */
			if (head->nid != nid || (head->flags2 & FOLIO2_FREED) ||
			    (head->flags & FOLIO_ISOLATED) || folio_maybe_dma_pinned(f))
				continue;
			charge(s, COST_MIGRATE, (double)nr * s->m.cost.lru_scan_ns);
			if (folio_referenced(s, k, vma, t, f, dt))
				continue; /* FOLIOREF_KEEP */
			f.fs->pg[f.idx].flags |= FOLIO_ISOLATED;
			ctx->folios[ctx->nr++] = f;
			pages += nr;
		}
		if (!mine || p >= n) {
			if (mine)
				t->aged_at = clock;
			k->cursor = (id + 1) % s->nr_tables;
			k->cursor_page = 0;
			k->tables_seen++;
		} else {
			k->cursor_page = (uint32_t)p;
		}
	}
	return pages;
}

/* next_demotion_node, then node_get_allowed_targets' fallback: a node of
 * the next tier down at the best distance (one at random among equals,
 * as node_random does), else any lower-tier node with room for @nr pages
 * above its min watermark (alloc_demote_folio without reclaim). */
static int demotion_target(struct sim *s, struct kswapd *k, int nid, unsigned long nr)
{
	uint64_t pref = s->tiers.preferred[nid];
	int count = __builtin_popcountll(pref);
	int pick = count > 1 ? (int)rng_below(&k->rng, (uint64_t)count) : 0;
	for (int t = 0, seen = 0; t < s->m.nr_nodes; t++)
		if ((pref >> t) & 1 && seen++ == pick &&
		    s->node_free_pages[t] > min_wmark_pages(&s->pgdat[t]) + nr)
			return t;
	for (int t = 0; t < s->m.nr_nodes; t++)
		if ((s->tiers.lower_tier_mask[nid] >> t) & 1 &&
		    s->node_free_pages[t] > min_wmark_pages(&s->pgdat[t]) + nr)
			return t;
	return NUMA_NO_NODE;
}

static void putback_list(struct migrate_ctx *ctx)
{
	for (int i = 0; i < ctx->nr; i++)
		ctx->folios[i].fs->pg[ctx->folios[i].idx].flags &= (uint8_t)~FOLIO_ISOLATED;
	ctx->nr = 0;
}

static void run_end(struct kswapd *k)
{
	k->running = false;
	if (k->reclaimed)
		k->failures = 0;
	else
		k->failures++;
}

/* One step of balance_pgdat: the flush of the last list's unmap; or its
 * move; or, the node not yet balanced, the next list's isolation and
 * unmap.  Returns false when the run is over. */
static bool kswapd_step(struct sim *s, struct kswapd *k, int nid)
{
	struct migrate_ctx *ctx = k->ctx;
	if (k->moving && !k->flushed) {
		migrate_pages_flush(s, ctx);
		k->flushed = true;
		return true;
	}
	if (k->moving) {
		migrate_pages_finish(s, ctx);
		k->moving = false;
		k->reclaimed += ctx->nr_succeeded;
		s->pgdat[nid].stat[PGDEMOTE_KSWAPD] += ctx->nr_succeeded;
	}
	if (pgdat_balanced(s, nid) || !can_demote(s, nid) || k->tables_seen >= s->nr_tables) {
		run_end(k);
		return false;
	}
	unsigned long nr = isolate_demote_list(s, k, nid);
	if (!nr)
		return true; /* the next step goes on scanning (or ends the lap) */
	int target = demotion_target(s, k, nid, nr);
	if (target == NUMA_NO_NODE) {
		putback_list(ctx);
		run_end(k);
		return false;
	}
	ctx->target_nid = target;
	ctx->mode = MIGRATE_ASYNC;
	ctx->reason = MR_DEMOTION;
	ctx->setup_prepaid = false;
	ctx->old_thp_path = false;
	ctx->promote = false;
	migrate_pages_begin(s, ctx);
	k->moving = true;
	k->flushed = false;
	return true;
}

void vmscan_timer(struct sim *s, uint32_t id, uint64_t now)
{
	int nid = (int)(id - s->vmscan->timer_first);
	struct kswapd *k = &s->vmscan->kd[nid];
	sim_enter(s, &k->task, now);
	if (k->queued) { /* kswapd wakes: balance_pgdat */
		k->queued = false;
		k->running = true;
		k->tables_seen = 0;
		k->reclaimed = 0;
	}
	if (k->running && kswapd_step(s, k, nid))
		timerq_set(&s->e.q, k->timer, sim_now(s));
}

unsigned long kswapd_run_sync(struct sim *s, int nid, uint64_t now)
{
	struct kswapd *k = &s->vmscan->kd[nid];
	uint64_t before = s->pgdat[nid].stat[PGDEMOTE_KSWAPD];
	sim_enter(s, &k->task, now);
	wakeup_kswapd(s, nid, 0);
	if (!k->queued)
		return 0;
	timerq_cancel(&s->e.q, k->timer);
	vmscan_timer(s, k->timer, now);
	while (k->running)
		vmscan_timer(s, k->timer, sim_now(s));
	timerq_cancel(&s->e.q, k->timer);
	return (unsigned long)(s->pgdat[nid].stat[PGDEMOTE_KSWAPD] - before);
}

int vmscan_migrations_in_flight(const struct sim *s, const struct migrate_ctx **ctx, int max)
{
	int n = 0;
	for (int i = 0; s->vmscan && i < s->m.nr_nodes && n < max; i++)
		if (s->vmscan->kd[i].moving)
			ctx[n++] = s->vmscan->kd[i].ctx;
	return n;
}
