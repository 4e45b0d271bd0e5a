/* Run-time choice of the architecture's TLB code, by the machine's flush
 * engine.  The kernel makes this choice at build time. */
#include "asm/mmu_context.h"
#include "asm/tlbflush.h"
#include "kernel/sim.h"

bool pte_accessible(struct mm_struct *mm, pte_t pte)
{
	const struct sim *s = mm->sim;
	if (s->m.engine == FLUSH_ARM64)
		return arm64_pte_accessible(mm, pte);
	/* riscv has the x86 rule since 50b5bae5be1b (v6.11); before it used
	 * the generic fallback, which says every PTE may be cached */
	if (s->m.engine == FLUSH_RISCV && !s->k.riscv_pte_accessible)
		return true;
	return x86_pte_accessible(mm, pte);
}

bool arch_tlbbatch_should_defer(struct mm_struct *mm)
{
	struct sim *s = mm->sim;
	switch (s->m.engine) {
	case FLUSH_ARM64:
		/* arm64 batches only since v6.5, and not with the REPEAT_TLBI
		 * erratum (two TLBIs with a DSB between defeat the purpose) */
		return s->k.arm64_batched_unmap && !s->m.arm64_repeat_tlbi;
	case FLUSH_RISCV:
		/* riscv batches unmap flushes since 54d7431af73e (v6.8) */
		return s->k.riscv_batched_unmap;
	default:
		return x86_tlbbatch_should_defer(mm);
	}
}

void arch_tlbbatch_add_pending(struct arch_tlbflush_unmap_batch *b, struct mm_struct *mm,
			       uint64_t start, uint64_t end)
{
	switch (mm->sim->m.engine) {
	case FLUSH_ARM64:
		arm64_tlbbatch_add_pending(b, mm, start, end);
		break;
	case FLUSH_RISCV:
		riscv_tlbbatch_add_pending(b, mm, start, end);
		break;
	default:
		x86_tlbbatch_add_pending(b, mm, start, end);
	}
}

void flush_tlb_mm_range(struct mm_struct *mm, uint64_t start, uint64_t end,
			unsigned stride_shift, bool freed_tables)
{
	switch (mm->sim->m.engine) {
	case FLUSH_ARM64:
		arm64_flush_tlb_mm_range(mm, start, end, stride_shift, freed_tables);
		break;
	case FLUSH_RISCV:
		riscv_flush_tlb_mm_range(mm, start, end, stride_shift, freed_tables);
		break;
	default:
		x86_flush_tlb_mm_range(mm, start, end, stride_shift, freed_tables);
	}
}

void flush_pmd_tlb_range(struct vm_area_struct *vma, uint64_t start, uint64_t end)
{
	enum flush_engine e = vma->vm_mm->sim->m.engine;
	if (e == FLUSH_ARM64 || e == FLUSH_RISCV) /* both flush a huge page at PMD stride */
		flush_tlb_mm_range(vma->vm_mm, start, end, PMD_SHIFT, false);
	else
		flush_tlb_range(vma, start, end);
}

void arch_flush_tlb_batched_pending(struct mm_struct *mm)
{
	if (mm->sim->m.engine == FLUSH_ARM64)
		arm64_dsb(mm);
	else
		flush_tlb_mm(mm);
}

void arch_tlbbatch_flush(struct sim *s, struct arch_tlbflush_unmap_batch *b)
{
	switch (s->m.engine) {
	case FLUSH_ARM64:
		arm64_tlbbatch_flush(s, b);
		break;
	case FLUSH_RISCV:
		riscv_tlbbatch_flush(s, b);
		break;
	default:
		x86_tlbbatch_flush(s, b);
	}
}

void switch_mm_irqs_off(struct sim *s, int cpu, struct mm_struct *next, uint64_t now)
{
	switch (s->m.engine) {
	case FLUSH_ARM64:
		arm64_switch_mm(s, cpu, next, now);
		break;
	case FLUSH_RISCV:
		riscv_switch_mm(s, cpu, next, now);
		break;
	default:
		x86_switch_mm_irqs_off(s, cpu, next, now);
	}
}

void enter_lazy_tlb(struct sim *s, int cpu)
{
	if (s->m.engine == FLUSH_X86_IPI || s->m.engine == FLUSH_X86_INVLPGB)
		x86_enter_lazy_tlb(s, cpu);
}
