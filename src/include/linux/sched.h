/* task_struct and numa_group: the per-thread NUMA-balancing state of
 * kernel/sched/fair.c, plus the simulator's per-thread activity. */
#ifndef NUMASIM_SCHED_H
#define NUMASIM_SCHED_H

#include <stdbool.h>
#include <stdint.h>

#include "linux/cpumask.h"
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
	ACT_MIGRATE_UNMAP, /* migrate_pages: unmap (the flush recorded) */
	ACT_MIGRATE_FLUSH, /* migrate_pages: try_to_unmap_flush and copy */
	ACT_MIGRATE_MOVE,  /* migrate_pages: remap */
	ACT_RETURN,        /* returning to user mode: queued task_work runs here */
	ACT_SYSCALL,       /* migrate_pages(2) and friends: isolate and unmap a batch */
	ACT_SYSCALL_FLUSH, /* ... flush and copy it */
	ACT_SYSCALL_MOVE,  /* ... and move it */
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
	bool pmd;                 /* a huge-PMD fault (do_huge_pmd_numa_page) */
	bool saw_pending;         /* tlb_flush_pending at try_to_migrate_one */
	bool overlapped_pass;
	uint64_t unmap_time;
};

/* The scheduler's view of a task (the model's TASK_RUNNING with on_rq, and
 * TASK_INTERRUPTIBLE). */
enum task_sched_state {
	TASK_NEW,                 /* not started yet */
	TASK_QUEUED,              /* runnable, waiting on its CPU's runqueue */
	TASK_ON_CPU,              /* running (rq's current) */
	TASK_SLEEPING,            /* blocked until woken */
	TASK_DEAD,                /* exited: its work is done */
};

struct migrate_call;

struct task_struct {
	/* first, in one cache line: what the 10 ms accounting tick reads and
	 * writes of every task (workload_account: 384 tasks 100 times a
	 * second; these were three lines apart) */
	_Alignas(64) int pid;
	int tgid;
	int idx;                  /* index in sim->tasks */
	int cpu;                  /* task_cpu(): where it runs, waits, or last ran */
	struct mm_struct *mm;
	enum task_sched_state state; /* scheduler (kernel/sched/core.c) */
	bool syscall_caller;      /* the process that makes the scenario's migration calls */
	bool done;                /* its fixed amount of work is done: it exits */
	uint64_t acct_from;       /* ns: its user time is settled up to here */
	double ops;               /* work units completed (throughput) */
	uint64_t finish_ns;       /* ns: when its work was done */
	struct migrate_call *call;/* its call in flight */
	int calls_made;
	uint64_t start_time;      /* ns */
	struct task_struct *rq_next;   /* next in its runqueue's FIFO */
	const struct cpumask *cpus_ptr; /* allowed CPUs (NULL: all) */
	uint64_t exec_start;      /* ns: when it last went on a CPU */
	uint64_t sum_exec_runtime;/* ns of CPU time before exec_start */
	uint64_t slice_end;       /* ns: its current slice's end */
	unsigned long nr_migrations;   /* se.nr_migrations */
	unsigned long nr_node_moves;   /* of them, to another node */
	unsigned long nr_numa_moves, nr_numa_swaps; /* sched_move_numa / sched_swap_numa */
	int move_to;              /* a move asked for while it was in the kernel, or -1 */
	struct task_struct *swap_with; /* ... a swap with this task (migrate_swap) */
	bool want_sleep;          /* its run phase ended while it was in the kernel */
	uint64_t run_left;        /* ns of CPU time left in its run phase (0: never sleeps) */
	uint64_t sleep_ctr;       /* draws of its run/sleep stream */
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
};
_Static_assert(offsetof(struct task_struct, finish_ns) < 64,
	       "what the accounting tick reads of a task in one line");

/* CPU time of a task: what it ran before, plus the current stretch if it
 * is on a CPU (interrupt time included, as without
 * CONFIG_IRQ_TIME_ACCOUNTING). */
static inline uint64_t task_sum_exec_runtime(const struct task_struct *p, uint64_t now)
{
	uint64_t t = p->sum_exec_runtime;
	if (p->state == TASK_ON_CPU && now > p->exec_start)
		t += now - p->exec_start;
	return t;
}

#endif
