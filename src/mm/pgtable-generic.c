/* mm/pgtable-generic.c */
#include "asm/tlbflush.h"
#include "linux/mm.h"
#include "sim/sim.h"

/* ptep_clear_flush: clear the PTE, and flush its one page only if a TLB may
 * hold it (pte_accessible).  Touches no batch state. */
pte_t ptep_clear_flush(struct vm_area_struct *vma, uint64_t addr, pte_t *ptep)
{
	struct mm_struct *mm = vma->vm_mm;
	pte_t pte = *ptep;

	set_pte_at(mm, addr, ptep, 0);
	if (pte_accessible(mm, pte)) {
		mm->sim->flush_origin = FLUSH_FROM_PTEP_CLEAR;
		flush_tlb_page(vma, addr);
		mm->sim->flush_origin = FLUSH_FROM_OTHER;
	}
	return pte;
}
