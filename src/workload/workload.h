/* The workload: threads touching anonymous memory.
 *
 * Memory is a shared region (touched by every thread of the processes that
 * map it) and per-thread private slices (touched by their owner).  In every
 * region a hot set (hot_fraction of the pages) takes hot_access_share of the
 * touches.  A thread performs operations at a rate set by its compute time
 * per operation and the latency of the memory it touches (local or remote),
 * less the time the kernel takes from its CPU; each operation touches one
 * page.  Touches to one page form a Poisson process, so the PROT_NONE pages
 * of a touch group (a thread's slice, a process's shared region) fault as
 * a Poisson process of the summed rate: the model draws the next hint fault
 * per group, not per access.  See docs/model.md. */
#ifndef NUMASIM_WORKLOAD_H
#define NUMASIM_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "workload/touch.h"

/* Where a region's pages are first touched: the placement of a thread's
 * first touch (local, remote) or a memory policy in force at that time
 * (set_mempolicy / mbind / numactl: bind, preferred, interleave, weighted
 * interleave), written NAME or NAME:NODES (e.g. bind:1, interleave:0,1,
 * weighted:0=3,1=1).  mm/mempolicy.c places the pages. */
enum first_touch {
	FT_LOCAL,       /* the default policy: the first-touching thread's node */
	FT_REMOTE,      /* first touched from the other socket's first node */
	FT_INTERLEAVE,  /* MPOL_INTERLEAVE over the nodes (all if none given), per 2 MiB */
	FT_NODE0,       /* node 0, falling back like the default policy */
	FT_BIND,        /* MPOL_BIND: only the given nodes */
	FT_PREFERRED,   /* MPOL_PREFERRED: the given node, then the nearest */
	FT_WEIGHTED,    /* MPOL_WEIGHTED_INTERLEAVE (v6.9): node=weight,... */
	NR_FIRST_TOUCH
};
extern const char *const first_touch_names[NR_FIRST_TOUCH];

/* Which regions the program madvise(MADV_HUGEPAGE)s (VM_HUGEPAGE). */
enum madv_hugepage { MADV_HP_NONE, MADV_HP_ALL, MADV_HP_SHARED, MADV_HP_PRIVATE, NR_MADV_HP };
extern const char *const madv_hugepage_names[NR_MADV_HP];

/* What the program does to part of each large folio right after first
 * touch: munmap / MADV_DONTNEED it, or mprotect it (see docs/model.md). */
enum thp_partial_op { THP_PARTIAL_UNMAP, THP_PARTIAL_MPROTECT, NR_THP_PARTIAL_OP };
extern const char *const thp_partial_op_names[NR_THP_PARTIAL_OP];
/* Which pages of each folio: the last ones, the first ones, spread evenly. */
enum thp_partial_pattern { THP_PATTERN_TAIL, THP_PATTERN_HEAD, THP_PATTERN_STRIDE, NR_THP_PATTERN };
extern const char *const thp_partial_pattern_names[NR_THP_PATTERN];

struct first_touch_policy {
	enum first_touch mode;
	uint64_t nodes;                  /* node mask for bind, preferred, interleave:, weighted */
	uint8_t weight[64];              /* weighted interleave, per node */
};

/* Thread binding: none (the scheduler places threads), each thread to the
 * node or to the CPU it starts on. */
enum thread_bind { BIND_NONE, BIND_NODE, BIND_CPU, NR_THREAD_BIND };
extern const char *const thread_bind_names[NR_THREAD_BIND];

/* The migration system call a scenario schedules (numactl's migratepages
 * uses migrate_pages). */
enum migrate_syscall { MCALL_NONE, MCALL_MIGRATE_PAGES, MCALL_MOVE_PAGES, MCALL_MBIND, NR_MCALLS };
extern const char *const migrate_syscall_names[NR_MCALLS];

