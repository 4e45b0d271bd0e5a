/* The architecture TLB interface the generic mm paths call.  The machine's
 * flush engine picks the implementation at run time (arch/dispatch.c):
 * arch/x86/mm/tlb.c (IPIs, or INVLPGB broadcast), arch/arm64/mm/tlbflush.c,
 * arch/riscv/mm/tlbflush.c. */
#ifndef NUMASIM_ASM_TLBFLUSH_H
#define NUMASIM_ASM_TLBFLUSH_H

#include <stdbool.h>
#include <stdint.h>

#include "linux/mm_types.h"

/* pte_accessible: could a TLB hold a translation for this PTE? */
bool pte_accessible(struct mm_struct *mm, pte_t pte);
bool arch_tlbbatch_should_defer(struct mm_struct *mm);
void arch_tlbbatch_add_pending(struct arch_tlbflush_unmap_batch *batch, struct mm_struct *mm,
			       uint64_t start, uint64_t end);
struct sim;
void arch_tlbbatch_flush(struct sim *s, struct arch_tlbflush_unmap_batch *batch);
void flush_tlb_mm_range(struct mm_struct *mm, uint64_t start, uint64_t end,
			unsigned stride_shift, bool freed_tables);
static inline void flush_tlb_mm(struct mm_struct *mm)
{
	flush_tlb_mm_range(mm, 0, TLB_FLUSH_ALL, PAGE_SHIFT, true);
}
static inline void flush_tlb_range(struct vm_area_struct *vma, uint64_t start, uint64_t end)
{
	flush_tlb_mm_range(vma->vm_mm, start, end, PAGE_SHIFT, true);
}
static inline void flush_tlb_page(struct vm_area_struct *vma, uint64_t addr)
{
	flush_tlb_mm_range(vma->vm_mm, addr, addr + PAGE_SIZE, PAGE_SHIFT, false);
}
/* flush_pmd_tlb_range: arm64 and riscv invalidate a huge page at PMD
 * stride; x86 uses the generic flush_tlb_range at 4 KiB stride, which the
 * ceiling turns into a full flush. */
void flush_pmd_tlb_range(struct vm_area_struct *vma, uint64_t start, uint64_t end);
/* arm64 before 4b634918384c: flush_tlb_batched_pending only waited (DSB). */
void arch_flush_tlb_batched_pending(struct mm_struct *mm);

/* Per-arch implementations (the dispatcher picks one). */
bool x86_pte_accessible(struct mm_struct *mm, pte_t pte);
bool x86_tlbbatch_should_defer(struct mm_struct *mm);
void x86_tlbbatch_add_pending(struct arch_tlbflush_unmap_batch *b, struct mm_struct *mm,
			      uint64_t start, uint64_t end);
void x86_tlbbatch_flush(struct sim *s, struct arch_tlbflush_unmap_batch *b);
void x86_flush_tlb_mm_range(struct mm_struct *mm, uint64_t start, uint64_t end,
			    unsigned stride_shift, bool freed_tables);

bool arm64_pte_accessible(struct mm_struct *mm, pte_t pte);
void arm64_tlbbatch_add_pending(struct arch_tlbflush_unmap_batch *b, struct mm_struct *mm,
				uint64_t start, uint64_t end);
void arm64_tlbbatch_flush(struct sim *s, struct arch_tlbflush_unmap_batch *b);
void arm64_flush_tlb_mm_range(struct mm_struct *mm, uint64_t start, uint64_t end,
			      unsigned stride_shift, bool freed_tables);
void arm64_dsb(struct mm_struct *mm);

void riscv_tlbbatch_add_pending(struct arch_tlbflush_unmap_batch *b, struct mm_struct *mm,
				uint64_t start, uint64_t end);
void riscv_tlbbatch_flush(struct sim *s, struct arch_tlbflush_unmap_batch *b);
void riscv_flush_tlb_mm_range(struct mm_struct *mm, uint64_t start, uint64_t end,
			      unsigned stride_shift, bool freed_tables);

/* Shared by the IPI engines: a CPU's TLB lost all user translations at
 * time now; charge the refill its thread will do (user-mode stall). */
void tlb_full_flush_refill(struct sim *s, int cpu);

#endif
