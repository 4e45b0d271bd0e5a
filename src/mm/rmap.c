/* Reverse mapping and unmap-side TLB batching, after mm/rmap.c (linux-next,
 * early 2026).
 *
 * The rmap walk visits every VMA that maps the folio's store (the model's
 * anon_vma / address_space), and within each VMA the PTEs of the folio.
 * PMD mappings are handled by mm/huge_memory.c (set_pmd_migration_entry,
 * remove_migration_pmd).
 * Left out: hugetlb, device-private and KSM folios, mlock, userfaultfd
 * markers, soft-dirty, the mmu notifiers. */
#include <stdlib.h>

#include "asm/tlbflush.h"
#include "linux/huge_mm.h"
#include "linux/mm.h"
#include "kernel/sim.h"
#include "linux/tlb_oracle.h"
#include "linux/mmdebug.h"

uint64_t vma_address(const struct vm_area_struct *vma, uint64_t idx)
{
	if (idx < vma->store_pgoff || idx >= vma->store_pgoff + vma_pages(vma))
		return 0;
	return vma->vm_start + ((idx - vma->store_pgoff) << PAGE_SHIFT);
}

/* should_defer_flush: only TTU_BATCH_FLUSH callers batch, and only when the
 * architecture thinks a batch is worth it. */
bool should_defer_flush(struct mm_struct *mm, enum ttu_flags flags)
{
	if (!(flags & TTU_BATCH_FLUSH))
		return false;
	return arch_tlbbatch_should_defer(mm);
}

/* Simulator: remember that one more PTE of the batch was recorded at @now
 * (runs of equal times; the array grows to the largest batch seen). */
static void ubc_mark_recorded(struct tlbflush_unmap_batch *b, uint64_t now)
{
	if (b->nr_marks && b->marks[b->nr_marks - 1].at == now) {
		b->marks[b->nr_marks - 1].n++;
		return;
	}
	if (b->nr_marks == b->max_marks) {
		uint32_t cap = b->max_marks ? 2 * b->max_marks : 64;
		struct ubc_mark *m = realloc(b->marks, cap * sizeof(*m));
		if (!m) {
			/* out of memory: count it with the latest record (its
			 * delay comes out a little long) */
			if (b->nr_marks)
				b->marks[b->nr_marks - 1].n++;
			return;
		}
		b->marks = m;
		b->max_marks = cap;
	}
	b->marks[b->nr_marks++] = (struct ubc_mark){ now, 1 };
}

/* Simulator: the batch's flush ended at @now: each recorded PTE's delay
 * goes to the histogram. */
static void ubc_marks_flushed(struct sim *s, struct tlbflush_unmap_batch *b, uint64_t now)
{
	for (uint32_t i = 0; i < b->nr_marks; i++) {
		uint64_t d = now - b->marks[i].at;
		int bucket = d ? 64 - __builtin_clzll(d) : 0;
		s->delay_hist[bucket < NR_DELAY_HIST ? bucket : NR_DELAY_HIST - 1] += b->marks[i].n;
	}
	b->nr_marks = 0;
}

/* Simulator, while tracing: the batch's records learn when the flush that
 * pays for them ended -- its IPI round, where it has one (the Chrome JSON
 * draws a flow arrow from each record to the end of that flush: the record
 * and the flush's start are one instant of the same step, so an arrow to
 * the start would point nowhere). */
static void ubc_trace_flushed(struct sim *s, struct tlbflush_unmap_batch *b, uint64_t end)
{
	struct trace_buf *t = s->e.trace;
	int pid = current_pid(s);
	for (size_t i = b->trace_first; t && i < t->n; i++) {
		struct trace_event *e = &t->ev[i];
		if (e->type == TR_BATCH_RECORDED && e->pid == pid &&
		    (uint64_t)e->c >> 2 == b->trace_id) {
			e->c |= 2;
			/* 1 ns inside the flush's slice, which it binds to */
			e->d = (int64_t)(end > e->ts ? end - 1 : end);
		}
	}
	b->trace_id = 0;
}

void tlb_ubc_free(struct tlbflush_unmap_batch *b)
{
	free(b->marks);
	b->marks = NULL;
	b->nr_marks = b->max_marks = 0;
}

/* set_tlb_ubc_flush_pending: record that @mm needs a flush before the
 * unmapped page may be reused, and bump the mm's pending generation so that
 * a later PTL-holding walker flushes too (flush_tlb_batched_pending). */
