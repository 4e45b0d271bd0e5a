/* The simulated system: machine, kernel variant, tunables, CPUs, tasks, mms,
 * the workload, the engine and the counters.  Kernel paths run "on" a CPU
 * in the context of `current`; the time they take is charged to that CPU
 * with charge(), which also advances sim_now() within the step, and time
 * they steal from other CPUs (IPI handling, TLB refill) goes through
 * steal().  Both are the engine's accounting (sim/engine.h). */
#ifndef NUMASIM_KERNEL_SIM_H
#define NUMASIM_KERNEL_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "kernel/variants.h"
#include "linux/huge_mm.h"
#include "linux/memory-tiers.h"
#include "linux/migrate.h"
#include "linux/mm.h"
#include "linux/mm_types.h"
#include "linux/mmdebug.h"
#include "linux/mmzone.h"
#include "linux/sched.h"
#include "linux/vm_event.h"
#include "kernel/smp.h"
#include "machine/machine.h"
#include "sim/engine.h"
#include "sim/rng.h"
#include "trace/trace.h"
#include "workload/workload.h"

/* Tunables, named after the kernel's sysctl and debugfs files. */
struct tunables {
	int numa_balancing;          /* kernel.numa_balancing */
	unsigned scan_delay_ms;      /* numa_balancing/scan_delay_ms */
	unsigned scan_period_min_ms;
	unsigned scan_period_max_ms;
	unsigned scan_size_mb;
	unsigned hot_threshold_ms;   /* numa_balancing/hot_threshold_ms (debugfs) */
	unsigned promote_rate_limit_mbps; /* kernel.numa_balancing_promote_rate_limit_MBps */
	bool demotion_enabled;       /* /sys/kernel/mm/numa/demotion_enabled */
	struct thp_tunables thp;     /* /sys/kernel/mm/transparent_hugepage/ */
};

#define TLB_NR_DYN_ASIDS 6

/* A CPU.  An IPI round reads and updates every receiver's TLB state, its
 * running task and its interrupt count: those come first, in one cache
 * line (the array is 64-byte aligned); the round's vm_events counter is a
 * second line. */
struct cpu_state {
	_Alignas(64) struct mm_struct *loaded_mm; /* cpu_tlbstate.loaded_mm */
	uint64_t loaded_gen;          /* tlb_gen this CPU's TLB is up to date with */
	struct task_struct *curr;
	uint64_t last_full_flush;     /* ns */
	uint64_t irq_tlb_count;       /* /proc/interrupts TLB */
	bool is_lazy;
	uint8_t loaded_asid, next_asid;            /* x86 dynamic ASIDs (PCID) */
	int node;
	struct mm_struct *ledger_mm;  /* the mm whose round ledger keeps the above, or NULL */
	struct mm_struct *asid_mm[TLB_NR_DYN_ASIDS];/* cpu_tlbstate.ctxs[]: owner ... */
	uint64_t asid_gen[TLB_NR_DYN_ASIDS];       /* ... and its tlb_gen */
	uint64_t vm_events[NR_VM_EVENT_ITEMS];
	uint64_t ledger_rounds;       /* its ledger's sums when it last settled */
	engine_fx_t ledger_recv, ledger_refill;
};
_Static_assert(offsetof(struct cpu_state, ledger_mm) < 64, "a flush receiver's TLB state in one line");

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
	uint64_t scan_period_resets;      /* update_scan_period resets (cross-node moves) */
	uint64_t numa_task_moves;         /* task_numa_migrate: migrate_task_to */
	uint64_t numa_task_swaps;         /* task_numa_migrate: migrate_swap */
	uint64_t context_switches;        /* context_switch to a task */
	uint64_t task_migrations;         /* set_task_cpu to another CPU (se.nr_migrations) */
	uint64_t task_node_moves;         /* ... to another node */
	uint64_t events;
	uint64_t hint_faults_pooled;      /* faults on pooled tables (aggregated mode) */
	uint64_t hint_faults_bulk;        /* of them, drawn in bulk (no event each) */
	uint64_t tables_materialised;     /* PTE tables held page by page (set-up or first reach) */
};

