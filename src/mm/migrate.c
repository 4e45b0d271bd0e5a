/* The migration core, after mm/migrate.c (linux-next, early 2026).
 *
 * migrate_pages() is run in two halves so that simulated time passes
 * between them: migrate_pages_begin() does a batch's unmap phase and its
 * one TLB flush (try_to_unmap_flush) and charges the copy that follows;
 * migrate_pages_finish() does the move phase (the folio changes node and
 * remove_migration_ptes() remaps it), any further batches, and the counters.
 * A folio keeps its store index across a migration (the model has no pfns):
 * "allocating the destination" is reserving a page on the target node.
 * Left out: hugetlb, splitting large folios (deferred split queue, THP
 * without arch support), writeback, file mappings' xarray, the
 * mm_migrate_pages tracepoints (issue 5), memcg. */
#include "asm/tlbflush.h"
#include "linux/migrate.h"
#include "linux/mm.h"
#include "linux/sched/numa_balancing.h"
#include "kernel/sim.h"

#define EAGAIN 11
#define EACCES 13
#define ENOMEM 12
#define EBUSY 16
#define MIGRATEPAGE_UNMAP 1

static uint64_t high_wmark_pages(const struct sim *s)
{
	/* about min_free_kbytes * 1.5 spread over the node: 1/1024 of it */
	return (s->m.mem_per_node_mib << (20 - PAGE_SHIFT)) / 1024;
}

/* migrate_misplaced_folio_prepare: under the PTL, before the PTL drop. */
int migrate_misplaced_folio_prepare(struct sim *s, struct folio folio,
				    struct vm_area_struct *vma, int node)
{
	unsigned long nr = folio_nr_pages(folio);

	if (!folio_test_anon(folio)) {
		if (folio_maybe_mapped_shared(folio) && (vma->vm_flags & VM_EXEC))
			return -EACCES;
		if (folio_test_dirty(folio))
			return -EAGAIN;
	}
	if (s->node_free_pages[node] < high_wmark_pages(s) + nr)
		return -EAGAIN;
	if (folio.fs->pg[folio.idx].flags & FOLIO_ISOLATED)
		return -EAGAIN; /* folio_isolate_lru fails: already being migrated */
	folio.fs->pg[folio.idx].flags |= FOLIO_ISOLATED;
	return 0;
}

static void folio_putback(struct folio folio)
{
	folio.fs->pg[folio.idx].flags &= (uint8_t)~(FOLIO_ISOLATED | FOLIO_LOCKED);
}

static bool folio_mapped(struct folio folio)
{
	for (unsigned long i = 0; i < folio_nr_pages(folio); i++)
		if (folio.fs->pg[folio.idx + i].mapcount)
			return true;
	return false;
}

/* migrate_folio_unmap: allocate the destination, lock, unmap.  Since
 * 7e12beb8ca2a every MIGRATE_ASYNC unmap batches its flush; the two
 * single-folio patches carve out the case where there is nothing to batch. */
static int migrate_folio_unmap(struct sim *s, struct migrate_ctx *ctx, int i,
			       bool batch_flush, bool batch_singular)
{
	struct folio folio = ctx->folios[i];
	uint8_t *fl = &folio.fs->pg[folio.idx].flags;

	if (!ctx->setup_prepaid)
		charge(s, COST_MIGRATE, s->m.cost.migrate_setup_ns);
	/* the destination: a block of the folio's order on the target */
	if (!alloc_pages_node(s, ctx->target_nid, folio_order(folio)))
		return -ENOMEM;
	if (*fl & FOLIO_LOCKED) {
		free_pages_node(s, ctx->target_nid, folio_order(folio)); /* put_new_folio */
		return -EAGAIN; /* folio_trylock fails (ASYNC never sleeps here) */
	}
	*fl |= FOLIO_LOCKED;

	enum ttu_flags ttu = batch_flush ? TTU_BATCH_FLUSH : 0;
	/* single-folio-v2: a lone, small, unshared folio has nothing to batch */
	if (s->k.single_folio_v2 && batch_singular && !folio_test_large(folio) &&
	    !folio_maybe_mapped_shared(folio))
		ttu = 0;
	if (folio_mapped(folio))
		try_to_migrate(s, folio, ttu);
	return MIGRATEPAGE_UNMAP;
}

/* migrate_folio_move: copy (charged in the unmap half), switch the folio to
 * its new node, remap. */
static void migrate_folio_move(struct sim *s, struct migrate_ctx *ctx, int i)
{
	struct folio folio = ctx->folios[i];
	unsigned long nr = folio_nr_pages(folio);
	int from = folio_nid(folio), to = ctx->target_nid;

	for (unsigned long k = 0; k < nr; k++)
		folio.fs->pg[folio.idx + k].nid = (uint8_t)to;
	free_pages_node(s, from, folio_order(folio));
	for (int m = 0; m < folio.fs->nr_mappers; m++) {
		struct vm_area_struct *vma = folio.fs->mappers[m];
		uint64_t a = vma_address(vma, folio.idx);
		if (a)
			workload_page_moved(s, vma, a, from, to, nr);
	}
	remove_migration_ptes(s, folio);
	charge(s, COST_MIGRATE, s->m.cost.remap_ns);
	folio_putback(folio);
}

static double copy_cost(const struct sim *s, struct folio folio, int to)
{
	int from = folio_nid(folio);
	return s->m.cost.copy_page_ns * (double)folio_nr_pages(folio) *
	       s->m.distance[from][to] / 10.0;
}

/* The unmap passes of one migrate_pages_batch() call over folios
 * [from, to) in @mode; returns how many are left to retry. */