void set_tlb_ubc_flush_pending(struct mm_struct *mm, pte_t pteval, uint64_t start, uint64_t end)
{
	struct sim *s = mm->sim;
	struct tlbflush_unmap_batch *tlb_ubc = &s->current->tlb_ubc;

	/* 4d4b6d66db63 (v6.4): a PTE no TLB can hold needs no flush */
	if (s->k.ubc_accessible_gate && !pte_accessible(mm, pteval)) {
		if (s->oracle)
			oracle_note(s, ON_BATCH_SKIP, mm, start);
		return;
	}
	if (s->oracle)
		oracle_note(s, ON_BATCH, mm, start);

	arch_tlbbatch_add_pending(&tlb_ubc->arch, mm, start, end);
	tlb_ubc->flush_required = true;
	ubc_mark_recorded(tlb_ubc, sim_now(s));
	if (trace_on(s, TR_BATCH_RECORDED)) {
		/* c: the batch's id << 2, | 1 on its first record; | 2 and d
		 * (the flush's start) are filled in by try_to_unmap_flush */
		bool first = !tlb_ubc->trace_id;
		if (first) {
			tlb_ubc->trace_id = ++s->ubc_trace_seq;
			tlb_ubc->trace_first = s->e.trace->n;
		}
		trace_emit(s->e.trace, TR_BATCH_RECORDED, s->e.cpu, current_pid(s), sim_now(s), 0,
			   (int64_t)start,
			   (int64_t)((mm->tlb_flush_batched + 1) & TLB_FLUSH_BATCH_PENDING_MASK),
			   (int64_t)tlb_ubc->trace_id << 2 | first, 0);
	}

	uint32_t batch = mm->tlb_flush_batched;
	if ((batch & TLB_FLUSH_BATCH_PENDING_MASK) > TLB_FLUSH_BATCH_PENDING_LARGE)
		mm->tlb_flush_batched = 1; /* pending 1, flushed 0: keep them apart */
	else
		mm->tlb_flush_batched = batch + 1;
	/* flush-side: remember which generation this batch covers */
	tlb_ubc->flushed_mm = mm;
	tlb_ubc->pending_gen = mm->tlb_flush_batched & TLB_FLUSH_BATCH_PENDING_MASK;

	if (pte_dirty(pteval))
		tlb_ubc->writable = true;
}

/* flush_tlb_batched_pending: called under a PTL before a walker changes
 * PTEs.  If any batch was recorded since the last such flush, flush the
 * whole mm, then mark the generation flushed (unless a new batch raced in). */
bool flush_tlb_batched_pending(struct mm_struct *mm)
{
	uint32_t batch = mm->tlb_flush_batched;
	uint32_t pending = batch & TLB_FLUSH_BATCH_PENDING_MASK;
	uint32_t flushed = batch >> TLB_FLUSH_BATCH_FLUSHED_SHIFT;

	if (pending == flushed)
		return false;
	mm->sim->flush_origin = FLUSH_FROM_SCANNER_PENDING;
	if (mm->sim->oracle)
		oracle_note(mm->sim, mm->sim->k.flush_pending_dsb_only ? ON_PENDING_DSB : ON_PENDING_FLUSH,
			    mm, 0);
	if (mm->sim->k.flush_pending_dsb_only)
		arch_flush_tlb_batched_pending(mm); /* arm64 before 4b634918384c: DSB */
	else
		flush_tlb_mm(mm);
	mm->sim->flush_origin = FLUSH_FROM_OTHER;
	if (mm->tlb_flush_batched == batch)
		mm->tlb_flush_batched = pending | (pending << TLB_FLUSH_BATCH_FLUSHED_SHIFT);
	return true;
}

/* try_to_unmap_flush: drain the current task's batch.  It does not advance
 * any mm's flushed generation, so each recorded batch also costs a later
 * flush_tlb_batched_pending() flush -- unless the flush-side patch is on. */
void try_to_unmap_flush(struct sim *s)
{
	struct tlbflush_unmap_batch *tlb_ubc = &s->current->tlb_ubc;

	if (!tlb_ubc->flush_required)
		return;
	uint64_t start = sim_now(s);
	s->flush_origin = FLUSH_FROM_BATCH;
	if (s->oracle)
		oracle_note(s, ON_UNMAP_FLUSH, tlb_ubc->flushed_mm, 0);
	s->last_round_end = 0;
	arch_tlbbatch_flush(s, &tlb_ubc->arch);
	s->flush_origin = FLUSH_FROM_OTHER;
	ubc_marks_flushed(s, tlb_ubc, sim_now(s));
	if (tlb_ubc->trace_id) /* the end of its IPI round, else of the whole flush */
		ubc_trace_flushed(s, tlb_ubc, s->last_round_end > start ? s->last_round_end : sim_now(s));
	s->migration_switch_reads++;
	if ((s->k.flush_side || s->k.flush_side_naive) && tlb_ubc->flushed_mm) {
		struct mm_struct *mm = tlb_ubc->flushed_mm;
		uint32_t batch = mm->tlb_flush_batched;
		uint32_t pending = batch & TLB_FLUSH_BATCH_PENDING_MASK;
		/* only if no other batch was recorded after ours; the naive
		 * variant (broken on purpose) marks whatever is pending */
		if (pending == tlb_ubc->pending_gen || s->k.flush_side_naive) {
			mm->tlb_flush_batched = pending | (pending << TLB_FLUSH_BATCH_FLUSHED_SHIFT);
			if (s->oracle)
				oracle_note_mark(s, mm, tlb_ubc->pending_gen, pending);
		}
	}
	tlb_ubc->flushed_mm = NULL;
	tlb_ubc->flush_required = false;
	tlb_ubc->writable = false;
}