struct workload_params {
	int processes;
	int threads;                 /* per process */
	double memory_gib;           /* anonymous working set per process */
	double private_fraction;     /* of memory in per-thread slices */
	double private_access_share; /* of a thread's touches going to its slice */
	double hot_fraction;         /* of the pages of each region */
	double hot_access_share;     /* of the touches going to the hot set */
	double cpu_ns_per_op;        /* compute per operation, besides the memory access */
	struct first_touch_policy shared_first_touch;
	struct first_touch_policy private_first_touch;
	bool policy_in_force;        /* the first-touch policy stays the memory's policy */
	bool numa_balancing_bind;    /* ... a bind policy with MPOL_F_NUMA_BALANCING (v5.15) */
	int eat_node;                /* a memory eater occupies eat_gib on this node */
	double eat_gib;
	/* scheduled migration calls: process migrate_process's pages from
	 * migrate_from to migrate_to at migrate_at_s, then every
	 * migrate_every_s (0: once), back and forth if asked */
	int migrate_call;            /* enum migrate_syscall */
	int migrate_process, migrate_from, migrate_to;
	double migrate_at_s, migrate_every_s;
	bool migrate_back_and_forth;
	/* a second mmu_gather: every madvise_cold_every_ms (0: never) each
	 * process calls madvise(MADV_COLD) on the next madvise_cold_kib of its
	 * first VMA (mm/madvise.c) */
	double madvise_cold_every_ms;
	unsigned madvise_cold_kib;
	/* a zap: every madvise_dontneed_every_ms (0: never) each process
	 * touches again the range it zapped last, then calls
	 * madvise(MADV_DONTNEED) on the next madvise_dontneed_kib of its first
	 * VMA (mm/madvise.c); the oracle checks the zap's return */
	double madvise_dontneed_every_ms;
	unsigned madvise_dontneed_kib;
	bool map_shared;             /* one MAP_SHARED region for all processes */
	bool main_thread_works;      /* the process's main thread is one of the threads */
	bool spread_shared;          /* shared 2 MiB tables spread between the slices, one VMA */
	unsigned vma_mib;            /* split each region into VMAs of this size (0: one) */
	enum thread_bind bind;
	int access;                  /* enum access_pattern (access.h) */
	double access_shape;         /* normal: stdev in pages; pareto: alpha */
	double access_set;           /* share of each region that is touched */
	double work_mops;            /* operations per thread, millions; 0: a timed run */
	double bytes_per_op;         /* memory traffic of one operation (bandwidth model) */
	/* phases: every phase_every_s (0: never), each thread of a process
	 * starts touching the private slice of the thread phase_shift further
	 * on (0: the next one, which the scheduler's fork placement started on
	 * the other node), as a program whose threads trade their data does */
	double phase_every_s;
	int phase_shift;
	double run_ms, sleep_ms;     /* mean run phase (CPU time) and sleep, 0: never sleeps */
	enum madv_hugepage madv_hugepage;
	double thp_partial;          /* share of each large folio's pages the partial op touches */
	enum thp_partial_op thp_partial_op;
	enum thp_partial_pattern thp_partial_pattern;
};

/* Accounting classes: one per private slice and one per shared store; the
 * per-node page counts give each thread's expected memory latency. */