static int unmap_passes(struct sim *s, struct migrate_ctx *ctx, int from, int to,
			enum migrate_mode mode, int nr_pass)
{
	bool batch_flush = mode == MIGRATE_ASYNC && s->k.migrate_batch_flush;
	bool singular = to - from == 1;
	int retry = 0;

	/* single-folio-v1: NUMA hint-fault migrations never batch */
	if (s->k.single_folio_v1 && ctx->reason == MR_NUMA_MISPLACED)
		batch_flush = false;
	for (int pass = 0; pass < nr_pass; pass++) {
		retry = 0;
		for (int i = from; i < to; i++) {
			if (ctx->state[i] != MIG_PENDING)
				continue;
			int rc = migrate_folio_unmap(s, ctx, i, batch_flush, singular);
			if (rc == MIGRATEPAGE_UNMAP)
				ctx->state[i] = MIG_UNMAPPED;
			else if (rc == -EAGAIN)
				retry++;
			else
				ctx->state[i] = MIG_FAILED;
		}
		if (!retry)
			break;
	}
	return retry;
}

/* The unmap phase of the current batch.  MIGRATE_ASYNC: one
 * migrate_pages_batch with 10 passes.  Other modes (migrate_pages_sync):
 * the batch first as MIGRATE_ASYNC with 3 passes -- so it batches its
 * flush too -- then each leftover folio alone in the requested mode with 7
 * passes. */
static void migrate_pages_batch_unmap(struct sim *s, struct migrate_ctx *ctx)
{
	if (ctx->mode == MIGRATE_ASYNC) {
		unmap_passes(s, ctx, ctx->batch_start, ctx->batch_end, MIGRATE_ASYNC,
			     NR_MAX_MIGRATE_PAGES_RETRY);
	} else if (unmap_passes(s, ctx, ctx->batch_start, ctx->batch_end, MIGRATE_ASYNC,
				NR_MAX_MIGRATE_ASYNC_RETRY)) {
		try_to_unmap_flush(s);
		for (int i = ctx->batch_start; i < ctx->batch_end; i++)
			if (ctx->state[i] == MIG_PENDING)
				unmap_passes(s, ctx, i, i + 1, ctx->mode, NR_MAX_MIGRATE_SYNC_RETRY);
	}
	/* leftover retries count as failures */
	for (int i = ctx->batch_start; i < ctx->batch_end; i++)
		if (ctx->state[i] == MIG_PENDING)
			ctx->state[i] = MIG_FAILED;

	try_to_unmap_flush(s); /* one flush for the batch, before any copy */

	for (int i = ctx->batch_start; i < ctx->batch_end; i++)
		if (ctx->state[i] == MIG_UNMAPPED)
			charge(s, COST_MIGRATE_COPY, copy_cost(s, ctx->folios[i], ctx->target_nid));
}

static void next_batch(struct migrate_ctx *ctx)
{
	unsigned long pages = 0;
	int i = ctx->batch_start = ctx->batch_end;
	while (i < ctx->nr && pages < NR_MAX_BATCHED_MIGRATION) {
		pages += folio_nr_pages(ctx->folios[i]);
		i++;
	}
	ctx->batch_end = i;
}

void migrate_pages_begin(struct sim *s, struct migrate_ctx *ctx)
{
	trace(s, TR_MIGRATE_START, s->e.cpu, current_pid(s), sim_now(s), 0, ctx->mode, ctx->reason, 0, 0);
	ctx->nr_succeeded = ctx->nr_failed_pages = 0;
	ctx->batch_start = ctx->batch_end = 0;
	for (int i = 0; i < ctx->nr; i++)
		ctx->state[i] = MIG_PENDING;
	next_batch(ctx);
	migrate_pages_batch_unmap(s, ctx);
}

int migrate_pages_finish(struct sim *s, struct migrate_ctx *ctx)
{
	int nr_failed = 0;
	for (;;) {
		for (int i = ctx->batch_start; i < ctx->batch_end; i++) {
			if (ctx->state[i] == MIG_UNMAPPED) {
				migrate_folio_move(s, ctx, i);
				ctx->state[i] = MIG_DONE;
				ctx->nr_succeeded += folio_nr_pages(ctx->folios[i]);
			} else if (ctx->state[i] == MIG_FAILED) {
				folio_putback(ctx->folios[i]);
				ctx->nr_failed_pages += folio_nr_pages(ctx->folios[i]);
				nr_failed++;
			}
		}
		if (ctx->batch_end >= ctx->nr)
			break;
		next_batch(ctx);
		migrate_pages_batch_unmap(s, ctx);
	}
	count_vm_events(s, PGMIGRATE_SUCCESS, ctx->nr_succeeded);
	count_vm_events(s, PGMIGRATE_FAIL, ctx->nr_failed_pages);
	trace(s, TR_MIGRATE_PAGES, s->e.cpu, current_pid(s), sim_now(s), 0, (int64_t)ctx->nr_succeeded,
	      (int64_t)ctx->nr_failed_pages, ctx->mode, ctx->reason);
	return nr_failed;
}

void migrate_misplaced_folio_begin(struct sim *s, struct migrate_ctx *ctx, struct folio folio,
				   int node)
{
	ctx->folios[0] = folio;
	ctx->nr = 1;
	ctx->target_nid = node;
	ctx->mode = MIGRATE_ASYNC;
	ctx->reason = MR_NUMA_MISPLACED;
	ctx->setup_prepaid = true; /* the fault path's step already took it */
	migrate_pages_begin(s, ctx);
}

int migrate_misplaced_folio_end(struct sim *s, struct migrate_ctx *ctx)
{
	int nr_remaining = migrate_pages_finish(s, ctx);
	if (ctx->nr_succeeded)
		count_vm_events(s, NUMA_PAGE_MIGRATE, ctx->nr_succeeded);
	return nr_remaining ? -EAGAIN : 0;
}
