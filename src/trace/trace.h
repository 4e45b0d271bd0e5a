/* Trace events recorded during a run: the kernel's tracepoints where one
 * exists (tlb:tlb_flush, migrate:mm_migrate_pages(_start),
 * migrate:set_migration_pte / remove_migration_pte, sched:sched_skip_vma_numa)
 * and the simulator's spans (scan pass, mmu_gather, PTE table, hint fault,
 * migration, flush round).  Events are kept in memory within a time window
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
	/* simulator spans and instants (dur > 0 for spans) */
	TR_SCAN_PASS,          /* task_numa_work pass: a = PTEs updated, b = full flushes */
	TR_GATHER,             /* change_prot_numa's mmu_gather: a = start, b = end */
	TR_PTE_TABLE,          /* change_pte_range: a = addr, b = PTEs changed, c = 1 if it flushed the mm */
	TR_HINT_FAULT,         /* do_numa_page up to the PTL drop: a = addr, b = folio nid, c = target, d = TNF flags */
	TR_MIGRATION,          /* hint-fault migration, unmap to remap: a = addr, b = from, c = to, d = pending seen */
	TR_FLUSH_ROUND,        /* flush_tlb_multi or arch_tlbbatch_flush: a = targets, b = pages (-1: all), c = origin */
	TR_BATCH_RECORDED,     /* set_tlb_ubc_flush_pending recorded a batch: a = addr, b = pending gen */
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

struct sim;

/* A buffer recording @mask in [start, end), at most @max_events. */
struct trace_buf *trace_new(uint64_t start, uint64_t end, uint32_t mask, size_t max_events);
void trace_free(struct trace_buf *t);
void trace_emit(struct trace_buf *t, enum trace_type type, int cpu, int pid, uint64_t ts,
		uint64_t dur, int64_t a, int64_t b, int64_t c, int64_t d);
/* Parse "a,b,c" of trace_type_names (or "all", "kernel"); 0 or -1. */
int trace_parse_events(const char *list, uint32_t *mask, char *err, size_t errlen);

#define TRACE_ALL ((1u << NR_TRACE_TYPES) - 1)
#define TRACE_KERNEL ((1u << TR_SCAN_PASS) - 1)

#endif
