/* The simulated world: machine, kernel variant, tunables, CPUs, tasks, mms,
 * the timer queue and the counters.  Kernel paths run "on" a CPU in the
 * context of `current`; the time they take is charged to that CPU with
 * charge(), which also advances sim_now() within the step, and time they
 * steal from other CPUs (IPI handling, TLB refill) goes through steal(). */
#ifndef NUMASIM_SIM_H
#define NUMASIM_SIM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "kernel/variants.h"
#include "linux/mm_types.h"
#include "linux/mmdebug.h"
#include "linux/sched.h"
#include "linux/vm_event.h"
#include "machine/machine.h"
#include "sim/rng.h"
#include "sim/timerq.h"
#include "trace/trace.h"
#include "workload/workload.h"

#define NSEC_PER_MSEC 1000000ull
#define NSEC_PER_SEC 1000000000ull

/* Where CPU time went, beyond the workload's own user-mode work. */
enum cost_cause {
	COST_SCAN,          /* task_numa_work: walking and changing PTEs */
	COST_HINT_FAULT,    /* do_numa_page and fault entry/exit */
	COST_MIGRATE,       /* migration setup, unmap, remap (not the copy) */
	COST_MIGRATE_COPY,  /* copying the folio */
	COST_FLUSH_LOCAL,   /* the initiator's own invalidation */
	COST_FLUSH_WAIT,    /* sending IPIs / broadcasts and waiting for them */
	COST_IPI_HANDLE,    /* a receiver's interrupt and flush_tlb_func */
	COST_TLB_REFILL,    /* user-mode page walks refilling a flushed TLB */
	COST_LOCK_WAIT,     /* waiting for a PTE table lock */
	NR_COST_CAUSES
};
extern const char *const cost_cause_names[NR_COST_CAUSES];

/* Tunables, named after the kernel's sysctl and debugfs files. */
struct tunables {
	int numa_balancing;          /* kernel.numa_balancing */
	unsigned scan_delay_ms;      /* numa_balancing/scan_delay_ms */
	unsigned scan_period_min_ms;
	unsigned scan_period_max_ms;
	unsigned scan_size_mb;
};

struct cpu_state {
	int node;
	struct mm_struct *loaded_mm;  /* cpu_tlbstate.loaded_mm */
	uint64_t loaded_gen;          /* tlb_gen this CPU's TLB is up to date with */
	bool is_lazy;
	struct task_struct *curr;
	uint64_t last_full_flush;     /* ns */
	uint64_t irq_tlb_count;       /* /proc/interrupts TLB */
	uint64_t vm_events[NR_VM_EVENT_ITEMS];
	double cost[NR_COST_CAUSES];  /* ns */
	double busy_ns;               /* all non-user time so far */
	double busy_at_account;       /* busy_ns at the last throughput update */
	double stolen_ns;             /* of busy_ns: interrupt handling */
	double stolen_at_account;
};

/* Figures that need instrumentation beyond the kernel's counters (what the
 * bpftrace scripts of the patch series measured: docs/calibration.md). */
struct sim_stats {
	uint64_t scanner_flushes;         /* full flushes by task_numa_work: its gathers' and ... */
	uint64_t scanner_flushes_cpr;     /* ... flush_tlb_batched_pending's in change_pte_range */
	uint64_t numa_gathers;            /* mmu_gathers opened by task_numa_work */
	double numa_gather_ns;            /* their total duration */
	uint64_t passes;                  /* task_numa_work passes (claimed scan periods) */
	double pass_ns;                   /* wall time inside passes (any mm) */
	uint64_t migrations;              /* hint-fault migrations that reached unmap */
	uint64_t migr_saw_pending;        /* ... that saw tlb_flush_pending raised */
	uint64_t migr_overlap_pass;       /* ... that overlapped a scan pass */
	uint64_t migr_in_chunk;           /* ... whose page is in the chunk being scanned */
	uint64_t migr_pte_protnone;       /* ... whose PTE was still PROT_NONE at unmap */
	uint64_t batch_flushes;           /* arch_tlbbatch_flush calls that flushed */
	uint64_t flush_rounds;            /* flush_tlb_multi calls (IPI rounds) */
	uint64_t broadcasts;              /* INVLPGB / TLBI broadcast flushes */
	uint64_t hint_faults_lost;        /* touches dropped: thread in the kernel or in an interrupt */
	uint64_t events;
};

