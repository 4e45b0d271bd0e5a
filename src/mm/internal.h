/* What mm files share and nobody else may call (after mm/internal.h). */
#ifndef NUMASIM_MM_INTERNAL_H
#define NUMASIM_MM_INTERNAL_H

#include "kernel/sim.h"
#include "linux/mm.h"
#include "linux/mmdebug.h" /* VM_BUG_ON: checked in the debug build */
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
#endif