struct sched_state;
struct tlb_oracle;
struct madvise_state;
struct vmscan_state;

/* One migration system call, for the report. */
struct call_record {
	uint64_t start_ns, end_ns;
	int from, to;
	unsigned long moved, failed;      /* pages */
	unsigned long hint_fails;         /* hint faults that found a folio of the call isolated */
	bool unfinished;                  /* still running when the run ended */
};

struct sim {
	struct machine m;
	uint64_t tick;                    /* NSEC_PER_SEC / HZ (sim_init): tick_ns() */
	struct kernel_config k;
	struct tunables t;
	struct workload w;
	uint64_t seed;
	uint64_t duration_ns;             /* the longest the run may last */
	uint64_t end_ns;                  /* when it ended: duration_ns, or when the work was done */

	struct cpu_state *cpus;
	struct task_struct *tasks;
	struct migrate_ctx *mctx_pool;    /* [task]: its migrate_pages() lists (task_mctx) */
	int nr_tasks;
	uint64_t task_node_gen;           /* moves when a task changes CPU (workload's op_ns) */
	uint64_t task_state_gen;          /* ... or state (workload's bandwidth bound): every
					   * write of a task's state moves it */
	struct mm_struct *mms;
	int nr_mms;
	struct folio_store *stores;
	int nr_stores;
	uint32_t nr_tables;               /* PTE tables over all VMAs */
	uint64_t *node_free_pages;        /* per node */
	uint64_t *node_numa;              /* [node][enum numa_stat_item]: zone_statistics */

	struct pglist_data *pgdat;        /* per node: free blocks, kcompactd, split queue */
	struct vm_area_struct **table_vma;/* global table index -> VMA */

	struct sched_state *sched;        /* runqueues, domains (kernel/sched/sched.h) */
	struct engine e;                  /* time, timers, per-CPU accounting */
	uint32_t timer_account, timer_end, nr_timers;
	struct task_struct *current;      /* the task of the step being run */

	struct sim_stats st;
	/* task_numa_work's mmu_gather durations (what numa_gather_ns sums), by
	 * size: bucket 0 under 1 us, bucket k in [2^(k-1), 2^k) us, the last
	 * one everything longer */
#define NR_GATHER_HIST 24
	uint64_t gather_hist[NR_GATHER_HIST];
	/* For each PTE whose unmap was batched (set_tlb_ubc_flush_pending),
	 * the time from its recording to the end of the flush that pays for
	 * it (try_to_unmap_flush), by size: bucket 0 under 1 ns, bucket k in
	 * [2^(k-1), 2^k) ns, the last one everything longer */
#define NR_DELAY_HIST 32
	uint64_t delay_hist[NR_DELAY_HIST];
	uint32_t ubc_trace_seq;           /* the last unmap batch id given while tracing */
	uint64_t mthp_stats[NR_PAGE_ORDERS][NR_MTHP_STAT_ITEMS]; /* per size (v6.10+) */
	bool exact;                       /* every hint fault exact (run.exact): no pool */
	/* times a path reached a kernel switch that acts only inside a
	 * migration's unmap (kernel_config_same_unmigrated): while 0, those
	 * switches have not changed the run */
	uint64_t migration_switch_reads;
	uint64_t compact_every_ns;        /* echo 1 > /proc/sys/vm/compact_memory this often (0: never) */
	struct compact_state *compact;    /* mm/compaction.c: kcompactd and the forced runs */
	struct madvise_state *madvise;    /* mm/madvise.c: the MADV_COLD callers, or NULL */
	bool progress;
	FILE *progress_out;
	int flush_origin;                 /* enum flush_origin of the flush being made */
	struct cpumask ledger_cpus;       /* CPUs in an mm's round ledger (arch/x86/mm/tlb.c) */
	struct cpumask *socket_cpus;      /* [socket]: its CPUs */
	struct smp_inflight ipi_rounds;   /* IPI rounds in flight (kernel/smp.h) */
	uint64_t last_round_end;          /* when the last IPI round ended (its initiator's wait) */
	double tlb_reuse_entries;         /* entries a thread reuses after a full flush ... */
	double tlb_refill_ns;             /* ... and their walks (workload/tlb_reuse.h) */
	bool no_ledger;                   /* NUMASIM_LEDGER=0: no CPU joins one (a test's check) */
	struct timeseries *ts;            /* per-second series, always kept */
	double *node_run_ns;              /* per node: CPU time the tasks ran there */
	double *task_node_run_ns;         /* [task][node]: the same per task */
	struct mm_struct *caller_mm;      /* the migration calls' process (no memory) */
	struct call_record *calls;        /* the migration calls made */
	int nr_calls, max_calls;          /* recorded, room for (sim_record_call) */
	bool calls_oom;                   /* a call could not be recorded: the run fails */
	struct mm_debug debug;            /* invariant checks (linux/mmdebug.h) */
	bool stop;                        /* end the run at the next event (trace over its limit) */
	struct tlb_oracle *oracle;        /* the TLB oracle (linux/tlb_oracle.h), NULL when off */
	struct vmscan_state *vmscan;      /* mm/vmscan.c: kswapd per node, or NULL */
	struct memory_tiers tiers;        /* mm/memory-tiers.c, from the machine */
	uint64_t toptier_mask;            /* node_is_toptier, as a node mask */
	uint64_t kswapd_wakes;            /* wakeup_kswapd calls: a promotion short of room, a first touch past the low watermark */
};