struct sim {
	struct machine m;
	struct kernel_config k;
	struct tunables t;
	struct workload w;
	uint64_t seed;
	uint64_t duration_ns;

	struct cpu_state *cpus;
	struct task_struct *tasks;
	int nr_tasks;
	struct mm_struct *mms;
	int nr_mms;
	struct folio_store *stores;
	int nr_stores;
	uint32_t nr_tables;               /* PTE tables over all VMAs */
	uint64_t *node_free_pages;        /* per node */
	struct vm_area_struct **table_vma;/* global table index -> VMA */

	struct timerq q;
	uint32_t timer_account, timer_end, nr_timers;

	/* execution context of the step being run */
	uint64_t t0;                      /* the step's start (event time) */
	double elapsed;                   /* ns charged in this step so far */
	struct task_struct *current;
	int cpu;                          /* smp_processor_id() */

	struct sim_stats st;
	bool progress;
	FILE *progress_out;
	struct trace_buf *trace;          /* NULL: not tracing */
	int flush_origin;                 /* enum flush_origin of the flush being made */
	struct timeseries *ts;            /* per-second series, always kept */
	struct mm_debug debug;            /* invariant checks (linux/mmdebug.h) */
	bool stop;                        /* end the run at the next event (trace over its limit) */
};

/* Per simulated second: what the plots draw. */
struct timeseries {
	int n;                            /* seconds */
	double *tlb_irqs;                 /* TLB interrupts in that second */
	double *migrations;               /* numa_pages_migrated in that second */
	double *pass_ms;                  /* mean duration of the passes ending in it */
	double *scan_period_ms;           /* numa_scan_period of the last scanning task */
	double *pte_updates;
	uint64_t last_irqs, last_migrated, last_ptes;
	double pass_sum;                  /* current second */
	int pass_n;
	int cur;
};

/* A scan pass of @ns ended; the scanning task's period is @period_ms. */
void sim_pass_done(struct sim *s, double ns, unsigned period_ms);

static inline bool trace_on(const struct sim *s, enum trace_type t)
{
	return s->trace && (s->trace->mask & (1u << t));
}
static inline void trace(struct sim *s, enum trace_type type, int cpu, int pid, uint64_t ts,
			 uint64_t dur, int64_t a, int64_t b, int64_t c, int64_t d)
{
	if (trace_on(s, type))
		trace_emit(s->trace, type, cpu, pid, ts, dur, a, b, c, d);
}
static inline int current_pid(const struct sim *s)
{
	return s->current ? s->current->pid : 0;
}

static inline uint64_t sim_now(const struct sim *s)
{
	return s->t0 + (uint64_t)s->elapsed;
}

static inline uint64_t tick_ns(const struct sim *s)
{
	return NSEC_PER_SEC / (uint64_t)s->m.hz;
}

/* jiffies at simulated time @ns (the tick counter starts at 0). */
static inline uint64_t ns_to_jiffies(const struct sim *s, uint64_t ns)
{
	return ns / tick_ns(s);
}
static inline uint64_t msecs_to_jiffies(const struct sim *s, uint64_t ms)
{
	return (ms * NSEC_PER_MSEC + tick_ns(s) - 1) / tick_ns(s);
}
static inline uint64_t jiffies(const struct sim *s)
{
	return ns_to_jiffies(s, sim_now(s));
}

/* Time spent on the current CPU by the running path. */
static inline void charge(struct sim *s, enum cost_cause c, double ns)
{
	s->elapsed += ns;
	s->cpus[s->cpu].cost[c] += ns;
	s->cpus[s->cpu].busy_ns += ns;
}

/* Time taken from another CPU's work (interrupts, refills).  An interrupt
 * that lands while that CPU's thread is in a kernel path (scanning, faulting,
 * migrating: interrupts enabled) delays the path by as much. */
void steal(struct sim *s, int cpu, enum cost_cause c, double ns);
/* The part of steal() that delays a thread caught in a kernel path. */
void steal_delay(struct sim *s, struct task_struct *t, double ns, uint64_t now);

