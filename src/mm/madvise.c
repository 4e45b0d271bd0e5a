/* madvise(MADV_COLD) of part of a region, after mm/madvise.c
 * (madvise_cold -> madvise_cold_or_pageout_pte_range, linux-next early
 * 2026), for the workload option workload.madvise_cold_every_ms: a second
 * mmu_gather on an mm whose scanner may have one open, which is what the
 * tlb_flush_pending count exists for (16af97dc5a89; docs/oracle.md).
 *
 * The call: tlb_gather_mmu; per PTE table, under its PTL,
 * flush_tlb_batched_pending, then every young present PTE made old and its
 * entry added to the gather (tlb_remove_tlb_entry; a huge PMD as one PMD
 * entry); tlb_finish_mmu (a full flush if another gather is open).  The
 * model runs it as one step of a caller thread of the process, on the CPU
 * of the process's thread 1 (its time is charged there, like the
 * compactors', not serialised with that thread's steps).  Each call
 * covers the next madvise_cold_kib of the process's first VMA, wrapping.
 * Left out: folio_deactivate and the LRU (the model has none), pageout,
 * the split of a partly covered large folio.
 *
 * madvise(MADV_DONTNEED) of part of a region (madvise_dontneed_single_vma
 * -> zap_page_range_single -> zap_pte_range), for
 * workload.madvise_dontneed_every_ms: the operation whose return the
 * kernel's comment above flush_tlb_batched_pending (mm/rmap.c) protects
 * from an unmap batch another task has not flushed yet.  tlb_gather_mmu;
 * per PTE table, under its PTL, flush_tlb_batched_pending, then every
 * mapped PTE (present or PROT_NONE) cleared, its entry added to the gather
 * (tlb_remove_tlb_entry) and its page queued to be freed; a migration
 * entry is dropped, not gathered (it is not present: no TLB entry to
 * flush), its folio left to the migration that holds it, which frees it
 * when it finds it unmapped; tlb_finish_mmu flushes, then the pages are
 * freed.  The oracle checks at the return that no CPU may still translate
 * a page of the range.  Each call first touches again the range it zapped
 * last (do_anonymous_page: a new zeroed page on the caller's node, mapped
 * present and dirty), so the memory comes back for the scanner and the
 * migrations.  The caller is a thread of the process, run like the
 * MADV_COLD caller.  Left out: large folios and huge PMDs (their pages are
 * skipped, not zapped: the split of a partly zapped folio is not
 * modelled), stores mapped by more than one process (skipped), the
 * refault's own cost beyond one fault entry and one page clear per page,
 * and any touch of a zapped page before the caller's next call. */
#include <stdlib.h>

#include "asm/tlbflush.h"
#include "kernel/sim.h"
#include "linux/mm.h"
#include "linux/tlb_oracle.h"
#include "mm/internal.h"
#include "sim/bigalloc.h"
#include "workload/workload.h"

struct madvise_caller {
	struct task_struct task;
	uint64_t offset;   /* the next call's start, bytes into the VMA */
	bool dontneed;     /* MADV_DONTNEED (else MADV_COLD) */
	uint64_t zapped_start, zapped_end; /* DONTNEED: the last call's range */
};

/* The callers: MADV_COLD ones first (one per process if on), then the
 * MADV_DONTNEED ones; timer first + i is caller i's. */
struct madvise_state {
	uint32_t timer_first;
	int nr;
	struct madvise_caller *c;
};

static uint32_t nr_cold(const struct sim *s)
{
	return s->w.p.madvise_cold_every_ms > 0 ? (uint32_t)s->nr_mms : 0;
}

static uint32_t nr_dontneed(const struct sim *s)
{
	return s->w.p.madvise_dontneed_every_ms > 0 ? (uint32_t)s->nr_mms : 0;
}

uint32_t madvise_nr_timers(const struct sim *s)
{
	return nr_cold(s) + nr_dontneed(s);
}

