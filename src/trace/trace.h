/* Trace events recorded during a run: the kernel's tracepoints where one
 * exists (tlb:tlb_flush, migrate:mm_migrate_pages(_start),
 * migrate:set_migration_pte / remove_migration_pte, sched:sched_skip_vma_numa,
 * sched:sched_move_numa / sched_swap_numa / sched_stick_numa) and the
 * simulator's spans and instants (scan pass, mmu_gather, PTE table, hint
 * fault, migration, flush round, task_numa_migrate's outcome).  Events are kept in memory within a time window
 * and written by trace/writers (Chrome JSON, ftrace text) or read by the
 * timeline.  Off unless sim->trace is set; each hook costs one test then. */
#ifndef NUMASIM_TRACE_H
#define NUMASIM_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum trace_type {
	/* kernel tracepoints */
	TR_TLB_FLUSH,          /* tlb:tlb_flush: a = reason, b = pages (-1: all) */
	TR_MIGRATE_START,      /* migrate:mm_migrate_pages_start: a = mode, b = reason */
	TR_MIGRATE_PAGES,      /* migrate:mm_migrate_pages: a = succeeded, b = failed, c = mode, d = reason */
	TR_SET_MIGRATION_PTE,  /* migrate:set_migration_pte: a = addr, b = pte, c = order */
	TR_REMOVE_MIGRATION_PTE,
	TR_SKIP_VMA,           /* sched:sched_skip_vma_numa: a = offset, b = start, c = end, d = reason */
	/* sched:sched_move_numa (migrate_task_to), sched_swap_numa
	 * (migrate_swap), sched_stick_numa (task_numa_migrate found no CPU, or
	 * the move or swap failed): fields packed, struct trace_numa_pair */
	TR_MOVE_NUMA,
	TR_SWAP_NUMA,
	TR_STICK_NUMA,
	/* simulator spans and instants (dur > 0 for spans) */
	TR_SCAN_PASS,          /* task_numa_work pass: a = PTEs updated, b = full flushes */
	TR_GATHER,             /* change_prot_numa's mmu_gather: a = start, b = end */
	TR_PTE_TABLE,          /* change_pte_range: a = addr, b = PTEs changed, c = 1 if it flushed the mm */
	TR_HINT_FAULT,         /* do_numa_page up to the PTL drop: a = addr, b = folio nid, c = target, d = TNF flags */
	TR_MIGRATION,          /* hint-fault migration, unmap to remap: a = addr, b = from, c = to, d = pending seen */
	TR_FLUSH_ROUND,        /* flush_tlb_multi or arch_tlbbatch_flush: a = targets, b = pages (-1: all), c = origin */
	TR_BATCH_RECORDED,     /* set_tlb_ubc_flush_pending recorded a batch: a = addr, b = pending gen */
	TR_NUMA_MIGRATE_RESULT,/* numasim's, not the kernel's: how task_numa_migrate ended: a = enum
				* numa_migrate_outcome, b = the preferred nid it searched for, c = the
				* best CPU (-1: none), d = what it refused (enum numa_migrate_refused) */
	NR_TRACE_TYPES
};

/* tlb:tlb_flush reasons (include/linux/mm_types.h enum tlb_flush_reason) */
enum tlb_flush_reason {
	TLB_FLUSH_ON_TASK_SWITCH,
	TLB_REMOTE_SHOOTDOWN,
	TLB_LOCAL_SHOOTDOWN,
	TLB_LOCAL_MM_SHOOTDOWN,
	TLB_REMOTE_SEND_IPI,
	TLB_REMOTE_WRONG_CPU,
};

/* Who started a flush round (TR_FLUSH_ROUND c). */
enum flush_origin {
	FLUSH_FROM_OTHER,
	FLUSH_FROM_SCANNER_PENDING, /* flush_tlb_batched_pending in change_pte_range */
	FLUSH_FROM_GATHER,          /* tlb_finish_mmu */
	FLUSH_FROM_BATCH,           /* try_to_unmap_flush */
	FLUSH_FROM_PTEP_CLEAR,      /* ptep_clear_flush */
};