struct workload {
	struct workload_params p;
	int nr_classes;
	uint64_t *class_pages;       /* [class][hot][node], pages per node */
	int nr_nodes;
	uint64_t slice_pages;        /* pages per private slice */
	uint64_t shared_pages;       /* pages of a shared region */
	double *task_rate;           /* operations per second, per task */
	double *op_ns;               /* [task]: ns per operation, at the last refresh */
	double *mm_rate;             /* summed over each mm's tasks */
	double *user_frac;           /* share of the last interval in user mode */
	double *lat_cache;           /* [class][node]: class_latency */
	double *frac_cache;          /* [class][node]: share of its touches on each node */
	double *mem_q;               /* [node]: latency stretch of its loaded memory (>= 1) */
	double link_q;               /* ... of the link between the sockets */
	double *sat_ns;              /* [node, then the link]: time at its bandwidth limit */
	double *peak_q;              /* [node, then the link]: the largest stretch */
	uint8_t *lat_stale;          /* [class]: placement changed since */
	/* What the 10 ms tick may keep from the last (workload.c, "latency
	 * and rates"): each is recomputed when one of its inputs changed. */
	bool op_valid;               /* no class marked stale since op_ns was last computed */
	int *op_node;                /* [task]: the node op_ns was computed for */
	bool op_all;                 /* every task's terms are stale (refresh_op_ns) */
	uint64_t op_gen;             /* sim.task_node_gen when op_node was last current */
	double *shared_term;         /* [shared class][node]: its part of op_ns */
	double *slice_term;          /* [task]: its slice's part of op_ns */
	int *task_mm;                /* [task]: its mm's id, -1 for a syscall caller */
	uint8_t *slice_dirty;        /* [task]: its slice class was marked stale since */
	int *dirty_task;             /* those tasks, nr_dirty of them */
	int nr_dirty;
	bool demand_valid;           /* demand_bps: solve_bandwidth's first round, at op_ns */
	double *demand_bps;          /* [node, then the link]: its sums */
	uint8_t *demand_in;          /* [task]: counted in them (running, not a syscall caller) */
	bool rates_valid;            /* task_rate, mm_rate and the touch rates follow op_ns */
	/* A bound on the solve's first-round demand (workload.c, bw_bound_below):
	 * each counted task's parts, in bytes per second rounded up, from its
	 * own slice term and fractions, with their sums over the counted tasks,
	 * taken again only for a task whose inputs may have changed since; the
	 * sums are exact integers, the same whatever order the changes came in
	 * (workload_bw_sums_check recomputes them from scratch). */
	uint32_t *frac_gen;          /* [class]: bumped when its frac_cache row changes */
	uint64_t *bw_part;           /* [task][node, the link, its shared weight]: its parts */
	uint64_t *bw_sum;            /* [node, then the link]: bw_part over the counted tasks */
	uint64_t *bw_weight;         /* [shared class][socket]: the shared weights summed */
	int bw_unbounded;            /* counted tasks too fast to keep a part (no bound) */
	int *bw_node;                /* [task]: the node its part was taken on, -1: not counted */
	int *bw_slice;               /* [task]: ... its slice class */
	uint32_t *bw_gen;            /* [task]: ... that class's frac_gen */
	double *bw_term;             /* [task]: ... its slice term */
	double *bw_lat_ref;          /* [shared class]: the floor of its shared term they use */
	int *bw_dirty;               /* tasks whose terms were taken again since, nr_bw_dirty */
	int nr_bw_dirty;
	uint8_t *bw_mark;            /* [task]: in bw_dirty */
	bool bw_all;                 /* every task's terms were taken again since */
	uint64_t bw_node_gen, bw_state_gen; /* sim's task_node_gen and task_state_gen then */
	bool bw_no_bound;            /* always take the sums (tests: the bound against them) */
	struct touch_model touch;     /* the touch groups (touch.h) */
	double *wsize;               /* [group]: its pages weighted by access density */
	uint64_t last_account;       /* ns */
	int *slice_of;               /* [task]: the private slice it touches (phases) */
	int *toucher;                /* [slice]: the task touching it */
	int phase;                   /* phases so far */
	uint64_t next_phase_ns;      /* 0: no phases */
	double remote_ns;            /* user time lost to memory beyond local latency */
	double total_ops;            /* operations completed by all threads */
	uint64_t populated_pages;    /* first-touched at set-up ... */
	uint64_t unmapped_pages;     /* ... of them unmapped again (partial unmaps) */
	/* Set-up's, from the one pass over the tables that places their pages
	 * (populate_vma), for build_groups and tlb_refill_init: no later pass
	 * reads every table's struct, which a lazy table does not have yet. */
	uint32_t *table_group;       /* [table id]: its touch group (freed by build_groups) */
	uint32_t *group_w;           /* [group]: its tables' one weight, 0 if they differ */
	uint64_t pmd_tables;         /* the first process's tables mapped by a huge PMD */
	/* [j]: the access weight of table j of a slice (access_table_weight:
	 * every slice has the same size, so the same weights), for set-up and
	 * a table's struct set up later */
	uint32_t *slice_weight;
};