/* node_is_toptier (mm/memory-tiers.c). */
static inline bool node_is_toptier(const struct sim *s, int nid)
{
	return (s->toptier_mask >> nid) & 1;
}

/* The sched_numa_balancing static key: on in every mode but 0. */
static inline bool sched_numa_balancing(const struct sim *s)
{
	return s->t.numa_balancing != 0;
}

/* sysctl_numa_balancing_mode & NUMA_BALANCING_MEMORY_TIERING (2). */
static inline bool numa_tiering_mode(const struct sim *s)
{
	return s->t.numa_balancing & 2;
}

/* folio_use_access_time (v6.12 open-codes it): in tiering mode a slow-tier
 * folio's last_cpupid holds the time it was last scanned, in ms. */
static inline bool folio_use_access_time(const struct sim *s, int folio_nid)
{
	return numa_tiering_mode(s) && !node_is_toptier(s, folio_nid);
}

/* Per simulated second: what the plots draw.  The counter columns are the
 * increase of a cumulative count in each second (TS_* order). */
enum ts_counter {
	TS_TLB_IRQS,          /* /proc/interrupts TLB shootdowns */
	TS_MIGRATIONS,        /* numa_pages_migrated */
	TS_PTE_UPDATES,       /* numa_pte_updates */
	TS_HINT_FAULTS,       /* numa_hint_faults */
	TS_HINT_FAULTS_LOCAL, /* numa_hint_faults_local */
	TS_NODE_MOVES,        /* tasks moved to another node */
	TS_OPS,               /* the workload's operations (throughput) */
	NR_TS_COUNTERS
};
extern const char *const ts_counter_names[NR_TS_COUNTERS];

/* Per simulated second on a machine with a slow tier (else not kept). */
enum tier_series {
	TIER_PROMOTED,        /* pgpromote_success in the second */
	TIER_DEMOTED,         /* pgdemote_kswapd + pgdemote_direct */
	TIER_CANDIDATES,      /* pgpromote_candidate: what the rate limit counts */
	TIER_TOP_GIB,         /* memory in use on top-tier nodes at its end, GiB */
	TIER_SLOW_GIB,        /* ... on the others */
	TIER_TOP_TOUCHES,     /* the share of the workload's touches that land on the top tier */
	TIER_THRESHOLD_MS,    /* the hot threshold (nbp_threshold, else the default), top-tier nodes' highest */
	NR_TIER_SERIES
};
extern const char *const tier_series_names[NR_TIER_SERIES];