/* steal() for interrupt handling, inlined for the flush rounds' receivers
 * (@now: the time of the round). */
static inline void steal_irq(struct sim *s, struct cpu_state *c, double ns, uint64_t now)
{
	c->cost[COST_IPI_HANDLE] += ns;
	c->busy_ns += ns;
	c->stolen_ns += ns;
	struct task_struct *t = c->curr;
	if (t && (t->act != ACT_USER || t->busy_until > now))
		steal_delay(s, t, ns, now);
}

/* A full flush at @now: charge the refill its thread will do. */
static inline void tlb_refill_at(struct sim *s, struct cpu_state *c, uint64_t now)
{
	/* A TLB flushed a moment ago holds only what was refilled since, and
	 * refilling runs at about one walk per entry: cap by the time elapsed. */
	double full = machine_tlb_refill_ns(&s->m);
	double since = (double)(now - c->last_full_flush);
	double ns = since < full ? since : full;
	c->cost[COST_TLB_REFILL] += ns;
	c->busy_ns += ns;
	c->last_full_flush = now;
}

static inline int numa_node_id(const struct sim *s) { return s->cpus[s->cpu].node; }

/* Enter the context of @p on its CPU at the step time @t0. */
static inline void sim_enter(struct sim *s, struct task_struct *p, uint64_t t0)
{
	s->current = p;
	s->cpu = p ? p->cpu : 0;
	s->t0 = t0;
	s->elapsed = 0;
}


/* Build the world; on failure (-1, message in @err) whatever was built is
 * freed and @s can be sim_free()d again or dropped. */
int sim_init(struct sim *s, char *err, size_t errlen);
void sim_free(struct sim *s);
/* Run until duration_ns, or until something sets s->stop; returns 0. */
int sim_run(struct sim *s);

/* Helpers shared by kernel paths and the workload */
struct vm_area_struct *find_vma(struct mm_struct *mm, uint64_t addr);
struct pte_table *pte_table_of(struct vm_area_struct *vma, uint64_t addr);
static inline uint64_t pte_index(const struct vm_area_struct *vma, uint64_t addr)
{
	return (addr - vma->vm_start) >> PAGE_SHIFT;
}
static inline uint64_t vma_store_idx(const struct vm_area_struct *vma, uint64_t addr)
{
	return vma->store_pgoff + pte_index(vma, addr);
}
/* set_pte_at: write a PTE and keep the table's PROT_NONE bitmaps in step.
 * Callers that change a table's PROT_NONE set re-arm its hint-fault timer
 * (workload_rearm_table) once they are done with the table. */
void set_pte_at(struct mm_struct *mm, uint64_t addr, pte_t *ptep, pte_t val);
/* Until when @p is inside a kernel path (0 if it runs user code at @now). */
uint64_t task_busy_end(const struct sim *s, const struct task_struct *p, uint64_t now);
/* A thread touches a PROT_NONE page: run the hint fault on its CPU. */
void sim_start_hint_fault(struct sim *s, struct task_struct *p, struct vm_area_struct *vma,
			  uint64_t addr, uint64_t now);
/* A PTE of table @t became (+1) or stopped being (-1) PROT_NONE. */
void workload_count_protnone(struct sim *s, struct vm_area_struct *vma, struct pte_table *t,
			     bool hot, int delta);
/* Timer ids: per task (tick, activity, slice touches), then per process
 * (shared-region touches), then the accounting and end timers. */
static inline uint32_t tick_timer_id(const struct sim *s, int i) { (void)s; return 3u * (uint32_t)i; }
static inline uint32_t act_timer_id(const struct sim *s, int i) { (void)s; return 3u * (uint32_t)i + 1; }
static inline uint32_t touch_timer_id(const struct sim *s, int g)
{
	return g < s->nr_tasks ? 3u * (uint32_t)g + 2
			       : 3u * (uint32_t)s->nr_tasks + (uint32_t)(g - s->nr_tasks);
}
/* Re-draw the next touch of the table's touch group after its PROT_NONE
 * set changed. */
void workload_rearm_table(struct sim *s, struct vm_area_struct *vma, struct pte_table *t);

#endif
