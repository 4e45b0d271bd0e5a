/* The migration core, after mm/migrate.c (linux-next, early 2026; what
 * changed between releases is switched by the base).
 *
 * migrate_pages() is run in three parts so that simulated time passes
 * between them, as in the kernel, where other CPUs run while the unmap
 * batch is outstanding: migrate_pages_begin() does the first batch's unmap
 * phase (its PTEs become migration entries, their flush recorded in the
 * task's batch); migrate_pages_flush(), a step later, its one TLB flush
 * (try_to_unmap_flush) and charges the copy that follows;
 * migrate_pages_finish(), a step after that, the move phase (the folio
 * changes node and remove_migration_ptes() remaps it), any further batches
 * -- among them the batch of a split folio's pieces, whose unmap and
 * flush share that step -- and the counters.
 * A folio keeps its store index across a migration (the model has no pfns):
 * "allocating the destination" is taking a block of the folio's order on
 * the target node (compaction takes it from the node's scattered free
 * pages, mm/compaction.c).
 * Left out: hugetlb, THP migration without arch support (every modelled
 * arch has it), writeback, file mappings' xarray, memcg, the refcount
 * checks other than "freed from under us", migrate_folio_undo (no unmapped
 * folio fails to move in the model). */
#include "asm/tlbflush.h"
#include "linux/compaction.h"
#include "linux/huge_mm.h"
#include "linux/migrate.h"
#include "linux/mm.h"
#include "linux/mmdebug.h"
#include "linux/sched/numa_balancing.h"
#include "kernel/sim.h"
#include "linux/tlb_oracle.h"
#include "mm/internal.h"
#include "workload/touch.h"

#define EAGAIN 11
#define EACCES 13
#define ENOMEM 12
#define EBUSY 16
#define MIGRATEPAGE_SUCCESS 0
#define MIGRATEPAGE_UNMAP 1

