/* riscv TLB shootdowns, after arch/riscv/mm/tlbflush.c (2025): remote
 * sfence.vma by IPI (or SBI, which also interrupts the targets).  A batched
 * flush is a full flush, without ASID, to the recorded CPUs.
 *
 * Model choices: targets are the mm_cpumask CPUs other than the initiator;
 * receivers are counted in the same counters and the "TLB shootdowns" total
 * as on x86 (riscv reports them as IPI function-call interrupts), and only
 * when there is a remote target; a range above tlb_flush_all_threshold (64
 * pages) becomes a full flush; no per-CPU generation tracking, so every
 * target flushes. */
#include "asm/mmu_context.h"
#include "asm/tlbflush.h"
#include "kernel/sim.h"
#include "linux/tlb_oracle.h"

/* tlb_flush_all_threshold: above this many pages a range is a full flush */
#define RISCV_TLB_FLUSH_ALL_THRESHOLD 64

/* The TLB oracle's view of a round: @mm NULL for a batch flush, which
 * flushes without an ASID (every mm's entries). */
static void riscv_oracle_round(struct sim *s, const struct cpumask *mask, struct mm_struct *mm,
			       bool full, uint64_t start, uint64_t end)
{
	int cpu;
	for_each_cpu(cpu, mask) {
		if (!full)
			oracle_range_cpu(s, cpu);
		else if (mm)
			oracle_drop_mm(s, cpu, mm, "sfence.vma (ASID)");
		else
			oracle_drop_cpu(s, cpu, "sfence.vma (all)");
	}
	if (!full)
		oracle_range_done(s, mm, start, end, "sfence.vma range");
}

static void riscv_ipi_round(struct sim *s, const struct cpumask *mask, bool full,
			    unsigned long nr_pages)
{
	const struct cost_model *cm = &s->m.cost;
	int cpu, self = s->e.cpu, nr = 0, near, far;
	double work = full ? cm->cr3_flush_ns : (double)nr_pages * cm->invlpg_ns;
	smp_mask_sockets(s, mask, self, &near, &far);
	const int queued = smp_rounds_in_flight(&s->ipi_rounds, self, mask, sim_now(s));

	for_each_cpu(cpu, mask) {
		if (cpu == self)
			continue;
		struct cpu_state *c = &s->cpus[cpu];
		nr++;
		c->irq_tlb_count++; /* and NR_TLB_REMOTE_FLUSH_RECEIVED: vm_event_cpu */
		steal(s, cpu, COST_IPI_HANDLE, cm->ipi_handler_ns + work);
		if (full)
			tlb_full_flush_refill(s, cpu);
	}
	if (nr) {
		uint64_t now = sim_now(s);
		count_vm_event(s, NR_TLB_REMOTE_FLUSH);
		s->st.flush_rounds++;
		trace(s, TR_FLUSH_ROUND, s->e.cpu, current_pid(s), now, 0, nr, full ? -1 : (long)nr_pages,
		      s->flush_origin, 0);
		double far_ipis = (double)nr * far / (near + far);
		charge(s, COST_FLUSH_WAIT, smp_call_round_ns(cm, nr - far_ipis, far_ipis, queued, work));
		smp_round_done(&s->ipi_rounds, self, mask, sim_now(s));
	}
	if (cpumask_test_cpu(self, mask)) {
		charge(s, COST_FLUSH_LOCAL, work);
		if (full) {
			count_vm_event(s, NR_TLB_LOCAL_FLUSH_ALL);
			tlb_full_flush_refill(s, self);
		} else {
			count_vm_events(s, NR_TLB_LOCAL_FLUSH_ONE, nr_pages);
		}
	}
}

void riscv_flush_tlb_mm_range(struct mm_struct *mm, uint64_t start, uint64_t end,
			      unsigned stride_shift, bool freed_tables)
{
	struct sim *s = mm->sim;
	(void)freed_tables;
	mm->tlb_gen++;
	bool full = end == TLB_FLUSH_ALL ||
		    ((end - start) >> stride_shift) > RISCV_TLB_FLUSH_ALL_THRESHOLD;
	riscv_ipi_round(s, &mm->cpumask, full, full ? 0 : (end - start) >> stride_shift);
	if (s->oracle)
		riscv_oracle_round(s, &mm->cpumask, mm, full, start, end);
}

void riscv_tlbbatch_add_pending(struct arch_tlbflush_unmap_batch *b, struct mm_struct *mm,
				uint64_t start, uint64_t end)
{
	(void)start; (void)end;
	mm->tlb_gen++;
	cpumask_or(&b->cpumask, &b->cpumask, &mm->cpumask);
}

void riscv_tlbbatch_flush(struct sim *s, struct arch_tlbflush_unmap_batch *b)
{
	s->st.batch_flushes++;
	if (!cpumask_empty(&b->cpumask)) {
		riscv_ipi_round(s, &b->cpumask, true, 0);
		if (s->oracle)
			riscv_oracle_round(s, &b->cpumask, NULL, true, 0, 0);
	}
	cpumask_clear(&b->cpumask);
}

/* switch_mm (arch/riscv/mm/context.c, ASID mode): the CPU joins the next
 * mm's mask and never leaves the previous one's ("keep all CPUs' footmarks
 * until mm reset"), so flushes reach every CPU that ever ran the mm. */
void riscv_switch_mm(struct sim *s, int cpu, struct mm_struct *next, uint64_t now)
{
	struct cpu_state *c = &s->cpus[cpu];
	(void)now;
	if (c->loaded_mm == next)
		return;
	cpumask_set_cpu(cpu, &next->cpumask);
	c->loaded_mm = next;
	c->loaded_gen = next->tlb_gen;
	if (s->oracle)
		oracle_load(s, cpu, next);
}
