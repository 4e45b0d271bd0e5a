/* task_struct and numa_group: the per-thread NUMA-balancing state of
 * kernel/sched/fair.c, plus the simulator's per-thread activity. */
#ifndef NUMASIM_SCHED_H
#define NUMASIM_SCHED_H

#include <stdbool.h>
#include <stdint.h>

#include "linux/mm_types.h"

struct migrate_ctx;

#define NUMA_NO_NODE (-1)
#define MAX_NUMNODES 64

/* numa_faults regions: index = 2 * (region * nr_nodes + nid) + priv */
enum numa_faults_stats { NUMA_MEM = 0, NUMA_CPU, NUMA_MEMBUF, NUMA_CPUBUF };

struct numa_group {
	int refcount;
	int nr_tasks;
	int gid;
	int active_nodes;
	unsigned long total_faults;
	unsigned long max_faults_cpu;
	unsigned long faults[4 * 2 * MAX_NUMNODES]; /* MEM and CPU regions */
};

/* What a simulated thread is doing when not running user code. */
enum task_activity {
	ACT_USER = 0,
	ACT_SCAN,        /* task_numa_work, one PTE table per step */
	ACT_FAULT,       /* do_numa_page up to the PTL drop */
	ACT_MIGRATE_UNMAP, /* migrate_pages: unmap and flush */
	ACT_MIGRATE_MOVE,  /* migrate_pages: copy and remap */
	ACT_RETURN,        /* returning to user mode: queued task_work runs here */
};

/* task_numa_work's walk, kept across steps (one PTE table per event). */
struct numa_scan_walk {
	int vma;                  /* index into mm->vmas */
	uint64_t start, end;      /* current chunk */
	uint64_t addr;            /* next PTE table to change */
	long pages, virtpages;
	long chunk_updated;
	long huge_updated;
	struct mmu_gather tlb;
	bool in_gather;
	bool finishing;           /* the chunk's flush is done, its close is next */
	bool vma_done;
	bool forced;
	bool retry_pid_inactive;
	uint64_t work_started;    /* ns, for node_stamp += 32 * diff */
	uint64_t pass_start;      /* address the pass started at */
	long pass_updates;        /* PTEs changed in this pass */
	uint64_t pass_flushes0;   /* scanner_flushes when it started */
};

/* A hint fault's migration in flight (do_numa_page -> migrate_misplaced). */
struct numa_fault_ctx {
	struct vm_area_struct *vma;
	uint64_t addr;
	struct folio folio;
	int target_nid;
	int last_cpupid;
	int flags;                /* TNF_* */
	int folio_nid_at_fault;
	int nr_pages;
	bool saw_pending;         /* tlb_flush_pending at try_to_migrate_one */
	bool overlapped_pass;
	uint64_t unmap_time;
};

struct task_struct {
	int pid, tgid;
	int idx;                  /* index in sim->tasks */
	int cpu;
	struct mm_struct *mm;
	uint64_t start_time;      /* ns */
	/* NUMA balancing */
	uint64_t node_stamp;      /* ns of CPU time */
	unsigned int numa_scan_period; /* ms */
	unsigned int numa_scan_period_max; /* ms */
	int numa_scan_seq;
	int numa_preferred_nid;
	uint64_t numa_migrate_retry;   /* jiffies */
	unsigned long *numa_faults;    /* 8 * nr_nodes, or NULL */
	unsigned long total_numa_faults;
	unsigned long numa_faults_locality[3];
	unsigned long numa_pages_migrated;
	struct numa_group *numa_group;
	uint64_t last_task_numa_placement;
	uint64_t last_sum_exec_runtime;
	bool numa_work_queued;
	struct tlbflush_unmap_batch tlb_ubc;
	/* simulator */
	enum task_activity act;
	struct numa_scan_walk walk;
	struct numa_fault_ctx fault;
	struct migrate_ctx *mctx;  /* the fault's migrate_pages() lists */
	uint64_t busy_until;      /* ns: a fault without a timer ends here (act is ACT_USER) */
	double ops;               /* work units completed (throughput) */
};

/* CPU time of a task: threads run continuously on their own CPU, so CPU time
 * advances with wall time from the task's start (interrupt time included, as
 * without CONFIG_IRQ_TIME_ACCOUNTING). */
static inline uint64_t task_sum_exec_runtime(const struct task_struct *p, uint64_t now)
{
	return now > p->start_time ? now - p->start_time : 0;
}

#endif
