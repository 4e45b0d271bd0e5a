/* Generic page-table updates, after mm/pgtable-generic.c and the
 * architectures' set_pte_at. */
#include <string.h>

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

/* Which of @n PTEs (at most 64) are PROT_NONE, and which of those are hot,
 * as bit masks (bit j: @ptes[j]).  Eight at a time where the byte order
 * allows: a byte's low two bits are PROTNONE alone (0x02) iff they XOR
 * 0x02 to zero, and the bytes' 0/1 flags gather into one byte by a
 * multiplication. */
static void protnone_word(const pte_t *ptes, unsigned n, uint64_t *pn, uint64_t *hot)
{
	uint64_t p = 0, h = 0;
	unsigned j = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const uint64_t ones = 0x0101010101010101ull, gather = 0x0102040810204080ull;
	_Static_assert(PTE_PRESENT == 0x01 && PTE_PROTNONE == 0x02 && PTE_SIM_HOT == 0x40,
		       "the byte tests below");
	for (; j + 8 <= n; j += 8) {
		uint64_t x;
		memcpy(&x, &ptes[j], 8);
		uint64_t z = (x & (3 * ones)) ^ (2 * ones);
		uint64_t is_pn = ~(z | (z >> 1)) & ones; /* 1 in each PROT_NONE byte */
		uint64_t is_hot = is_pn & (x >> 6);      /* ... that is hot */
		p |= ((is_pn * gather) >> 56) << j;
		h |= ((is_hot * gather) >> 56) << j;
	}
#endif
	for (; j < n; j++) {
		p |= (uint64_t)pte_protnone(ptes[j]) << j;
		h |= (uint64_t)(pte_protnone(ptes[j]) && (ptes[j] & PTE_SIM_HOT)) << j;
	}
	*pn = p;
	*hot = h;
}

void set_ptes_done(struct vm_area_struct *vma, struct pte_table *t)
{
	struct touch_model *tm = &vma->vm_mm->sim->w.touch;
	uint64_t i0 = (uint64_t)(t - vma->tables) * PTRS_PER_PTE;
	uint64_t n = vma_pages(vma) - i0 < PTRS_PER_PTE ? vma_pages(vma) - i0 : PTRS_PER_PTE;
	int gained[2] = { 0, 0 }; /* [cold, hot] */
	for (unsigned w = 0; (uint64_t)w * 64 < n; w++) {
		uint64_t left = n - (uint64_t)w * 64, pn, hot;
		protnone_word(&vma->ptes[i0 + (uint64_t)w * 64], left < 64 ? (unsigned)left : 64, &pn, &hot);
		/* none stopped being PROT_NONE: this path only makes them so */
		VM_BUG_ON((t->protnone_hot[w] & ~(pn & hot)) || (t->protnone_cold[w] & ~(pn & ~hot)));
		uint64_t new_hot = pn & hot & ~t->protnone_hot[w];
		uint64_t new_cold = pn & ~hot & ~t->protnone_cold[w];
		t->protnone_hot[w] |= new_hot;
		t->protnone_cold[w] |= new_cold;
		gained[1] += __builtin_popcountll(new_hot);
		gained[0] += __builtin_popcountll(new_cold);
	}
	for (int h = 0; h < 2; h++) {
		if (!gained[h])
			continue;
		VM_BUG_ON(touch_in_bulk(tm, t->group));
		*(h ? &t->nr_protnone_hot : &t->nr_protnone_cold) += (uint16_t)gained[h];
		touch_count(tm, t->group, t->rank, t->weight, h, gained[h]);
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