/* Unmap one PTE-mapped page for migration: clear it (deferring the flush
 * or flushing now) and install a migration entry. */
static void migrate_one_pte(struct vm_area_struct *vma, uint64_t addr, enum ttu_flags flags)
{
	struct mm_struct *mm = vma->vm_mm;
	pte_t *ptep = &vma->ptes[pte_index(vma, addr)];
	pte_t pteval;

	if (!pte_present(*ptep))
		return;
	if (mm->sim->oracle)
		oracle_ctx_set(mm->sim, "try_to_migrate_one");
	if (should_defer_flush(mm, flags)) {
		pteval = *ptep; /* ptep_get_and_clear */
		set_pte_at(vma, addr, ptep, 0);
		set_tlb_ubc_flush_pending(mm, pteval, addr, addr + PAGE_SIZE);
	} else {
		pteval = ptep_clear_flush(vma, addr, ptep);
	}
	pte_t entry = PTE_MIGRATION | (pteval & (PTE_WRITE | PTE_YOUNG | PTE_DIRTY)) |
		      (pteval & PTE_SIM_HOT);
	set_pte_at(vma, addr, ptep, entry);
	trace(mm->sim, TR_SET_MIGRATION_PTE, mm->sim->e.cpu, current_pid(mm->sim), sim_now(mm->sim), 0,
	      (int64_t)addr, entry,
	      (int64_t)folio_order(page_folio(vma->store, vma_store_idx(vma, addr))), 0);
	VM_BUG_ON_FOLIO(!vma->store->pg[vma_store_idx(vma, addr)].mapcount,
			page_folio(vma->store, vma_store_idx(vma, addr)));
	vma->store->pg[vma_store_idx(vma, addr)].mapcount--;
}

/* try_to_migrate_one: replace every mapping of @folio in @vma by migration
 * entries.  A PMD-mapped THP gets a PMD migration entry, whose
 * pmdp_invalidate() flushes at once, unbatched (no pte_accessible test). */
bool try_to_migrate_one(struct folio folio, struct vm_area_struct *vma, uint64_t addr,
			enum ttu_flags flags)
{
	unsigned long nr = folio_nr_pages(folio);
	struct pte_table *t = pte_table_of(vma, addr);

	if (t->pmd_huge && nr == HPAGE_PMD_NR) {
		set_pmd_migration_entry(vma, addr & ~(PMD_SIZE - 1));
		return true;
	}
	for (unsigned long i = 0; i < nr; i++) {
		uint64_t a = vma_address(vma, folio.idx + i);
		if (a)
			migrate_one_pte(vma, a, flags);
	}
	return true;
}

/* try_to_migrate: the rmap walk over every VMA mapping the folio. */
void try_to_migrate(struct sim *s, struct folio folio, enum ttu_flags flags)
{
	(void)s;
	for (int i = 0; i < folio.fs->nr_mappers; i++) {
		struct vm_area_struct *vma = folio.fs->mappers[i];
		uint64_t addr = vma_address(vma, folio.idx);
		if (addr)
			try_to_migrate_one(folio, vma, addr, flags);
	}
}

/* remove_migration_ptes: rebuild each migration entry of the folio from
 * vma->vm_page_prot -- a normal present PTE, not PROT_NONE.  The old entry
 * was not present, so no flush. */
void remove_migration_ptes(struct sim *s, struct folio folio)
{
	unsigned long nr = folio_nr_pages(folio);
	for (int m = 0; m < folio.fs->nr_mappers; m++) {
		struct vm_area_struct *vma = folio.fs->mappers[m];
		uint64_t head = vma_address(vma, folio.idx);
		if (head && nr == HPAGE_PMD_NR && pte_table_of(vma, head)->pmd_huge) {
			remove_migration_pmd(s, vma, head);
			continue;
		}
		for (unsigned long i = 0; i < nr; i++) {
			uint64_t a = vma_address(vma, folio.idx + i);
			if (!a)
				continue;
			pte_t *ptep = &vma->ptes[pte_index(vma, a)];
			pte_t e = *ptep;
			if (!is_migration_entry(e))
				continue;
			pte_t pte = PTE_PRESENT | (e & (PTE_YOUNG | PTE_WRITE | PTE_SIM_HOT));
			if ((e & PTE_DIRTY) && folio_test_dirty(folio))
				pte |= PTE_DIRTY;
			set_pte_at(vma, a, ptep, pte);
			VM_BUG_ON_FOLIO(folio.fs->pg[folio.idx + i].mapcount == PAGE_MAPCOUNT_MAX, folio);
			folio.fs->pg[folio.idx + i].mapcount++;
			trace(s, TR_REMOVE_MIGRATION_PTE, s->e.cpu, current_pid(s), sim_now(s), 0,
			      (int64_t)a, pte, (int64_t)folio_order(folio), 0);
		}
	}
}
