/* The seed table's figures (the patch series "mm/migrate: don't batch the
 * TLB flush when there is nothing to batch", docs/calibration.md), computed from a pair of runs
 * that share everything but kernel.numa_balancing ("the same boot").
 *
 * Definitions:
 * - throughput loss: 1 - ops(on) / ops(off).
 * - kernel cycles per hinting PTE: (kernel ns(on) - kernel ns(off)) summed
 *   over all CPUs, times machine.cpu_ghz, over numa_pte_updates.  Kernel
 *   time is every cost cause except tlb_refill: the page walks that refill
 *   a flushed TLB run in user mode, on behalf of user instructions, and are
 *   reported apart (user refill cycles per hinting PTE).
 * - TLB interrupts per migrated page: /proc/interrupts TLB total over
 *   pgmigrate_success (numa_pages_migrated when only balancing migrates;
 *   the migration calls' pages too).
 * - throughput: operations over the time run (a fixed-work run ends when
 *   its last thread finishes, so its throughput is work over elapsed time
 *   and its loss is 1 - elapsed(off) / elapsed(on)).
 * - time to converge: report/convergence.h (NAN, printed "never", where a
 *   run did not converge); final local share: the hint faults of the last
 *   tenth of the run.
 * Figures marked pair need both runs; the others read one run (the "on"
 * argument), which numasim ab --balancing on|off uses alone. */
#ifndef NUMASIM_FIGURES_H
#define NUMASIM_FIGURES_H

#include <stdio.h>

#include <jansson.h>

#include "kernel/sim.h"

/* What a finished run leaves for the figures (the sim itself is freed). */
struct run_result {
	double sim_s;             /* time run: the duration, or when the work was done */
	bool fixed_work, finished;
	int nr_cpus;
	double cpu_ghz;
	unsigned long long vm[NR_VM_EVENT_ITEMS];
	unsigned long long tlb_irqs;
	struct sim_stats st;
	double cost_ns[NR_COST_CAUSES];
	double ops;
	double remote_ns;
	int nr_calls;             /* migration system calls made (one may be unfinished) */
	double call_s;            /* their time, summed */
	double call_pages;        /* pages they moved */
	unsigned long long migration_switch_reads; /* sim.migration_switch_reads */
	double converged_s;       /* convergence_time: -1 if it did not */
	double final_local_share; /* hint faults over the last tenth: -1 without */
	double promoted, demoted; /* pgpromote_success, pgdemote_kswapd + _direct (memory tiering) */
};

void run_result_from_sim(const struct sim *s, struct run_result *r);

enum ab_figure {
	FIG_LOSS,
	FIG_KCYCLES,
	FIG_IRQ_PER_MIGRATED,
	FIG_ELAPSED,
	FIG_ELAPSED_OFF,
	FIG_CONVERGED,
	FIG_FINAL_LOCAL,
	FIG_NUMA_MOVES,
	FIG_NUMA_SWAPS,
	FIG_THROUGHPUT,
	FIG_TLB_IRQS,
	FIG_PAGES_MIGRATED,
	FIG_CALL_RATE,
	FIG_PROMOTED_PER_S,      /* memory tiering (a machine with CPU-less nodes) */
	FIG_DEMOTED_PER_S,
	FIG_IRQ_PER_PROMOTED,
	FIG_REFILL_CYCLES,
	FIG_SCANNER_FLUSHES_55S,
	FIG_CPR_SHARE,
	FIG_GATHER_MS,
	FIG_PENDING_SHARE,
	FIG_PASS_WALL_SHARE,
	FIG_OVERLAP_SHARE,
	FIG_IN_CHUNK_SHARE,
	FIG_PROTNONE_SHARE,
	FIG_MIGRATIONS_PER_S,
	FIG_PTE_UPDATES_PER_S,
	NR_AB_FIGURES
};

struct ab_figure_def {
	const char *key;     /* JSON key */
	const char *label;   /* table row */
	double scale;        /* printed value = value * scale */
	const char *unit;
	int decimals;
	bool headline;       /* part of the seed's published table */
	bool pair;           /* needs the balancing-off run too */
};

extern const struct ab_figure_def ab_figures[NR_AB_FIGURES];

double ab_figure_value(enum ab_figure f, const struct run_result *on, const struct run_result *off);

/* "lo-hi" of figure @f as the tables print it (scaled, with its unit). */
void ab_figure_format(char *buf, size_t len, enum ab_figure f, double lo, double hi);

/* Kernel time: every cost cause but the user-mode TLB refill. */
double run_kernel_ns(const struct run_result *r);

#endif
