/* What mm files share and nobody else may call (after mm/internal.h). */
#ifndef NUMASIM_MM_INTERNAL_H
#define NUMASIM_MM_INTERNAL_H

#include "kernel/sim.h"
#include "linux/mm.h"
#include "linux/mmdebug.h" /* VM_BUG_ON: checked in the debug build */
#include "linux/sched/numa_balancing.h"
#include "linux/tlb_oracle.h"
#include "workload/touch.h"

/* The PTE (or PMD) lock of a table, as the time until which it is held. */
static inline void ptl_lock(struct sim *s, struct pte_table *t)
{
	uint64_t now = sim_now(s);
	if (t->ptl_free_at > now)
		charge(s, COST_LOCK_WAIT, (double)(t->ptl_free_at - now));
}
static inline void ptl_unlock(struct sim *s, struct pte_table *t)
{
	t->ptl_free_at = sim_now(s);
	touch_ptl_held(&s->w.touch, t->group, t->rank, t->ptl_free_at); /* simulator: bulk faults */
}

/* mm/pgtable-generic.c: set_pte_at's body, inline where a hot path knows
 * the new PTE (a hint fault restoring one: present, so the oracle's case
 * and the PROT_NONE gain fold away); every other caller calls set_pte_at. */
static inline __attribute__((always_inline)) void
set_pte_at_inline(struct vm_area_struct *vma, uint64_t addr, pte_t *ptep, pte_t val)
{
	pte_t old = *ptep;
	bool hot = false;
	*ptep = val;
	if (vma->vm_mm->sim->oracle && (old & PTE_PRESENT) && !(val & PTE_PRESENT))
		oracle_pte_off(vma->vm_mm->sim, vma, addr, val);
	struct pte_table *t = pte_table_of(vma, addr);
	int d = pte_table_update(t, (unsigned)(pte_index(vma, addr) & (PTRS_PER_PTE - 1)), old, val,
				 &hot);
	if (d) {
		VM_BUG_ON(touch_in_bulk(&vma->vm_mm->sim->w.touch, t->group)); /* not synced first */
		touch_count(&vma->vm_mm->sim->w.touch, t->group, t->rank, t->weight, hot, d);
	}
}

/* mm/memory.c */
int numa_migrate_check(struct sim *s, struct folio folio, struct vm_fault *vmf, int *flags,
		       bool writable, int *last_cpupid);
/* can_change_pte_writable for the model's mappings */
static inline bool pte_writable_after_fault(const struct vm_area_struct *vma)
{
	return vma->vm_flags & VM_WRITE;
}

/* mm/huge_memory.c */
void do_huge_pmd_numa_page_migrated(struct sim *s, bool migrated);
/* Split a large folio into order-0 folios (split_folio_to_list, to order
 * 0): unmap it, split, remap the pieces.  Returns 0, or -EAGAIN if it
 * cannot be split now (ASYNC trylock). */
int split_folio(struct sim *s, struct folio folio);

/* mm/compaction.c: the page count of a folio's pages on their node */
/* change_pte_range's and change_huge_pmd's memory-tiering part (v6.12, since c574bbe91703 and
 * 33024536bafd): with NUMA_BALANCING_NORMAL off, a top-tier folio is not
 * hinted (only promotion would act on its fault); in tiering mode a
 * slow-tier folio made PROT_NONE records the scan time, which its hint
 * fault reads (numa_hint_fault_latency). */
static inline bool prot_numa_tier(struct sim *s, struct folio folio, unsigned now_ms)
{
	int nid = folio_nid(folio);
	if (!(s->t.numa_balancing & NUMA_BALANCING_NORMAL) && node_is_toptier(s, nid))
		return false;
	if (folio_use_access_time(s, nid))
		folio_xchg_access_time(folio, now_ms);
	return true;
}

#endif