struct timeseries {
	int n;                            /* seconds */
	double *tier[NR_TIER_SERIES];     /* per second, or NULL: no slow tier */
	uint64_t tier_last[3];            /* the counters' totals at the last second */
	double *count[NR_TS_COUNTERS];    /* per second */
	double last[NR_TS_COUNTERS];      /* cumulative values at the last second */
	double *pass_ms;                  /* mean duration of the passes ending in it */
	double *scan_period_ms;           /* numa_scan_period of the last scanning task */
	double pass_sum;                  /* current second */
	int pass_n;
	int cur;
	/* Per process (mm id), per second: the convergence series. */
	int nr_mms;
	size_t mm_stride;                 /* seconds allotted per process */
	double *faults, *faults_local;    /* [mm][s]: its tasks' hint faults, local ones */
	double *faults_ended;             /* [mm][s]: hint faults ended (task_numa_fault) ... */
	double *faults_ended_local;       /* [mm][s]: ... of them with the page on the task's node */
	double *mem_share;                /* [mm][s]: its tasks' local touch share at the end, -1: none */
	uint64_t *mm_last;                /* [mm][4]: the four fault counts at the last second */
	uint16_t *task_nodes;             /* [mm][s][node]: its tasks at work there at the end */
	double *mm_sum;                   /* [mm]: scratch for the second being closed */
	int *mm_live;
};

/* Where process @mm's series for second @sec is (faults, mem_share). */
static inline size_t ts_mm_at(const struct timeseries *ts, int mm, int sec)
{
	return (size_t)mm * ts->mm_stride + (size_t)sec;
}
/* ... and its tasks on node 0 in task_nodes (@nodes per second). */
static inline size_t ts_mm_nodes_at(const struct timeseries *ts, int mm, int sec, int nodes)
{
	return ts_mm_at(ts, mm, sec) * (size_t)nodes;
}

/* A scan pass of @ns ended; the scanning task's period is @period_ms. */
void sim_pass_done(struct sim *s, double ns, unsigned period_ms);

static inline bool trace_on(const struct sim *s, enum trace_type t)
{
	return engine_trace_on(&s->e, t);
}
static inline void trace(struct sim *s, enum trace_type type, int cpu, int pid, uint64_t ts,
			 uint64_t dur, int64_t a, int64_t b, int64_t c, int64_t d)
{
	if (trace_on(s, type))
		trace_emit(s->e.trace, type, cpu, pid, ts, dur, a, b, c, d);
}
static inline int current_pid(const struct sim *s)
{
	return s->current ? s->current->pid : 0;
}

static inline uint64_t sim_now(const struct sim *s)
{
	return engine_now(&s->e);
}

/* The tick's length, computed once (sim_init): a division on the fault
 * path costs more than the rest of a comparison. */
