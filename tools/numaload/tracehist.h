/* Counting kernel tracepoints with tracefs histogram triggers
 * (Documentation/trace/histogram.rst): the kernel aggregates in place, so
 * counting millions of tlb_flush events costs no trace buffer.  numaload
 * adds the triggers below when the measurement starts, reads each event's
 * "hist" file when it ends, and removes them.
 *
 *   tlb:tlb_flush            by reason, and by the initiator's call path
 *   migrate:mm_migrate_pages by migrate_reason (succeeded, failed)
 *   sched:sched_skip_vma_numa by numa_vmaskip_reason (v6.7+)
 *
 * The parsing works on the hist file's text, so captured files of real
 * kernels test it. */
#ifndef NUMALOAD_TRACEHIST_H
#define NUMALOAD_TRACEHIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* include/linux/mm_types.h: enum tlb_flush_reason */
enum { NL_TLB_REASONS = 5 };
extern const char *const nl_tlb_reason_names[NL_TLB_REASONS];

/* The initiator's path of a flush, from the first of these functions its
 * stack holds (innermost first). */
enum nl_flush_path {
	NL_PATH_BATCHED_PENDING, /* flush_tlb_batched_pending: an earlier batched unmap was pending */
	NL_PATH_UNMAP_BATCH,     /* try_to_unmap_flush(_dirty) / arch_tlbbatch_flush */
	NL_PATH_PTEP_CLEAR,      /* ptep_clear_flush: one PTE, flushed at once (unbatched unmap) */
	NL_PATH_MMU_GATHER,      /* tlb_finish_mmu / tlb_flush_mmu: a gather's flush (the scanner, munmap) */
	NL_PATH_OTHER,
	NL_NR_PATHS
};
extern const char *const nl_flush_path_names[NL_NR_PATHS];
enum nl_flush_path nl_flush_path_of(const char *stack);

/* migrate_reason (include/linux/migrate_mode.h) of hint-fault migrations */
#define NL_MR_NUMA_MISPLACED 5

struct nl_trace {
	bool tlb_ok, migrate_ok, skip_ok;     /* the trigger was set and its hist read */
	bool sched_ok[3];                     /* ... of sched_move_numa, _swap_numa, _stick_numa */
	uint64_t tlb_reason[NL_TLB_REASONS];  /* events by reason */
	uint64_t tlb_full[NL_TLB_REASONS];    /* of them with pages == TLB_FLUSH_ALL */
	uint64_t local_path[NL_NR_PATHS];     /* local flushes (initiator) by path */
	uint64_t ipi_path[NL_NR_PATHS];       /* IPI rounds sent (initiator) by path */
	uint64_t migrate_calls, migrate_succeeded, migrate_failed; /* reason NUMA_MISPLACED */
	uint64_t migrate_other_calls;         /* any other reason */
	uint64_t skip_reason[8];              /* sched_skip_vma_numa by reason */
	/* task_numa_migrate's outcomes: a task moved to another CPU
	 * (migrate_task_to), two tasks swapped (migrate_swap), or neither
	 * (sched_stick_numa) */
	uint64_t numa_moves, numa_swaps, numa_sticks;
};

/* The trigger strings, for tests and for the writer. */
struct nl_trigger {
	const char *event;   /* "tlb/tlb_flush" */
	const char *trigger; /* "hist:keys=...", no newline */
};
extern const struct nl_trigger nl_triggers[];
extern const int nl_nr_triggers;

/* Parse one event's hist file (all its histograms) into @t.  @event is an
 * nl_triggers[] event.  Returns 0, or -1 if the text is not a histogram of
 * ours. */
int nl_trace_parse(const char *event, const char *text, struct nl_trace *t);

/* Install (@on) or remove the triggers under @tracefs
 * ("/sys/kernel/tracing").  Installing removes stale copies first and
 * skips events the kernel lacks; returns the number installed, or -1 with
 * @err set if tracefs is unusable. */
int nl_trace_set(const char *tracefs, bool on, char *err, size_t errlen);
/* Read every installed event's hist into @t; with @save_dir, also keep
 * each hist file's text there as EVENT.hist ("tlb_tlb_flush.hist"). */
void nl_trace_read(const char *tracefs, struct nl_trace *t, const char *save_dir);

#endif