/* How task_numa_migrate ended (TR_NUMA_MIGRATE_RESULT a). */
enum numa_migrate_outcome {
	NUMA_MIGRATE_MOVED,      /* migrate_task_to: sched_move_numa */
	NUMA_MIGRATE_SWAPPED,    /* migrate_swap: sched_swap_numa */
	NUMA_MIGRATE_NO_CPU,     /* no better CPU: sched_stick_numa with dst_cpu -1 */
	NUMA_MIGRATE_FAILED,     /* the move or swap was refused: sched_stick_numa with the CPU */
	NUMA_MIGRATE_NO_SD_NUMA, /* no NUMA domain: preferred node reset, no tracepoint */
};

/* What task_numa_migrate's search turned down on the way (a mask,
 * TR_NUMA_MIGRATE_RESULT d), whatever it chose in the end. */
enum numa_migrate_refused {
	NUMA_REFUSED_MOVE_IMBALANCE = 1 << 0, /* a move: the node imbalance it would make */
	NUMA_REFUSED_SWAP_SPARE = 1 << 1,     /* a swap in the task's group: the node has room (13ede3315087) */
	NUMA_REFUSED_SWAP_SMALLIMP = 1 << 2,  /* a swap gaining less than SMALLIMP */
	NUMA_REFUSED_SWAP_NOT_HOME = 1 << 3,  /* a partner not going home, the best one is (88cca72c9673) */
	NUMA_REFUSED_CPU_CLAIMED = 1 << 4,    /* a CPU another search had claimed (numa_migrate_on) */
	NUMA_REFUSED_AFFINITY = 1 << 5,       /* a partner not allowed on the task's CPU */
};
#define NR_NUMA_REFUSED 6

extern const char *const trace_type_names[NR_TRACE_TYPES];
extern const char *const tlb_flush_reason_names[6];

struct trace_event {
	uint64_t ts, dur;     /* ns */
	uint16_t type;
	int16_t cpu;
	int32_t pid;
	int64_t a, b, c, d;
};

struct trace_buf {
	struct trace_event *ev;
	size_t n, cap;
	size_t max_events;    /* stop recording beyond this (dropped counts the rest) */
	uint64_t dropped;
	uint64_t start, end;  /* window, ns */
	uint32_t mask;        /* 1 << type for recorded types */
	int origin;           /* enum flush_origin of the flush being made */
	/* The size limit, checked while the run goes (trace/writers.c): when n
	 * reaches check_at, or the buffer is full, on_check(t) runs. */
	size_t check_at;      /* 0: no check */
	void (*on_check)(struct trace_buf *t);
	void *ctx;            /* on_check's, malloc'd: trace_free frees it */
};

/* The fields of sched:sched_move_numa (src and dst's cpu and nid; the
 * rest of dst 0), sched_swap_numa and sched_stick_numa (all; dst_nid -1
 * without a dst_cpu), kept in one event record: pid = src pid, a = src
 * tgid | src ngid << 32, b = src cpu, src nid, dst cpu, dst nid in 16 bits
 * each (the record's cpu is an int16 too), c = dst pid | dst tgid << 32,
 * d = dst ngid. */
struct trace_numa_task {
	int32_t pid, tgid, ngid, cpu, nid;
};
struct trace_numa_pair {
	struct trace_numa_task src, dst;
};

struct sim;

/* A buffer recording @mask in [start, end), at most @max_events. */
struct trace_buf *trace_new(uint64_t start, uint64_t end, uint32_t mask, size_t max_events);
void trace_free(struct trace_buf *t);
void trace_emit(struct trace_buf *t, enum trace_type type, int cpu, int pid, uint64_t ts,
		uint64_t dur, int64_t a, int64_t b, int64_t c, int64_t d);
/* Record a sched NUMA tracepoint on src's CPU. */
void trace_emit_numa(struct trace_buf *t, enum trace_type type, uint64_t ts,
		     const struct trace_numa_pair *f);
/* The fields trace_emit_numa packed into @e. */
struct trace_numa_pair trace_numa_fields(const struct trace_event *e);
/* Parse "a,b,c" of trace_type_names (or "all", "kernel"); 0 or -1. */
int trace_parse_events(const char *list, uint32_t *mask, char *err, size_t errlen);

#define TRACE_ALL ((1u << NR_TRACE_TYPES) - 1)
#define TRACE_KERNEL ((1u << TR_SCAN_PASS) - 1)

#endif