static inline uint64_t tick_ns(const struct sim *s)
{
	return s->tick;
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
/* jiffies_to_msecs, truncated to the unsigned int the kernel returns. */
static inline unsigned jiffies_to_msecs(const struct sim *s, uint64_t j)
{
	return (unsigned)(j * 1000 / (uint64_t)s->m.hz);
}
/* The first ns at which jiffies passes @j (is j + 1), or UINT64_MAX where
 * that is past 2^64 - 1 ns.  Below 2^32 jiffies the product cannot
 * overflow (a tick is under 2^32 ns), so the division that guards it is
 * left for the values above. */
static inline uint64_t jiffies_end_ns(const struct sim *s, uint64_t j)
{
	uint64_t tick = tick_ns(s);
	if (j < 0xffffffffull)
		return (j + 1) * tick;
	return j < UINT64_MAX / tick ? (j + 1) * tick : UINT64_MAX;
}
/* time_after(jiffies, @j), as a comparison of times: no division.  Exact
 * for every time below UINT64_MAX ns (a run ends before 2^47). */
static inline bool jiffies_after(const struct sim *s, uint64_t j)
{
	return sim_now(s) >= jiffies_end_ns(s, j);
}

/* Time spent on the current CPU by the running path. */
static inline void charge(struct sim *s, enum cost_cause c, double ns)
{
	engine_charge(&s->e, c, ns);
}

/* The round ledger (arch/x86/mm/tlb.c): a CPU leaves its ledger, its
 * receiver state settled, before anything changes what a flush round would
 * do to it (its mm, its laziness, its being in a kernel path or busy) or
 * writes that state; readers of the state settle every CPU first. */
void flush_ledger_leave_slow(struct sim *s, int cpu);
void flush_ledger_settle_all(struct sim *s);
static inline void flush_ledger_leave(struct sim *s, int cpu)
{
	if (s->cpus[cpu].ledger_mm)
		flush_ledger_leave_slow(s, cpu);
}
/* @cpu's user-mode work is busy (a step without a timer) until @until: a
 * round before then delays it, so its member leaves first (ledger_round). */
static inline void flush_ledger_busy(struct sim *s, int cpu, uint64_t until)
{
	struct mm_struct *mm = s->cpus[cpu].ledger_mm;
	if (mm && until > mm->rx_ledger.busy_max)
		mm->rx_ledger.busy_max = until;
}

/* Time taken from another CPU's work (interrupts, refills).  An interrupt
 * that lands while that CPU's thread is in a kernel path (scanning, faulting,
 * migrating: interrupts enabled) delays the path by as much. */
static inline void steal(struct sim *s, int cpu, enum cost_cause c, double ns)
{
	engine_steal(&s->e, cpu, s->cpus[cpu].curr != NULL, c, ns);
	flush_ledger_busy(s, cpu, s->e.acct[cpu].busy_until); /* it may have been delayed */
}

/* A full flush at @now: charge the refill its thread will do, at most
 * @full (sim.tlb_refill_ns, for a caller that has it at hand). */
static inline void tlb_refill_acct(struct cpu_state *c, struct cpu_acct *a, uint64_t now,
				   double full)
{
	/* A TLB flushed a moment ago holds only what was refilled since, and
	 * refilling runs at about one walk per entry: cap by the time elapsed. */
	double since = (double)(now - c->last_full_flush);
	double ns = since < full ? since : full;
	a->cost[COST_TLB_REFILL] += ns;
	a->busy_ns += ns;
	c->last_full_flush = now;
}
/* The refill after a full flush at @now, @since ns after the CPU's last
 * one, as tlb_refill_acct caps it, in the receivers' fixed point
 * (@full_fx: engine_fx(@full)). */
static inline engine_fx_t tlb_refill_fx(uint64_t since, double full, engine_fx_t full_fx)
{
	return (double)since < full ? (engine_fx_t)since * (engine_fx_t)ENGINE_FX_ONE : full_fx;
}
/* tlb_refill_acct for an IPI round's receiver: to its fixed-point sum. */
static inline void tlb_refill_acct_rx(struct cpu_state *c, struct cpu_acct *a, uint64_t now,
				      double full, engine_fx_t full_fx)
{
	a->rx_refill += tlb_refill_fx(now - c->last_full_flush, full, full_fx);
	c->last_full_flush = now;
}
static inline void tlb_refill_capped(struct sim *s, int cpu, uint64_t now, double full)
{
	flush_ledger_leave(s, cpu);
	tlb_refill_acct(&s->cpus[cpu], &s->e.acct[cpu], now, full);
}

/* A full flush at @now: charge the refill its thread will do. */
static inline void tlb_refill_at(struct sim *s, int cpu, uint64_t now)
{
	tlb_refill_capped(s, cpu, now, s->tlb_refill_ns);
}

static inline int numa_node_id(const struct sim *s) { return s->cpus[s->e.cpu].node; }

/* The CPU a per-node kernel thread (kswapd, kcompactd) runs on: bound to
 * its node's CPUs (cpumask_of_node), the first of them; a CPU-less node's
 * may run anywhere: its socket's first. */
static inline int node_kthread_cpu(const struct sim *s, int nid)
{
	int sock = machine_node_socket(&s->m, nid);
	bool own = machine_node_has_cpus(&s->m, nid);
	for (int cpu = 0; cpu < s->m.nr_cpus; cpu++)
		if (own ? s->cpus[cpu].node == nid : machine_node_socket(&s->m, s->cpus[cpu].node) == sock)
			return cpu;
	return 0;
}

/* @p's migrate_pages() lists, from its first migration on: its slot of a
 * zero-filled array (a calloc each zeroed 17 KiB a task, 72 MB at 4,096
 * threads, where a migration of a few folios writes 4 KiB). */
static inline struct migrate_ctx *task_mctx(struct sim *s, struct task_struct *p)
{
	if (!p->mctx)
		p->mctx = &s->mctx_pool[p->idx];
	return p->mctx;
}

/* The PTE table of global index @id (sim->table_vma's index). */
static inline struct pte_table *table_of_id(const struct sim *s, uint32_t id)
{
	struct vm_area_struct *vma = s->table_vma[id];
	return vma_pte_table(vma, id - vma->first_table_id);
}
/* ... as set up, for a reader that must not write (workload_table_view). */
static inline const struct pte_table *table_view_of_id(const struct sim *s, uint32_t id,
						       struct pte_table *buf)
{
	const struct vm_area_struct *vma = s->table_vma[id];
	return workload_table_view(vma, id - vma->first_table_id, buf);
}

/* Enter the context of @p on its CPU at the step time @t0. */
static inline void sim_enter(struct sim *s, struct task_struct *p, uint64_t t0)
{
	s->current = p;
	engine_enter(&s->e, p ? p->cpu : 0, p != NULL, t0);
}
/* Enter @cpu's context with no task's work (the scheduler's own). */
static inline void sim_enter_cpu(struct sim *s, int cpu, uint64_t t0)
{
	s->current = NULL;
	engine_enter(&s->e, cpu, false, t0);
}

/* Build the world; on failure (-1, message in @err) whatever was built is
 * freed and @s can be sim_free()d again or dropped. */
int sim_init(struct sim *s, char *err, size_t errlen);
void sim_free(struct sim *s);
void sim_record_call(struct sim *s, const struct call_record *r);
/* Time 0: NUMA-balancing state of every task, the tasks on their CPUs,
 * the run's timers (sim_run does it first; unit tests stop there). */
void sim_start(struct sim *s);
/* Run until duration_ns, the fixed work's end, or until something sets
 * s->stop; returns 0. */
int sim_run(struct sim *s);

/* Aggregated mode, a slice in bulk (docs/model.md 3.3b; kernel/sched/user.c):
 * apply its faults up to @upto; or that, and go back to one event per
 * fault -- before anything looks at what its faults change. */
void user_touch_bulk(struct sim *s, uint32_t g, uint64_t upto);
void user_touch_bulk_end(struct sim *s, uint32_t g);
/* Every slice in bulk (of @mm only, if not NULL): up to @upto, and @end. */
void user_touch_bulk_all(struct sim *s, const struct mm_struct *mm, uint64_t upto, bool end);

/* Timer ids: per task (tick, activity, slice touches), then per process
 * (shared-region touches), then the accounting and end timers. */
static inline uint32_t tick_timer_id(const struct sim *s, int i) { (void)s; return 3u * (uint32_t)i; }
static inline uint32_t act_timer_id(const struct sim *s, int i) { (void)s; return 3u * (uint32_t)i + 1; }
static inline uint32_t touch_timer_id(const struct sim *s, int g)
{
	return g < s->nr_tasks ? 3u * (uint32_t)g + 2
			       : 3u * (uint32_t)s->nr_tasks + (uint32_t)(g - s->nr_tasks);
}

#endif
