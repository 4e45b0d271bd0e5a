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
 * the split of a partly covered large folio. */
#include <stdlib.h>

#include "asm/tlbflush.h"
#include "kernel/sim.h"
#include "linux/mm.h"
#include "linux/tlb_oracle.h"
#include "mm/internal.h"
#include "workload/workload.h"

struct madvise_caller {
	struct task_struct task;
	uint64_t offset;   /* the next call's start, bytes into the VMA */
};

struct madvise_state {
	uint32_t timer_first;
	int nr;
	struct madvise_caller *c;
};

uint32_t madvise_nr_timers(const struct sim *s)
{
	return s->w.p.madvise_cold_every_ms > 0 ? (uint32_t)s->nr_mms : 0;
}

/* @first: the first timer id of the callers (one per process). */
int madvise_init(struct sim *s, uint32_t first)
{
	if (!madvise_nr_timers(s))
		return 0;
	struct madvise_state *m = calloc(1, sizeof(*m));
	if (!m)
		return -1;
	s->madvise = m;
	m->timer_first = first;
	m->nr = s->nr_mms;
	m->c = calloc((size_t)m->nr, sizeof(*m->c));
	if (!m->c)
		return -1;
	for (int i = 0; i < m->nr; i++) {
		struct task_struct *t = &m->c[i].task;
		t->pid = t->tgid = s->mms[i].id + 80; /* for traces only */
		t->idx = -1;
		t->mm = &s->mms[i];
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

static uint64_t every_ns(const struct sim *s)
{
	return (uint64_t)(s->w.p.madvise_cold_every_ms * 1e6);
}

void madvise_start(struct sim *s)
{
	struct madvise_state *m = s->madvise;
	for (int i = 0; m && i < m->nr; i++)
		timerq_set(&s->e.q, m->timer_first + (uint32_t)i, every_ns(s));
}

/* One PTE table (or huge PMD) of madvise_cold_or_pageout_pte_range. */
static void cold_pmd(struct sim *s, struct mmu_gather *tlb, struct vm_area_struct *vma,
		     uint64_t addr, uint64_t end)
{
	const struct cost_model *cm = &s->m.cost;
	struct pte_table *t = pte_table_of(vma, addr);
	long looked = 0, changed = 0;
	if (t->lazy)
		workload_materialize_table(vma, t);
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

void madvise_timer(struct sim *s, uint32_t id, uint64_t now)
{
	struct madvise_state *m = s->madvise;
	int i = (int)(id - m->timer_first);
	struct madvise_caller *c = &m->c[i];
	struct mm_struct *mm = c->task.mm;
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
	uint64_t len = (uint64_t)s->w.p.madvise_cold_kib << 10, size = vma->vm_end - vma->vm_start;
	if (len > size)
		len = size;
	if (c->offset + len > size)
		c->offset = 0;
	uint64_t start = vma->vm_start + c->offset;
	c->offset += len;
	if (s->oracle)
		oracle_ctx_set(s, "madvise_cold");
	madvise_cold(s, vma, start, start + len);
	timerq_set(&s->e.q, id, now + every_ns(s));
}
