/* Generic page-table updates, after mm/pgtable-generic.c and the
 * architectures' set_pte_at. */
#include "asm/tlbflush.h"
#include "kernel/sim.h"
#include "linux/mm.h"
#include "linux/tlb_oracle.h"
#include "mm/internal.h"
#include "workload/touch.h"

/* set_pte_at: besides the PTE, the model keeps derived state in step -- the
 * table's PROT_NONE bitmaps (split by the workload's hot bit) and the touch
 * model's counts -- so that a touch can find the k-th PROT_NONE page
 * (set_pte_at_inline, mm/internal.h). */
void set_pte_at(struct vm_area_struct *vma, uint64_t addr, pte_t *ptep, pte_t val)
{
	set_pte_at_inline(vma, addr, ptep, val);
}

void set_ptes_done(struct vm_area_struct *vma, struct pte_table *t, struct pte_batch *b)
{
	struct touch_model *tm = &vma->vm_mm->sim->w.touch;
	for (int hot = 0; hot < 2; hot++) {
		uint64_t *map = hot ? t->protnone_hot : t->protnone_cold;
		int gained = 0;
		for (int w = 0; w < PTRS_PER_PTE / 64; w++) {
			map[w] |= b->gained[hot][w];
			gained += __builtin_popcountll(b->gained[hot][w]);
			b->gained[hot][w] = 0;
		}
		if (!gained)
			continue;
		VM_BUG_ON(touch_in_bulk(tm, t->group));
		*(hot ? &t->nr_protnone_hot : &t->nr_protnone_cold) += (uint16_t)gained;
		touch_count(tm, t->group, t->rank, t->weight, hot, gained);
	}
}

/* ptep_clear_flush: clear the PTE, and flush its one page only if a TLB may
 * hold it (pte_accessible).  Touches no batch state. */
pte_t ptep_clear_flush(struct vm_area_struct *vma, uint64_t addr, pte_t *ptep)
{
	struct mm_struct *mm = vma->vm_mm;
	pte_t pte = *ptep;

	set_pte_at(vma, addr, ptep, 0);
	bool acc = pte_accessible(mm, pte);
	if (mm->sim->oracle)
		oracle_note(mm->sim, acc ? ON_CLEAR_FLUSH : ON_CLEAR_NOFLUSH, mm, addr);
	if (acc) {
		mm->sim->flush_origin = FLUSH_FROM_PTEP_CLEAR;
		flush_tlb_page(vma, addr);
		mm->sim->flush_origin = FLUSH_FROM_OTHER;
	}
	return pte;
}
