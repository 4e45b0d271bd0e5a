#include "report/figures.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/convergence.h"

void run_result_from_sim(const struct sim *s, struct run_result *r)
{
	memset(r, 0, sizeof(*r));
	r->sim_s = (double)(s->end_ns ? s->end_ns : s->duration_ns) / 1e9;
	r->fixed_work = s->w.p.work_mops > 0;
	r->finished = r->fixed_work && s->end_ns < s->duration_ns;
	r->nr_cpus = s->m.nr_cpus;
	r->cpu_ghz = s->m.cpu_ghz;
	for (int i = 0; i < NR_VM_EVENT_ITEMS; i++)
		r->vm[i] = vm_event_sum(s, (enum vm_event_item)i);
	for (int c = 0; c < s->m.nr_cpus; c++) {
		r->tlb_irqs += s->cpus[c].irq_tlb_count;
		for (int k = 0; k < NR_COST_CAUSES; k++)
			r->cost_ns[k] += engine_cost(&s->e.acct[c], k);
	}
	r->st = s->st;
	r->ops = s->w.total_ops;
	r->remote_ns = s->w.remote_ns;
	r->nr_calls = s->nr_calls;
	r->migration_switch_reads = s->migration_switch_reads;
	r->converged_s = convergence_time(s);
	r->final_local_share = convergence_final_local_share(s);
	for (int n = 0; n < s->m.nr_nodes; n++) {
		r->promoted += (double)s->pgdat[n].stat[PGPROMOTE_SUCCESS];
		r->demoted += (double)(s->pgdat[n].stat[PGDEMOTE_KSWAPD] + s->pgdat[n].stat[PGDEMOTE_DIRECT]);
	}
	for (int i = 0; i < s->nr_calls; i++) {
		r->call_s += (double)(s->calls[i].end_ns - s->calls[i].start_ns) / 1e9;
		r->call_pages += (double)s->calls[i].moved;
	}
}

const struct ab_figure_def ab_figures[NR_AB_FIGURES] = {
	[FIG_LOSS] = { "throughput_loss", "throughput loss from balancing", 100, "%", 1, true, true },
	[FIG_KCYCLES] = { "kernel_cycles_per_hinting_pte", "kernel cycles per hinting PTE", 1e-6, "M", 2, true, true },
	[FIG_IRQ_PER_MIGRATED] = { "tlb_irqs_per_migrated_page", "TLB interrupts per migrated page", 1, "", 1, true, false },
	[FIG_ELAPSED] = { "elapsed_s", "elapsed time (fixed work)", 1, " s", 2, false, false },
	[FIG_ELAPSED_OFF] = { "elapsed_off_s", "  with balancing off", 1, " s", 2, false, true },
	[FIG_CONVERGED] = { "converged_s", "time to converge", 1, " s", 0, false, false },
	[FIG_FINAL_LOCAL] = { "final_local_fault_share", "local hint faults, last tenth of the run", 100, "%", 1,
			      false, false },
	[FIG_NUMA_MOVES] = { "numa_task_moves", "NUMA task moves (migrate_task_to)", 1, "", 0, false, false },
	[FIG_NUMA_SWAPS] = { "numa_task_swaps", "NUMA task swaps (migrate_swap)", 1, "", 0, false, false },
	[FIG_THROUGHPUT] = { "throughput_mops_per_s", "throughput, Mops/s", 1e-6, "", 1, false, false },
	[FIG_TLB_IRQS] = { "tlb_irqs", "TLB interrupts", 1, "", 0, false, false },
	[FIG_PAGES_MIGRATED] = { "pages_migrated", "pages migrated (pgmigrate_success)", 1, "", 0, false, false },
	[FIG_CALL_RATE] = { "call_pages_per_s", "migration calls: pages moved per s", 1, "", 0, false, false },
	[FIG_PROMOTED_PER_S] = { "promoted_per_s", "pages promoted per s (pgpromote_success)", 1, "", 0, false, false },
	[FIG_DEMOTED_PER_S] = { "demoted_per_s", "pages demoted per s (pgdemote_*)", 1, "", 0, false, false },
	[FIG_IRQ_PER_PROMOTED] = { "tlb_irqs_per_promoted_page", "TLB interrupts per promoted page", 1, "", 1, false, false },
	[FIG_REFILL_CYCLES] = { "user_refill_cycles_per_hinting_pte", "user TLB-refill cycles per hinting PTE", 1e-6, "M", 2, false, true },
	[FIG_SCANNER_FLUSHES_55S] = { "scanner_full_flushes_per_55s", "scanner full flushes per 55 s", 1, "", 0, false, false },
	[FIG_CPR_SHARE] = { "scanner_flushes_from_change_pte_range", "  of them from change_pte_range", 100, "%", 1, false, false },
	[FIG_GATHER_MS] = { "mean_gather_ms", "mean mmu_gather in task_numa_work", 1, " ms", 1, false, false },
	[FIG_PENDING_SHARE] = { "pending_migration_share", "migrations that saw tlb_flush_pending", 100, "%", 1, false, false },
	[FIG_PASS_WALL_SHARE] = { "pass_wall_share", "wall time inside a scan pass", 100, "%", 1, false, false },
	[FIG_OVERLAP_SHARE] = { "overlapping_migration_share", "migrations overlapping a pass", 100, "%", 1, false, false },
	[FIG_IN_CHUNK_SHARE] = { "overlap_in_chunk_share", "  of them in the chunk being scanned", 100, "%", 1, false, false },
	[FIG_PROTNONE_SHARE] = { "protnone_at_unmap_share", "migrated PTEs still PROT_NONE at unmap", 100, "%", 1, false, false },
	[FIG_MIGRATIONS_PER_S] = { "migrations_per_s", "numa_pages_migrated per second", 1, "", 0, false, false },
	[FIG_PTE_UPDATES_PER_S] = { "pte_updates_per_s", "numa_pte_updates per second", 1, "", 0, false, false },
};