/* @first: the first timer id of the callers (one per process). */
int madvise_init(struct sim *s, uint32_t first)
{
	if (!madvise_nr_timers(s))
		return 0;
	struct madvise_state *m = zalloc_aligned64(1, sizeof(*m));
	if (!m)
		return -1;
	s->madvise = m;
	m->timer_first = first;
	m->nr = (int)madvise_nr_timers(s);
	m->c = zalloc_aligned64((size_t)m->nr, sizeof(*m->c));
	if (!m->c)
		return -1;
	int cold = (int)nr_cold(s);
	for (int i = 0; i < m->nr; i++) {
		struct task_struct *t = &m->c[i].task;
		int mm = i < cold ? i : i - cold;
		m->c[i].dontneed = i >= cold;
		/* pids for traces and reports only: 80 + mm (MADV_COLD),
		 * 70 + mm (MADV_DONTNEED; 90 is the compact_memory writer) */
		t->pid = t->tgid = s->mms[mm].id + (i < cold ? 80 : 70);
		t->idx = -1;
		t->mm = &s->mms[mm];
	}
	return 0;
}

void madvise_free(struct sim *s)
{
	struct madvise_state *m = s->madvise;
	if (!m)
		return;
	free(m->c);
	free(m);
	s->madvise = NULL;
}

static uint64_t every_ns(const struct sim *s, const struct madvise_caller *c)
{
	return time_ns(c->dontneed ? s->w.p.madvise_dontneed_every_ms
				   : s->w.p.madvise_cold_every_ms, NSEC_PER_MSEC);
}

void madvise_start(struct sim *s)
{
	struct madvise_state *m = s->madvise;
	for (int i = 0; m && i < m->nr; i++)
		timerq_set(&s->e.q, m->timer_first + (uint32_t)i, every_ns(s, &m->c[i]));
}

/* One PTE table (or huge PMD) of madvise_cold_or_pageout_pte_range. */
static void cold_pmd(struct sim *s, struct mmu_gather *tlb, struct vm_area_struct *vma,
		     uint64_t addr, uint64_t end)
{
	const struct cost_model *cm = &s->m.cost;
	struct pte_table *t = pte_table_of(vma, addr);
	long looked = 0, changed = 0;
	workload_table_sync(vma, t); /* simulator: lazy build, pooled faults */
	ptl_lock(s, t);
	flush_tlb_batched_pending(vma->vm_mm);
	if (t->pmd_huge && !t->pmd_protnone) {
		/* madvise_cold_or_pageout_pte_range's huge PMD: pmdp_invalidate,
		 * mkold, tlb_remove_pmd_tlb_entry (only if it covers the PMD) */
		uint64_t start = addr & ~(PMD_SIZE - 1);
		pte_t first = vma->ptes[pte_index(vma, start)];
		if (end - start == PMD_SIZE && (first & PTE_PRESENT) && (first & PTE_YOUNG)) {
			for (unsigned i = 0; i < HPAGE_PMD_NR; i++) {
				uint64_t a = start + (uint64_t)i * PAGE_SIZE;
				pte_t *ptep = &vma->ptes[pte_index(vma, a)];
				set_pte_at(vma, a, ptep, *ptep & (pte_t)~PTE_YOUNG);
			}
			tlb_flush_pmd_range(tlb, start, PMD_SIZE);
			changed = 1;
		}
		looked = 1;
	} else {
		for (; addr < end; addr += PAGE_SIZE) {
			pte_t *ptep = &vma->ptes[pte_index(vma, addr)];
			looked++;
			if (!(*ptep & PTE_PRESENT) || !(*ptep & PTE_YOUNG))
				continue;
			set_pte_at(vma, addr, ptep, *ptep & (pte_t)~PTE_YOUNG);
			tlb_flush_pte_range(tlb, addr, PAGE_SIZE); /* tlb_remove_tlb_entry */
			changed++;
		}
	}
	charge(s, COST_SCAN, cm->pte_table_ns + (double)changed * cm->pte_update_ns +
				     (double)(looked - changed) * cm->pte_skip_ns);
	ptl_unlock(s, t);
}