int folio_total_mapcount(struct folio folio)
{
	int n = 0, pmd = 0;
	for (int m = 0; m < folio.fs->nr_mappers; m++) {
		struct vm_area_struct *vma = folio.fs->mappers[m];
		uint64_t a = vma_address(vma, folio.idx);
		if (a && folio_test_pmd_mappable(folio) && pte_table_of(vma, a)->pmd_huge)
			pmd++; /* a PMD mapping counts once */
	}
	if (pmd)
		return pmd;
	for (unsigned long i = 0; i < folio_nr_pages(folio); i++)
		n += folio.fs->pg[folio.idx + i].mapcount;
	return n;
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
	/* v5.x .. v6.7 numamigrate_isolate_page: "Do not migrate THP mapped
	 * by multiple processes" -- a total mapcount above one, which every
	 * PTE-mapped large folio with two mapped pages has (728be28fae8c) */
	if (s->k.thp_migrate_refuse_shared && folio_test_large(folio) &&
	    folio_total_mapcount(folio) > 1)
		return -EAGAIN;
	/* migrate_balanced_pgdat: avoid a node that is nearly full; in
	 * tiering mode, wake its kswapd to make room (c574bbe91703) */
	if (s->node_free_pages[node] < high_wmark_pages(&s->pgdat[node]) + nr) {
		if (numa_tiering_mode(s))
			wakeup_kswapd(s, node, folio_order(folio));
		return -EAGAIN;
	}
	if (folio.fs->pg[folio.idx].flags & FOLIO_ISOLATED) {
		/* folio_isolate_lru fails: already being migrated, or on a
		 * migration call's list (the fault gets TNF_MIGRATE_FAIL) */
		migrate_call_note_busy_fault(s, folio);
		return -EAGAIN;
	}
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

/* get_new_folio / put_new_folio: the destination block on the target. */
static bool dst_alloc(struct sim *s, const struct migrate_ctx *ctx, unsigned order)
{
	/* compaction_alloc takes a block compaction isolated: no
	 * zone_statistics, as in the kernel */
	if (ctx->reason == MR_COMPACTION)
		return compaction_alloc(s, ctx->target_nid, order);
	if (!alloc_pages_node(s, ctx->target_nid, order))
		return false;
	/* alloc_misplaced_dst_folio / alloc_migration_target: the target is
	 * the preferred node (__GFP_THISNODE: nowhere else) */
	zone_statistics(s, ctx->target_nid, ctx->target_nid, s->cpus[s->e.cpu].node, 1ul << order);
	return true;
}

static void dst_put(struct sim *s, const struct migrate_ctx *ctx, unsigned order)
{
	if (ctx->reason == MR_COMPACTION)
		compaction_free(s, ctx->target_nid, order);
	else
		free_pages_node(s, ctx->target_nid, order);
}

/* migrate_folio_unmap: allocate the destination, lock, unmap.  Since
 * 7e12beb8ca2a every MIGRATE_ASYNC unmap batches its flush; the two
 * single-folio patches carve out the case where there is nothing to batch. */
static int migrate_folio_unmap(struct sim *s, struct migrate_ctx *ctx, int i,
			       bool batch_flush, bool batch_singular)
{
	struct folio folio = ctx->folios[i];
	struct page_state *head = &folio.fs->pg[folio.idx];

	if (!folio_mapped(folio) && !ctx->old_thp_path) {
		/* refcount 1, only the list's: a split piece nobody mapped is
		 * freed, and migrate_pages counts it as migrated */
		free_pages_node(s, head->nid, folio_order(folio));
		head->flags &= (uint8_t)~(FOLIO_ISOLATED | FOLIO_LOCKED);
		head->flags2 |= FOLIO2_FREED;
		return MIGRATEPAGE_SUCCESS;
	}
	if (!(ctx->setup_prepaid && i == 0))
		charge(s, COST_MIGRATE, s->m.cost.migrate_setup_ns);
	if (!dst_alloc(s, ctx, folio_order(folio)))
		return -ENOMEM;
	if (head->flags & FOLIO_LOCKED) {
		dst_put(s, ctx, folio_order(folio));
		return -EAGAIN; /* folio_trylock fails (ASYNC never sleeps here) */
	}
	head->flags |= FOLIO_LOCKED;
	if (ctx->old_thp_path)
		return MIGRATEPAGE_UNMAP; /* v5.12: copied while the PMD stays PROT_NONE */

	enum ttu_flags ttu = batch_flush ? TTU_BATCH_FLUSH : 0;
	/* single-folio-v2: a lone, small, unshared folio has nothing to batch */
	s->migration_switch_reads++;
	if (s->k.single_folio_v2 && batch_singular && !folio_test_large(folio) &&
	    !folio_maybe_mapped_shared(folio))
		ttu = 0;
	try_to_migrate(s, folio, ttu);
	return MIGRATEPAGE_UNMAP;
}

/* Tell the workload which mapped pages changed node (its latency model). */
static void pages_moved(struct sim *s, struct folio folio, int from, int to)
{
	if (from == to)
		return;
	/* each physical page once: through the VMA of the first mapping mm
	 * that holds the folio (a store split by vma_mib has several; VMAs
	 * are whole PMDs, so no folio straddles two) */
	const struct mm_struct *first = folio.fs->mappers[0]->vm_mm;
	for (int m = 0; m < folio.fs->nr_mappers; m++) {
		struct vm_area_struct *vma = folio.fs->mappers[m];
		if (vma->vm_mm != first || !vma_address(vma, folio.idx))
			continue;
		for (unsigned long k = 0; k < folio_nr_pages(folio); k++) {
			uint64_t a = vma_address(vma, folio.idx + k);
			if (a && !pte_none(vma->ptes[pte_index(vma, a)]))
				workload_page_moved(s, vma, a, from, to, 1);
		}
		break;
	}
}

/* v5.12 migrate_misplaced_transhuge_page: the new PMD replaces the PROT_NONE
 * one, writable and dirty, with no flush ("the TLB has already been
 * flushed globally"). */
static void old_thp_remap(struct sim *s, struct folio folio)
{
	for (int m = 0; m < folio.fs->nr_mappers; m++) {
		struct vm_area_struct *vma = folio.fs->mappers[m];
		uint64_t a = vma_address(vma, folio.idx);
		if (!a)
			continue;
		struct pte_table *t = pte_table_of(vma, a);
		for (unsigned i = 0; i < HPAGE_PMD_NR; i++) {
			pte_t *ptep = &vma->ptes[pte_index(vma, a + (uint64_t)i * PAGE_SIZE)];
			if (pte_present(*ptep))
				set_pte_at(vma, a + (uint64_t)i * PAGE_SIZE, ptep,
					   PTE_PRESENT | PTE_YOUNG | PTE_DIRTY |
					   ((vma->vm_flags & VM_WRITE) ? PTE_WRITE : 0) | (*ptep & PTE_SIM_HOT));
		}
		t->pmd_protnone = false;
		touch_changed(&s->w.touch, t->group);
	}
}

/* migrate_folio_move: copy (charged in the unmap half), switch the folio to
 * its new node, remap. */
static void migrate_folio_move(struct sim *s, struct migrate_ctx *ctx, int i)
{
	struct folio folio = ctx->folios[i];
	unsigned long nr = folio_nr_pages(folio);
	int from = folio_nid(folio), to = ctx->target_nid;

	/* the old folio is freed below: no CPU may still reach it */
	if (s->oracle)
		oracle_check_folio(s, folio, "before the old folio is freed");
	pages_moved(s, folio, from, to);
	for (unsigned long k = 0; k < nr; k++)
		folio.fs->pg[folio.idx + k].nid = (uint8_t)to;
	/* folio_migrate_flags keeps last_cpupid, but in tiering mode a move
	 * between tiers resets it: one side reads it as an access time */
	if (numa_tiering_mode(s) && node_is_toptier(s, from) != node_is_toptier(s, to))
		folio.fs->pg[folio.idx].last_cpupid = LAST_CPUPID_UNSET;
	if (folio_flags2(folio) & FOLIO2_DEFERRED) { /* the new folio is queued on its node */
		s->pgdat[from].split_queue_len--;
		s->pgdat[to].split_queue_len++;
	}
	if (ctx->reason == MR_COMPACTION)
		compaction_free_source(s, from, folio_order(folio));
	else
		free_pages_node(s, from, folio_order(folio));
	if (ctx->old_thp_path)
		old_thp_remap(s, folio);
	else
		remove_migration_ptes(s, folio);
	charge(s, COST_MIGRATE, s->m.cost.remap_ns);
	folio_putback(folio);
	if (!ctx->old_thp_path && !folio_mapped(folio)) {
		/* every migration entry was zapped meanwhile (madvise
		 * MADV_DONTNEED): the new folio's last reference is the
		 * migration's, and it is freed */
		free_pages_node(s, to, folio_order(folio));
		folio.fs->pg[folio.idx].flags2 |= FOLIO2_FREED;
	}
}

static double copy_cost(const struct sim *s, struct folio folio, int to)
{
	int from = folio_nid(folio);
	return s->m.cost.copy_page_ns * (double)folio_nr_pages(folio) *
	       s->m.distance[from][to] / 10.0;
}

/* try_split_folio to order 0; the pieces are appended to the list, pending
 * (the same batch, v6.3) or queued for their own batch (v6.4+). */
static bool try_split(struct sim *s, struct migrate_ctx *ctx, int i, int *to)
{
	struct folio folio = ctx->folios[i];
	unsigned long nr = folio_nr_pages(folio);
	if (ctx->nr + (int)nr > MAX_MIGRATE_FOLIOS || split_folio(s, folio))
		return false;
	for (unsigned long k = 0; k < nr; k++) {
		ctx->folios[ctx->nr] = (struct folio){ folio.fs, folio.idx + k };
		ctx->state[ctx->nr++] = s->k.split_folios_own_batch ? MIG_QUEUED : MIG_PENDING;
	}
	if (!s->k.split_folios_own_batch)
		*to = ctx->nr;
	return true;
}

/* The unmap passes of one migrate_pages_batch() call over folios
 * [from, *to) in @mode; returns how many were left to retry (counted as
 * failures). */
static int unmap_passes(struct sim *s, struct migrate_ctx *ctx, int from, int *to,
			enum migrate_mode mode, int nr_pass, bool may_split)
{
	bool batch_flush = mode == MIGRATE_ASYNC && s->k.migrate_batch_flush;
	bool singular = *to - from == 1;   /* list_is_singular, at the batch's start */
	bool nosplit = ctx->reason == MR_NUMA_MISPLACED;
	int retry = 0, thp_retry = 0;
	unsigned long retry_pages = 0;

	/* single-folio-v1: NUMA hint-fault migrations never batch */
	if (s->k.single_folio_v1 && ctx->reason == MR_NUMA_MISPLACED)
		batch_flush = false;
	for (int pass = 0; pass < nr_pass; pass++) {
		retry = thp_retry = 0;
		retry_pages = 0;
		for (int i = from; i < *to; i++) {
			if (ctx->state[i] != MIG_PENDING)
				continue;
			struct folio folio = ctx->folios[i];
			unsigned long nr = folio_nr_pages(folio);
			bool is_large = folio_test_large(folio), is_thp = folio_test_pmd_mappable(folio);
			uint8_t f2 = folio_flags2(folio);

			/* a partially mapped folio on the deferred split queue is
			 * split first (7262f208ca68, v6.10; the flag test v6.12) */
			if (may_split && s->k.migrate_split_deferred && nr > 2 &&
			    (f2 & FOLIO2_DEFERRED) &&
			    (!s->k.partially_mapped_flag || (f2 & FOLIO2_PARTIALLY_MAPPED)) &&
			    try_split(s, ctx, i, to)) {
				ctx->state[i] = MIG_SPLIT;
				ctx->nr_failed++;
				ctx->nr_thp_failed += is_thp;
				ctx->nr_thp_split += is_thp;
				ctx->nr_split++;
				continue;
			}
			int rc = migrate_folio_unmap(s, ctx, i, batch_flush, singular);
			switch (rc) {
			case MIGRATEPAGE_UNMAP:
				ctx->state[i] = MIG_UNMAPPED;
				break;
			case MIGRATEPAGE_SUCCESS:
				ctx->state[i] = MIG_FREED;
				ctx->nr_succeeded += nr;
				ctx->nr_thp_succeeded += is_thp;
				break;
			case -EAGAIN:
				retry++;
				thp_retry += is_thp;
				retry_pages += nr;
				break;
			case -ENOMEM:
				ctx->nr_failed++;
				ctx->nr_thp_failed += is_thp;
				/* large NUMA faults do not split to retry (v5.14) */
				if (is_large && !nosplit && may_split && try_split(s, ctx, i, to)) {
					ctx->state[i] = MIG_SPLIT;
					ctx->nr_thp_split += is_thp;
					ctx->nr_split++;
					break;
				}
				ctx->state[i] = MIG_FAILED;
				ctx->nr_failed_pages += nr + retry_pages;
				ctx->nr_thp_failed += thp_retry;
				/* the rest stays on the list, untried */
				for (int j = from; j < *to; j++)
					if (ctx->state[j] == MIG_PENDING || ctx->state[j] == MIG_QUEUED)
						ctx->state[j] = MIG_UNTRIED;
				ctx->enomem = true;
				return 0;
			default:
				ctx->state[i] = MIG_FAILED;
				ctx->nr_failed++;
				ctx->nr_thp_failed += is_thp;
				ctx->nr_failed_pages += nr;
			}
		}
		if (!retry)
			break;
	}
	/* leftover retries count as failures */
	for (int i = from; i < *to; i++)
		if (ctx->state[i] == MIG_PENDING)
			ctx->state[i] = MIG_FAILED;
	ctx->nr_failed += retry;
	ctx->nr_thp_failed += thp_retry;
	ctx->nr_failed_pages += retry_pages;
	return retry;
}

/* The unmap phase of the current batch.  MIGRATE_ASYNC: one
 * migrate_pages_batch with 10 passes.  Other modes (migrate_pages_sync):
 * the batch first as MIGRATE_ASYNC with 3 passes -- so it batches its
 * flush too -- then each leftover folio alone in the requested mode with 7
 * passes.  The kernel flushes (and moves) the ASYNC batch before those
 * retries; the model flushes it in the flush step that follows, after the
 * retries' unmaps, so the batch stays outstanding for the whole unmap
 * phase's charged time. */
static void migrate_pages_batch_unmap(struct sim *s, struct migrate_ctx *ctx)
{
	if (ctx->mode == MIGRATE_ASYNC) {
		unmap_passes(s, ctx, ctx->batch_start, &ctx->batch_end, MIGRATE_ASYNC,
			     NR_MAX_MIGRATE_PAGES_RETRY, true);
	} else {
		unsigned long failed_pages = ctx->nr_failed_pages;
		int failed = ctx->nr_failed;
		unmap_passes(s, ctx, ctx->batch_start, &ctx->batch_end, MIGRATE_ASYNC,
			     NR_MAX_MIGRATE_ASYNC_RETRY, true);
		if (!ctx->enomem) {
			/* the ASYNC attempt's failures are retried, not counted
			 * (a split still counts one) */
			ctx->nr_failed_pages = failed_pages;
			ctx->nr_failed = failed + (int)ctx->nr_split;
			/* the ASYNC batch's try_to_unmap_flush: in the flush
			 * step, with the retries' (they flush at once, through
			 * ptep_clear_flush) */
			for (int i = ctx->batch_start; i < ctx->batch_end && !ctx->enomem; i++) {
				if (ctx->state[i] != MIG_FAILED)
					continue;
				int one = i + 1;
				ctx->state[i] = MIG_PENDING;
				unmap_passes(s, ctx, i, &one, ctx->mode, NR_MAX_MIGRATE_SYNC_RETRY, true);
			}
		}
	}

}

/* The current batch's one TLB flush, before any copy (migrate_pages_batch:
 * try_to_unmap_flush between the unmap loop and the move loop), then the
 * copies it allows. */
static void migrate_pages_batch_flush(struct sim *s, struct migrate_ctx *ctx)
{
	try_to_unmap_flush(s);

	for (int i = ctx->batch_start; i < ctx->batch_end; i++)
		if (ctx->state[i] == MIG_UNMAPPED) {
			if (s->oracle) /* the copy must see the folio's last writes */
				oracle_check_folio(s, ctx->folios[i], "before the copy");
			charge(s, COST_MIGRATE_COPY, copy_cost(s, ctx->folios[i], ctx->target_nid));
		}
}

static void next_batch(struct migrate_ctx *ctx)
{
	unsigned long pages = 0;
	int i = ctx->batch_start = ctx->batch_end;
	while (i < ctx->nr_input && pages < NR_MAX_BATCHED_MIGRATION) {
		pages += folio_nr_pages(ctx->folios[i]);
		i++;
	}
	ctx->batch_end = i;
}

void migrate_pages_begin(struct sim *s, struct migrate_ctx *ctx)
{
	trace(s, TR_MIGRATE_START, s->e.cpu, current_pid(s), sim_now(s), 0, ctx->mode, ctx->reason, 0, 0);
	ctx->nr_succeeded = ctx->nr_failed_pages = 0;
	ctx->nr_thp_succeeded = ctx->nr_thp_failed = ctx->nr_thp_split = ctx->nr_split = 0;
	ctx->nr_failed = 0;
	ctx->enomem = false;
	ctx->nr_input = ctx->nr;
	ctx->pieces_start = ctx->nr;
	ctx->batch_start = ctx->batch_end = 0;
	for (int i = 0; i < ctx->nr; i++)
		ctx->state[i] = MIG_PENDING;
	next_batch(ctx);
	migrate_pages_batch_unmap(s, ctx);
}

void migrate_pages_flush(struct sim *s, struct migrate_ctx *ctx)
{
	migrate_pages_batch_flush(s, ctx);
}

/* The move phase of the current batch, then the putback of its failures. */
static void move_batch(struct sim *s, struct migrate_ctx *ctx)
{
	for (int i = ctx->batch_start; i < ctx->batch_end; i++) {
		struct folio folio = ctx->folios[i];
		switch (ctx->state[i]) {
		case MIG_UNMAPPED:
			migrate_folio_move(s, ctx, i);
			ctx->state[i] = MIG_DONE;
			ctx->nr_succeeded += folio_nr_pages(folio);
			ctx->nr_thp_succeeded += folio_test_pmd_mappable(folio);
			break;
		case MIG_FAILED:
		case MIG_UNTRIED:
			folio_putback(folio);
			break;
		default:
			break;
		}
	}
}

int migrate_pages_finish(struct sim *s, struct migrate_ctx *ctx)
{
	for (;;) {
		move_batch(s, ctx);
		if (ctx->enomem)
			break;
		if (ctx->batch_end < ctx->nr_input) {
			/* a further batch (an input above NR_MAX_BATCHED_MIGRATION
			 * pages): its unmap and flush in this step */
			next_batch(ctx);
			migrate_pages_batch_unmap(s, ctx);
			migrate_pages_batch_flush(s, ctx);
			continue;
		}
		if (ctx->pieces_start < ctx->nr && s->k.split_folios_own_batch) {
			/* the split pieces: their own batch, MIGRATE_ASYNC, one
			 * pass, no further splitting, failures not counted in
			 * the return value (the split counted one) */
			int nr_failed = ctx->nr_failed;
			ctx->batch_start = ctx->pieces_start;
			ctx->batch_end = ctx->nr;
			ctx->pieces_start = ctx->nr;
			for (int i = ctx->batch_start; i < ctx->batch_end; i++)
				if (ctx->state[i] == MIG_QUEUED)
					ctx->state[i] = MIG_PENDING;
			unmap_passes(s, ctx, ctx->batch_start, &ctx->batch_end, MIGRATE_ASYNC, 1, false);
			ctx->nr_failed = nr_failed;
			migrate_pages_batch_flush(s, ctx);
			continue;
		}
		break;
	}
	/* anything not batched after an -ENOMEM stays on the list */
	bool left = false;
	for (int i = 0; i < ctx->nr; i++) {
		if (ctx->state[i] == MIG_PENDING || ctx->state[i] == MIG_QUEUED) {
			ctx->state[i] = MIG_UNTRIED;
			folio_putback(ctx->folios[i]);
		}
		left |= ctx->state[i] == MIG_FAILED || ctx->state[i] == MIG_UNTRIED;
	}
	count_vm_events(s, PGMIGRATE_SUCCESS, ctx->nr_succeeded);
	count_vm_events(s, PGMIGRATE_FAIL, ctx->nr_failed_pages);
	if (!ctx->old_thp_path) { /* v5.12's THP path counted none of these */
		count_vm_events(s, THP_MIGRATION_SUCCESS, ctx->nr_thp_succeeded);
		count_vm_events(s, THP_MIGRATION_FAIL, ctx->nr_thp_failed);
		count_vm_events(s, THP_MIGRATION_SPLIT, ctx->nr_thp_split);
	}
	trace(s, TR_MIGRATE_PAGES, s->e.cpu, current_pid(s), sim_now(s), 0, (int64_t)ctx->nr_succeeded,
	      (int64_t)ctx->nr_failed_pages, ctx->mode, ctx->reason);
	ctx->old_thp_path = false; /* set by its one caller for one call */
	if (ctx->enomem)
		return -ENOMEM;
	/* 0 when the list ended empty: every split piece migrated */
	return left ? (ctx->nr_failed > 0 ? ctx->nr_failed : 1) : 0;
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
	/* v5.12 (before c5b5a3dd2c1f): a PMD-mapped THP takes the old path */
	ctx->old_thp_path = !s->k.thp_numa_generic && folio_test_pmd_mappable(folio);
	ctx->promote = numa_tiering_mode(s) && !node_is_toptier(s, folio_nid(folio)) &&
		       node_is_toptier(s, node);
	migrate_pages_begin(s, ctx);
}

int migrate_misplaced_folio_end(struct sim *s, struct migrate_ctx *ctx)
{
	int nr_remaining = migrate_pages_finish(s, ctx);
	if (ctx->nr_succeeded) {
		count_vm_events(s, NUMA_PAGE_MIGRATE, ctx->nr_succeeded);
		if (ctx->promote) /* counted on the target node (e39bb6be9f2b, v5.18) */
			s->pgdat[ctx->target_nid].stat[PGPROMOTE_SUCCESS] += ctx->nr_succeeded;
	}
	return nr_remaining ? -EAGAIN : 0;
}