struct sim;
struct task_struct;
struct vm_area_struct;
struct pte_table;

static inline uint64_t *class_nodes(struct workload *w, int cls, int hot)
{
	return &w->class_pages[((size_t)cls * 2 + (size_t)hot) * (size_t)w->nr_nodes];
}

void workload_defaults(struct workload_params *p);
/* The hot set: page @idx of a store whose first mapper is mm @mm_id is hot
 * when its hash is below hot_fraction of 2^64.  The cut is UINT64_MAX for a
 * fraction of 1 (2^64 is no uint64_t: the cast would be undefined) and then
 * every page is hot.  tools/numaload draws the same set with these two. */
uint64_t workload_hot_cut(double hot_fraction);
bool workload_page_hot(uint64_t seed, uint64_t idx, int mm_id, bool private, uint64_t hot_cut);
/* Build mms, VMAs, folio stores and tasks and place the pages. */
int workload_build(struct sim *s, char *err, size_t errlen);
void workload_free(struct sim *s);
/* Initial rates, once tasks and memory exist. */
int workload_start(struct sim *s);
/* madvise(MADV_DONTNEED) of a mapped page, before its PTE is cleared; the
 * first touch that maps a new page there again on @nid (mm/madvise.c). */
void workload_page_zapped(struct sim *s, struct vm_area_struct *vma, uint64_t addr);
void workload_page_refault(struct sim *s, struct vm_area_struct *vma, uint64_t addr, int nid);
/* Write a lazily built table's pages and PTEs (their first-touch state). */
void workload_materialize_table(struct vm_area_struct *vma, struct pte_table *t);
/* Table @ti of @vma as set up, for a reader that must not write (the
 * invariant checker): the table itself, or, if its struct is not set up
 * yet, what workload_table_setup would fill in, in @buf. */
const struct pte_table *workload_table_view(const struct vm_area_struct *vma, uint32_t ti,
					    struct pte_table *buf);
/* Integrate throughput up to @now: every running task's user time since
 * it was last settled (workload_account_task, also when it leaves its
 * CPU), at the memory latency of its current placement. */
void workload_account(struct sim *s, uint64_t now);
/* The bandwidth bound's kept sums (bw_sum, bw_count), brought up to date,
 * against a recomputation from every task: true if they agree exactly
 * (for tests). */
bool workload_bw_sums_check(struct sim *s);
void workload_account_task(struct sim *s, struct task_struct *t, uint64_t now);
/* The next phase, if it is due by @now: threads trade slices (phases). */
void workload_phase(struct sim *s, uint64_t now);
/* Aggregated private faults (docs/model.md 3.3a; nothing with --exact).
 * The scanner is done with table @t: pool it if every page of it is an
 * order-0 page and every PROT_NONE one is on its slice's toucher's node,
 * not under migration, and last faulted by that toucher (or never) -- a
 * fault there can only count, charge and feed task_numa_fault. */
void workload_pool_offer(struct sim *s, struct vm_area_struct *vma, struct pte_table *t);
/* A path is about to look at table @t's PTEs or pages: restore the PTEs of
 * its pooled faults (which of its PROT_NONE pages they were is drawn now)
 * and take it out of the pool. */
void workload_pool_settle(struct vm_area_struct *vma, struct pte_table *t);

/* Simulator: bring a table's PTEs up to date before a kernel path reads
 * them: a table not built yet is built (its pages exist from here on), a
 * pooled table gets its aggregated faults' PTEs restored. */
void workload_table_sync(struct vm_area_struct *vma, struct pte_table *t);
/* The share of task @t's memory touches that are local where it runs
 * now (-1 for a syscall caller): the convergence series' memory term. */
double workload_task_local_share(struct sim *s, const struct task_struct *t);
/* The share of the running threads' touches that land on top-tier nodes
 * (each weighted by its rate), -1 if none touches memory. */
double workload_toptier_touch_share(struct sim *s);
/* A page of class @cls moved from node @from to node @to. */
void workload_page_moved(struct sim *s, struct vm_area_struct *vma, uint64_t addr,
			 int from, int to, unsigned long nr);

#endif