/* madvise(start, end - start, MADV_COLD) on @vma. */
void madvise_cold(struct sim *s, struct vm_area_struct *vma, uint64_t start, uint64_t end)
{
	struct mmu_gather tlb;
	tlb_gather_mmu(&tlb, vma->vm_mm);
	charge(s, COST_SCAN, s->m.cost.gather_ns);
	for (uint64_t a = start; a < end; a = (a & ~(PMD_SIZE - 1)) + PMD_SIZE) {
		uint64_t next = (a & ~(PMD_SIZE - 1)) + PMD_SIZE;
		cold_pmd(s, &tlb, vma, a, next < end ? next : end);
	}
	tlb_finish_mmu(&tlb);
}

/* ---- MADV_DONTNEED ------------------------------------------------------- */

/* One PTE table of zap_pte_range over [addr, end); the freed pages are
 * counted per node in @freed (freed after the gather's flush). */
static void zap_pmd(struct sim *s, struct mmu_gather *tlb, struct vm_area_struct *vma,
		    uint64_t addr, uint64_t end, uint64_t *freed)
{
	const struct cost_model *cm = &s->m.cost;
	struct mm_struct *mm = vma->vm_mm;
	struct pte_table *t = pte_table_of(vma, addr);
	long looked = 0, changed = 0;
	workload_table_sync(vma, t); /* simulator: lazy build, pooled faults */
	ptl_lock(s, t);
	if (!flush_tlb_batched_pending(mm) && s->oracle)
		oracle_note(s, ON_PENDING_SKIP, mm, 0);
	if (s->oracle)
		oracle_ctx_set(s, "zap_pte_range");
	for (; addr < end && !t->pmd_huge; addr += PAGE_SIZE) {
		pte_t *ptep = &vma->ptes[pte_index(vma, addr)];
		pte_t pte = *ptep;
		looked++;
		if (pte_none(pte))
			continue;
		struct folio f = page_folio(vma->store, vma_store_idx(vma, addr));
		if (folio_test_large(f))
			continue; /* left out: the split of a partly zapped folio */
		struct page_state *pg = &f.fs->pg[f.idx];
		workload_page_zapped(s, vma, addr);
		set_pte_at(vma, addr, ptep, 0);
		changed++;
		if (is_migration_entry(pte))
			continue; /* not present: nothing to flush; the migration frees it */
		tlb_flush_pte_range(tlb, addr, PAGE_SIZE); /* tlb_remove_tlb_entry */
		pg->mapcount = 0;
		if (pg->flags & (FOLIO_ISOLATED | FOLIO_LOCKED))
			continue; /* isolated for a migration: freed when it finds it unmapped */
		pg->flags2 |= FOLIO2_FREED;
		freed[pg->nid]++;
	}
	charge(s, COST_SCAN, cm->pte_table_ns + (double)changed * cm->pte_update_ns +
				     (double)(looked - changed) * cm->pte_skip_ns);
	ptl_unlock(s, t);
	touch_changed(&s->w.touch, t->group);
}

void madvise_dontneed(struct sim *s, struct vm_area_struct *vma, uint64_t start, uint64_t end)
{
	uint64_t freed[MAX_NUMNODES] = { 0 };
	struct mmu_gather tlb;
	if (vma->store->nr_mappers > 1)
		return; /* left out: a store other processes map too */
	if (s->oracle)
		oracle_ctx_set(s, "madvise_dontneed");
	tlb_gather_mmu(&tlb, vma->vm_mm);
	charge(s, COST_SCAN, s->m.cost.gather_ns);
	for (uint64_t a = start; a < end; a = (a & ~(PMD_SIZE - 1)) + PMD_SIZE) {
		uint64_t next = (a & ~(PMD_SIZE - 1)) + PMD_SIZE;
		zap_pmd(s, &tlb, vma, a, next < end ? next : end, freed);
	}
	if (s->oracle)
		oracle_ctx_set(s, "madvise_dontneed");
	tlb_finish_mmu(&tlb);
	/* madvise returns: no CPU may still translate the range */
	if (s->oracle)
		oracle_check_range(s, vma, start, end, "after the zap returned");
	for (int n = 0; n < s->m.nr_nodes; n++)
		for (uint64_t k = 0; k < freed[n]; k++)
			free_pages_node(s, n, 0);
}

