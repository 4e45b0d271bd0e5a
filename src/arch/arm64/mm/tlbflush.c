/* arm64 TLB maintenance, after arch/arm64/include/asm/tlbflush.h (2025):
 * broadcast TLBI instructions invalidate every CPU's TLB for an ASID or a
 * VA, and a DSB ISH waits for them to complete.  No IPIs, so no shootdown
 * interrupts and none of the x86 nr_tlb_* counters.
 *
 * The REPEAT_TLBI erratum is a machine property (machine.arm64_repeat_tlbi:
 * no batched unmap flush), and so is FEAT_TLBIRANGE (machine.arm64_tlbi_range:
 * __flush_tlb_range issues range TLBIs, and only a range above
 * MAX_TLBI_RANGE_PAGES becomes a whole-ASID flush; range TLBI support is in
 * every modelled base, since v5.11).  Left out: the TTL hints and the SMMU /
 * secondary-TLB notifiers. */
#include "asm/mmu_context.h"
#include "asm/tlbflush.h"
#include "kernel/sim.h"
#include "linux/tlb_oracle.h"

/* MAX_TLBI_OPS (MAX_DVM_OPS in later trees): without range TLBIs, a range
 * of this many strides or more becomes a whole-ASID flush. */
#define MAX_TLBI_OPS PTRS_PER_PTE
/* MAX_TLBI_RANGE_PAGES = __TLBI_RANGE_PAGES(31, 3): the most one range
 * operation sequence covers; above it, a whole-ASID flush. */
#define MAX_TLBI_RANGE_PAGES (32ul << 16)

/* The number of TLBI instructions __flush_tlb_range_op issues for @pages
 * with range operations: one per non-zero 5-bit digit of pages/2 (scale 3
 * down to 0, each covering (num + 1) << (5 * scale + 1) pages), plus one
 * single-page TLBI for an odd page. */
static unsigned tlbi_range_ops(unsigned long pages)
{
	unsigned ops = pages & 1;
	for (unsigned long rest = pages >> 1; rest; rest >>= 5)
		ops += (rest & 0x1f) != 0;
	return ops;
}

/* arm64 pte_accessible: with a flush pending, any present (valid or
 * PROT_NONE) PTE; otherwise only a valid one. */
bool arm64_pte_accessible(struct mm_struct *mm, pte_t pte)
{
	if (mm->tlb_flush_pending && !mm->sim->k.no_pending_check)
		return pte_present(pte);
	return pte & PTE_PRESENT;
}

/* Every CPU running the mm loses its translations for the ASID. */
static void invalidate_asid_everywhere(struct sim *s, struct mm_struct *mm)
{
	int cpu;
	for_each_cpu(cpu, &mm->cpumask) {
		if (s->cpus[cpu].loaded_mm == mm) {
			tlb_full_flush_refill(s, cpu);
			s->cpus[cpu].loaded_gen = mm->tlb_gen;
		}
	}
}

/* DSB ISH on the current CPU: waits for the broadcast TLBIs this CPU
 * issued, and only those (the oracle's per-issuer completion). */
static void dsb_done(struct sim *s, const char *how)
{
	if (s->oracle)
		oracle_issued_complete(s, s->e.cpu, how);
}

void arm64_dsb(struct mm_struct *mm)
{
	charge(mm->sim, COST_FLUSH_WAIT, mm->sim->m.cost.dsb_ns);
	dsb_done(mm->sim, "DSB ISH (arch_flush_tlb_batched_pending): this CPU's TLBIs complete");
}