static double ratio(double num, double den)
{
	return den > 0 ? num / den : 0;
}

double run_kernel_ns(const struct run_result *r)
{
	double ns = 0;
	for (int k = 0; k < NR_COST_CAUSES; k++)
		if (k != COST_TLB_REFILL)
			ns += r->cost_ns[k];
	return ns;
}

double ab_figure_value(enum ab_figure f, const struct run_result *on, const struct run_result *off)
{
	const struct sim_stats *st = &on->st;
	double ptes = (double)on->vm[NUMA_PTE_UPDATES];
	double migrated = (double)on->vm[PGMIGRATE_SUCCESS]; /* numa_pages_migrated, and the calls' */

	switch (f) {
	case FIG_LOSS:
		return off->ops > 0 ? 1 - ratio(on->ops, on->sim_s) / ratio(off->ops, off->sim_s) : 0;
	case FIG_KCYCLES:
		return ratio((run_kernel_ns(on) - run_kernel_ns(off)) * on->cpu_ghz, ptes);
	case FIG_IRQ_PER_MIGRATED:
		return ratio((double)on->tlb_irqs, migrated);
	case FIG_ELAPSED:
		return on->sim_s;
	case FIG_ELAPSED_OFF:
		return off->sim_s;
	case FIG_CONVERGED:
		return on->converged_s >= 0 ? on->converged_s : NAN;
	case FIG_FINAL_LOCAL:
		return on->final_local_share >= 0 ? on->final_local_share : NAN;
	case FIG_NUMA_MOVES:
		return (double)st->numa_task_moves;
	case FIG_NUMA_SWAPS:
		return (double)st->numa_task_swaps;
	case FIG_THROUGHPUT:
		return ratio(on->ops, on->sim_s);
	case FIG_TLB_IRQS:
		return (double)on->tlb_irqs;
	case FIG_PAGES_MIGRATED:
		return (double)on->vm[PGMIGRATE_SUCCESS];
	case FIG_CALL_RATE:
		return ratio(on->call_pages, on->call_s);
	case FIG_PROMOTED_PER_S:
		return ratio(on->promoted, on->sim_s);
	case FIG_DEMOTED_PER_S:
		return ratio(on->demoted, on->sim_s);
	case FIG_IRQ_PER_PROMOTED:
		return on->promoted > 0 ? (double)on->tlb_irqs / on->promoted : NAN;
	case FIG_REFILL_CYCLES:
		return ratio((on->cost_ns[COST_TLB_REFILL] - off->cost_ns[COST_TLB_REFILL]) * on->cpu_ghz,
			     ptes);
	case FIG_SCANNER_FLUSHES_55S:
		return ratio((double)st->scanner_flushes * 55, on->sim_s);
	case FIG_CPR_SHARE:
		return ratio((double)st->scanner_flushes_cpr, (double)st->scanner_flushes);
	case FIG_GATHER_MS:
		return ratio(st->numa_gather_ns / 1e6, (double)st->numa_gathers);
	case FIG_PENDING_SHARE:
		return ratio((double)st->migr_saw_pending, (double)st->migrations);
	case FIG_PASS_WALL_SHARE:
		return ratio(st->pass_ns / 1e9, on->sim_s);
	case FIG_OVERLAP_SHARE:
		return ratio((double)st->migr_overlap_pass, (double)st->migrations);
	case FIG_IN_CHUNK_SHARE:
		return ratio((double)st->migr_in_chunk, (double)st->migr_overlap_pass);
	case FIG_PROTNONE_SHARE:
		return ratio((double)st->migr_pte_protnone, (double)st->migrations);
	case FIG_MIGRATIONS_PER_S:
		return ratio((double)on->vm[NUMA_PAGE_MIGRATE], on->sim_s);
	case FIG_PTE_UPDATES_PER_S:
		return ratio(ptes, on->sim_s);
	default:
		return 0;
	}
}

void ab_figure_format(char *buf, size_t len, enum ab_figure f, double lo, double hi)
{
	const struct ab_figure_def *d = &ab_figures[f];
	int dec = d->decimals;
	if (d->decimals == 1 && hi * d->scale >= 100)
		dec = 0;
	/* "lo-hi", or "lo..hi" when a minus sign would make the dash ambiguous */
	snprintf(buf, len, "%.*f%s%.*f%s", dec, lo * d->scale, lo < 0 ? ".." : "-", dec, hi * d->scale, d->unit);
}