/* The program touches again the range it zapped: each page the zap freed
 * faults in a new page (do_anonymous_page), on the caller's node or the
 * nearest with room (the default policy's fallback). */
static void refault(struct sim *s, struct vm_area_struct *vma, uint64_t start, uint64_t end)
{
	const struct cost_model *cm = &s->m.cost;
	int local = s->cpus[s->e.cpu].node;
	for (uint64_t a = start; a < end; a += PAGE_SIZE) {
		struct pte_table *t = pte_table_of(vma, a);
		if (t->lazy || t->pmd_huge || !pte_none(vma->ptes[pte_index(vma, a)]))
			continue;
		struct folio f = page_folio(vma->store, vma_store_idx(vma, a));
		const struct page_state *pg = &f.fs->pg[f.idx];
		if (folio_test_large(f) || !(pg->flags2 & FOLIO2_FREED) ||
		    (pg->flags & (FOLIO_ISOLATED | FOLIO_LOCKED)))
			continue;
		int nid = -1;
		for (int d = 0; d < s->m.nr_nodes && nid < 0; d++) {
			int n = (local + d) % s->m.nr_nodes;
			if (alloc_pages_node(s, n, 0))
				nid = n;
		}
		if (nid < 0)
			return; /* no memory left anywhere: the rest stays unmapped */
		zone_statistics(s, local, nid, local, 1);
		workload_page_refault(s, vma, a, nid);
		charge(s, COST_HINT_FAULT, cm->hint_fault_ns + cm->copy_page_ns);
		touch_changed(&s->w.touch, t->group);
	}
}

void madvise_timer(struct sim *s, uint32_t id, uint64_t now)
{
	struct madvise_state *m = s->madvise;
	int i = (int)(id - m->timer_first);
	struct madvise_caller *c = &m->c[i];
	struct mm_struct *mm = c->task.mm;
	if (!mm->nr_vmas)
		return; /* nothing mapped to advise (the scenario's memory check refuses this) */
	/* the caller runs where the process's thread 1 (or 0) is */
	const struct task_struct *t = NULL;
	for (int k = 0; k < s->nr_tasks; k++)
		if (s->tasks[k].mm == mm) {
			t = &s->tasks[k];
			if (k + 1 < s->nr_tasks && s->tasks[k + 1].mm == mm)
				t = &s->tasks[k + 1];
			break;
		}
	c->task.cpu = t ? t->cpu : 0;
	sim_enter(s, &c->task, now);
	struct vm_area_struct *vma = &mm->vmas[0];
	uint64_t kib = c->dontneed ? s->w.p.madvise_dontneed_kib : s->w.p.madvise_cold_kib;
	uint64_t len = kib << 10, size = vma->vm_end - vma->vm_start;
	if (len > size)
		len = size;
	if (c->offset + len > size)
		c->offset = 0;
	uint64_t start = vma->vm_start + c->offset;
	c->offset += len;
	if (c->dontneed) {
		refault(s, vma, c->zapped_start, c->zapped_end);
		madvise_dontneed(s, vma, start, start + len);
		c->zapped_start = start;
		c->zapped_end = start + len;
	} else {
		if (s->oracle)
			oracle_ctx_set(s, "madvise_cold");
		madvise_cold(s, vma, start, start + len);
	}
	timerq_set(&s->e.q, id, now + every_ns(s, c));
}
