/* Generic page-table updates, after mm/pgtable-generic.c and the
 * architectures' set_pte_at. */
#include "asm/tlbflush.h"
#include "kernel/sim.h"
#include "linux/mm.h"
#include "workload/touch.h"

/* set_pte_at: besides the PTE, the model keeps derived state in step -- the
 * table's PROT_NONE bitmaps (split by the workload's hot bit) and the touch
 * model's counts -- so that a touch can find the k-th PROT_NONE page. */
void set_pte_at(struct vm_area_struct *vma, uint64_t addr, pte_t *ptep, pte_t val)
{
	pte_t old = *ptep;
	*ptep = val;
	bool was = pte_protnone(old), is = pte_protnone(val);
	if (was == is)
		return;
	struct pte_table *t = pte_table_of(vma, addr);
	unsigned bit = (unsigned)(pte_index(vma, addr) & (PTRS_PER_PTE - 1));
	bool hot = (old | val) & PTE_SIM_HOT;
	uint64_t *map = hot ? t->protnone_hot : t->protnone_cold;
	uint16_t *count = hot ? &t->nr_protnone_hot : &t->nr_protnone_cold;
	if (is) {
		map[bit / 64] |= 1ull << (bit % 64);
		(*count)++;
	} else {
		map[bit / 64] &= ~(1ull << (bit % 64));
		(*count)--;
	}
	touch_count(&vma->vm_mm->sim->w.touch, t->group, t->rank, t->weight, hot, is ? 1 : -1);
}

/* ptep_clear_flush: clear the PTE, and flush its one page only if a TLB may
 * hold it (pte_accessible).  Touches no batch state. */
pte_t ptep_clear_flush(struct vm_area_struct *vma, uint64_t addr, pte_t *ptep)
{
	struct mm_struct *mm = vma->vm_mm;
	pte_t pte = *ptep;

	set_pte_at(vma, addr, ptep, 0);
	if (pte_accessible(mm, pte)) {
		mm->sim->flush_origin = FLUSH_FROM_PTEP_CLEAR;
		flush_tlb_page(vma, addr);
		mm->sim->flush_origin = FLUSH_FROM_OTHER;
	}
	return pte;
}
