/* mmu_gather, after mm/mmu_gather.c and include/asm-generic/tlb.h (linux-next,
 * early 2026), for the PTE-changing users the model has (change_prot_numa).
 * Left out: page and table freeing batches (nothing is freed here), the
 * per-VMA flush of architectures without MMU_GATHER_MERGE_VMAS (the model's
 * gathers never span VMAs). */
#include "asm/tlbflush.h"
#include "linux/mm.h"
#include "kernel/sim.h"
#include "linux/tlb_oracle.h"
#include "linux/mmdebug.h"

/* pending-flag (broken on purpose): before 16af97dc5a89 ("mm: migrate:
 * prevent racy access to tlb_flush_pending", v4.14) the state was a flag
 * that each gather set and cleared, so the first of two overlapping
 * gathers to finish cleared the other's; the count fixed it. */
void inc_tlb_flush_pending(struct mm_struct *mm)
{
	if (mm->sim->k.pending_flag)
		mm->tlb_flush_pending = 1;
	else
		mm->tlb_flush_pending++;
}

void dec_tlb_flush_pending(struct mm_struct *mm)
{
	if (mm->sim->k.pending_flag) {
		mm->tlb_flush_pending = 0;
		return;
	}
	VM_BUG_ON_MM(mm->tlb_flush_pending <= 0, mm);
	mm->tlb_flush_pending--;
}

static void tlb_reset_range(struct mmu_gather *tlb)
{
	tlb->start = TLB_FLUSH_ALL; /* TASK_SIZE: above any address */
	tlb->end = 0;
	tlb->freed_tables = false;
	tlb->cleared_ptes = tlb->cleared_pmds = false;
}

void tlb_gather_mmu(struct mmu_gather *tlb, struct mm_struct *mm)
{
	tlb->mm = mm;
	tlb->fullmm = false;
	tlb->need_flush_all = false;
	tlb_reset_range(tlb);
	tlb->opened_at = sim_now(mm->sim);
	inc_tlb_flush_pending(mm);
	if (mm->sim->oracle)
		oracle_note(mm->sim, ON_GATHER_OPEN, mm, 0);
}

static void tlb_adjust_range(struct mmu_gather *tlb, uint64_t address, uint64_t size)
{
	if (address < tlb->start)
		tlb->start = address;
	if (address + size > tlb->end)
		tlb->end = address + size;
}

void tlb_flush_pte_range(struct mmu_gather *tlb, uint64_t address, uint64_t size)
{
	tlb_adjust_range(tlb, address, size);
	tlb->cleared_ptes = true;
}

void tlb_flush_pmd_range(struct mmu_gather *tlb, uint64_t address, uint64_t size)
{
	tlb_adjust_range(tlb, address, size);
	tlb->cleared_pmds = true;
}

/* tlb_flush (x86 asm/tlb.h; arm64 and riscv end in the same call): the
 * stride is that of the smallest level cleared. */
static void tlb_flush(struct mmu_gather *tlb)
{
	uint64_t start = 0, end = TLB_FLUSH_ALL;
	unsigned stride = tlb->cleared_ptes ? PAGE_SHIFT : PMD_SHIFT;

	if (!tlb->fullmm && !tlb->need_flush_all) {
		start = tlb->start;
		end = tlb->end;
	}
	flush_tlb_mm_range(tlb->mm, start, end, stride, tlb->freed_tables);
}

static void tlb_flush_mmu_tlbonly(struct mmu_gather *tlb)
{
	if (!(tlb->freed_tables || tlb->cleared_ptes || tlb->cleared_pmds || tlb->fullmm))
		return;
	tlb_flush(tlb);
	tlb_reset_range(tlb);
}

/* tlb_finish_mmu: if another gather is open on the mm, a PTE this one did
 * not see may have been changed under it, so flush everything (fullmm, with
 * freed_tables, which also IPIs lazy CPUs).  Then drop the pending count.
 * The scanner runs the two halves as separate steps, so the count stays up
 * while the flush takes its simulated time. */
void tlb_finish_mmu_flush(struct mmu_gather *tlb)
{
	if (mm_tlb_flush_nested(tlb->mm)) {
		tlb->fullmm = true;
		tlb_reset_range(tlb);
		tlb->freed_tables = true;
	}
	tlb->mm->sim->flush_origin = FLUSH_FROM_GATHER;
	if (tlb->mm->sim->oracle)
		oracle_note(tlb->mm->sim, ON_GATHER_FLUSH, tlb->mm, 0);
	tlb_flush_mmu_tlbonly(tlb);
	tlb->mm->sim->flush_origin = FLUSH_FROM_OTHER;
}

void tlb_finish_mmu_done(struct mmu_gather *tlb)
{
	dec_tlb_flush_pending(tlb->mm);
	if (tlb->mm->sim->oracle)
		oracle_note(tlb->mm->sim, ON_GATHER_CLOSE, tlb->mm, 0);
}

void tlb_finish_mmu(struct mmu_gather *tlb)
{
	tlb_finish_mmu_flush(tlb);
	tlb_finish_mmu_done(tlb);
}