void arm64_flush_tlb_mm_range(struct mm_struct *mm, uint64_t start, uint64_t end,
			      unsigned stride_shift, bool freed_tables)
{
	struct sim *s = mm->sim;
	uint64_t now = sim_now(s);
	(void)freed_tables;
	mm->tlb_gen++;
	s->st.broadcasts++;
	bool whole = end == TLB_FLUSH_ALL ||
		     (s->m.arm64_tlbi_range ? ((end - start) >> PAGE_SHIFT) > MAX_TLBI_RANGE_PAGES
					    : ((end - start) >> stride_shift) >= MAX_TLBI_OPS);
	if (whole) {
		/* flush_tlb_mm: TLBI ASIDE1IS, DSB ISH */
		charge(s, COST_FLUSH_WAIT, s->m.cost.tlbi_ns + s->m.cost.dsb_ns);
		invalidate_asid_everywhere(s, mm);
		for (int i = 0; s->oracle && i < s->m.nr_cpus; i++) /* broadcast: every CPU */
			oracle_drop_mm(s, i, mm, "TLBI ASIDE1IS");
		dsb_done(s, "DSB ISH (after a TLBI): this CPU's earlier TLBIs complete");
		trace(s, TR_FLUSH_ROUND, s->e.cpu, current_pid(s), now, sim_now(s) - now, 0, -1,
		      s->flush_origin, 0);
		return;
	}
	/* __flush_tlb_range: one TLBI VALE1IS per stride, or a few range
	 * TLBIs (RVALE1IS) with FEAT_TLBIRANGE, then DSB ISH */
	unsigned long nr = s->m.arm64_tlbi_range ? tlbi_range_ops((end - start) >> PAGE_SHIFT)
						 : (end - start) >> stride_shift;
	charge(s, COST_FLUSH_WAIT, (double)nr * s->m.cost.tlbi_ns + s->m.cost.dsb_ns);
	if (s->oracle)
		oracle_drop_range_all(s, mm, start, end, "TLBI VALE1IS");
	dsb_done(s, "DSB ISH (after a TLBI): this CPU's earlier TLBIs complete");
	trace(s, TR_FLUSH_ROUND, s->e.cpu, current_pid(s), now, sim_now(s) - now, 0, (long)nr,
	      s->flush_origin, 0);
}

/* arch_tlbbatch_add_pending: issue the TLBIs now, without waiting. */
void arm64_tlbbatch_add_pending(struct arch_tlbflush_unmap_batch *b, struct mm_struct *mm,
				uint64_t start, uint64_t end)
{
	unsigned long nr = (end - start) >> PAGE_SHIFT;
	mm->tlb_gen++;
	b->nr_tlbi += (uint32_t)nr;
	charge(mm->sim, COST_FLUSH_WAIT, (double)nr * mm->sim->m.cost.tlbi_ns);
	/* issued, not complete: only a DSB on this CPU completes it (the
	 * batch's, in try_to_unmap_flush); until then any CPU may still
	 * translate the page */
	if (mm->sim->oracle)
		oracle_issued(mm->sim, mm->sim->e.cpu, mm, start, end);
}

/* arch_tlbbatch_flush: one DSB completes every TLBI issued for the batch. */
void arm64_tlbbatch_flush(struct sim *s, struct arch_tlbflush_unmap_batch *b)
{
	uint64_t now = sim_now(s);
	s->st.batch_flushes++;
	charge(s, COST_FLUSH_WAIT, s->m.cost.dsb_ns);
	dsb_done(s, "DSB ISH (arch_tlbbatch_flush): this CPU's batched TLBIs complete");
	trace(s, TR_FLUSH_ROUND, s->e.cpu, current_pid(s), now, sim_now(s) - now, 0, (long)b->nr_tlbi,
	      s->flush_origin, 0);
	b->nr_tlbi = 0;
}

/* switch_mm -> check_and_switch_context: the mm's ASID is installed; a
 * broadcast TLBI reaches every CPU whatever it runs, so the model's
 * mm_cpumask only records which CPUs have the mm loaded (the ones a
 * whole-ASID flush makes refill).  ASID rollover (a flush of every CPU
 * when 2^16 ASIDs run out) is left out. */
void arm64_switch_mm(struct sim *s, int cpu, struct mm_struct *next, uint64_t now)
{
	struct cpu_state *c = &s->cpus[cpu];
	(void)now;
	if (c->loaded_mm == next)
		return;
	if (c->loaded_mm)
		cpumask_clear_cpu(cpu, &c->loaded_mm->cpumask);
	cpumask_set_cpu(cpu, &next->cpumask);
	c->loaded_mm = next;
	c->loaded_gen = next->tlb_gen;
	if (s->oracle) /* the ASID's entries survive a switch away */
		oracle_load(s, cpu, next);
}
