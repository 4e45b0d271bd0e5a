/* mm/migrate.c: the migration core, stepped in three parts so simulated
 * time passes between the unmap, its TLB flush (and the copy), and the
 * move. */
#ifndef NUMASIM_MIGRATE_H
#define NUMASIM_MIGRATE_H

#include <stdbool.h>

#include "linux/mm_types.h"

enum migrate_mode { MIGRATE_ASYNC, MIGRATE_SYNC_LIGHT, MIGRATE_SYNC };
enum migrate_reason { MR_COMPACTION, MR_MEMORY_FAILURE, MR_MEMORY_HOTPLUG, MR_SYSCALL,
		      MR_MEMPOLICY_MBIND, MR_NUMA_MISPLACED, MR_CONTIG_RANGE, MR_LONGTERM_PIN,
		      MR_DEMOTION };

#define NR_MAX_BATCHED_MIGRATION HPAGE_PMD_NR
#define NR_MAX_MIGRATE_PAGES_RETRY 10
#define NR_MAX_MIGRATE_ASYNC_RETRY 3
#define NR_MAX_MIGRATE_SYNC_RETRY (NR_MAX_MIGRATE_PAGES_RETRY - NR_MAX_MIGRATE_ASYNC_RETRY)
/* One large folio and its 512 split pieces fit, or a compaction cluster. */
#define MAX_MIGRATE_FOLIOS 1024

enum folio_mig_state {
	MIG_PENDING,     /* still to unmap */
	MIG_UNMAPPED,    /* unmapped, to move */
	MIG_DONE,        /* moved */
	MIG_FAILED,      /* failed (counted in nr_failed_pages) */
	MIG_UNTRIED,     /* left on the list by an -ENOMEM stop (not counted) */
	MIG_SPLIT,       /* split into pieces, which follow in the list */
	MIG_FREED,       /* a piece nobody mapped: "freed from under us", a success */
	MIG_QUEUED,      /* a split piece waiting for its batch */
};

/* migrate_pages()'s lists, carried across the two halves.  A task's is
 * zero-filled memory until its first migration (sim.mctx_pool): the lists
 * come last, the states before the folios, so that a migration of a few
 * folios writes one 4 KiB page of it, not all 17 KiB. */
struct migrate_ctx {
	int nr;                      /* folios in the list, split pieces appended */
	int nr_input;                /* of them, the caller's (the rest are pieces) */
	int target_nid;
	enum migrate_mode mode;
	enum migrate_reason reason;
	unsigned long nr_succeeded, nr_failed_pages;    /* base pages */
	unsigned long nr_thp_succeeded, nr_thp_failed, nr_thp_split, nr_split;
	int nr_failed;               /* folios, a split counting one */
	int batch_start, batch_end;  /* the batch of the current migrate_pages_batch() */
	int pieces_start;            /* first split piece not yet batched */
	bool enomem;                 /* a batch stopped on -ENOMEM: migrate_pages gives up */
	bool setup_prepaid;          /* the caller's step already charged migrate_setup_ns */
	bool old_thp_path;           /* v5.12's migrate_misplaced_transhuge_page */
	bool promote;                /* a hint fault's move from a slow tier to the top one */
	unsigned char state[MAX_MIGRATE_FOLIOS];
	struct folio folios[MAX_MIGRATE_FOLIOS];
};

struct sim;
int migrate_misplaced_folio_prepare(struct sim *s, struct folio folio,
				    struct vm_area_struct *vma, int node);
/* migrate_pages: set up @ctx for the folios and run the first batch's unmap
 * phase (the flush is recorded, not done).  migrate_pages_flush(), a later
 * step, runs the batch's try_to_unmap_flush and charges its copy.
 * migrate_pages_finish() runs the move phase of each batch (and the unmap
 * and flush of the next, and the split pieces' batch) and the final
 * accounting; returns the number of folios not migrated (0 when every
 * piece of a split folio moved), or -ENOMEM. */
void migrate_pages_begin(struct sim *s, struct migrate_ctx *ctx);
void migrate_pages_flush(struct sim *s, struct migrate_ctx *ctx);
int migrate_pages_finish(struct sim *s, struct migrate_ctx *ctx);
/* The migration system calls (mm/mempolicy.c: migrate_pages(2) ->
 * do_migrate_pages -> migrate_to_node, mbind(2) with MPOL_MF_MOVE; mm/migrate.c:
 * move_pages(2) -> do_pages_move): queue_pages_range first isolates every
 * folio of the process on @from onto one list, then migrate_pages
 * (MIGRATE_SYNC) moves the list to @to, NR_MAX_BATCHED_MIGRATION pages a
 * batch, one batch per step of the caller. */
struct migrate_call {
	int mm_id, from, to;
	enum migrate_reason reason;
	bool move_all;               /* MPOL_MF_MOVE_ALL: also folios other processes map */
	bool flush_at_busy;          /* move_pages(2): a folio it cannot queue migrates the list so far */
	int vma;                     /* the page-table walk's position */
	uint64_t addr;
	bool walked;                 /* the walk is over (or the call gave up) */
	/* The list (queue_pages_range's pagelist), in the walk's order: one bit
	 * per page of the workload's stores, from store_base[store], set on
	 * each page of a folio from its isolation until its batch is done.
	 * One bit a page keeps a 120 GiB range at 4 MiB. */
	uint64_t *listed;
	uint64_t *store_base;
	int list_vma;                /* the list's head: where the next batch starts */
	uint64_t list_addr;
	unsigned long nr_listed;     /* pages on the list, not yet in a batch */
	uint64_t started;            /* ns */
	unsigned long moved, failed; /* pages */
	unsigned long hint_fails;    /* hint faults that found a folio of the call isolated */
};
enum migrate_call_step {
	CALL_QUEUED,                 /* the walk isolated folios (its time charged) */
	CALL_BATCH,                  /* a batch is unmapped: flush and move follow */
	CALL_DONE,                   /* the call returns */
};
/* One step of a call: the walk when the list is empty (queue_pages_range),
 * else the next batch's isolation off the list and its unmap phase; the
 * flush follows in a step of its own (migrate_pages_flush). */
enum migrate_call_step migrate_call_step(struct sim *s, struct migrate_call *call,
					 struct migrate_ctx *ctx);
/* The batch's move phase and counters; on -ENOMEM the rest of the list is
 * put back and the call ends. */
void migrate_call_batch_finish(struct sim *s, struct migrate_call *call, struct migrate_ctx *ctx);
/* putback_movable_pages on what is left of the list (the run ended). */
void migrate_call_putback(struct sim *s, struct migrate_call *call);
void migrate_call_free(struct migrate_call *call);
/* The list's invariants (mm/debug.c): from its head on, whole folios, each
 * isolated and on the source node, nr_listed pages in all; 0, or -1 and
 * what is wrong in @msg. */
int migrate_call_check_list(const struct sim *s, const struct migrate_call *call, char *msg,
			    size_t len);
/* Simulator instrumentation: a hint fault found @folio isolated; count it
 * against the call in flight if the folio is the call's. */
void migrate_call_note_busy_fault(struct sim *s, struct folio folio);

/* migrate_misplaced_folio parts: the unmap; then (migrate_pages_flush) the
 * flush and copy; then the move and counters. */
void migrate_misplaced_folio_begin(struct sim *s, struct migrate_ctx *ctx, struct folio folio, int node);
int migrate_misplaced_folio_end(struct sim *s, struct migrate_ctx *ctx);
/* The folio's total mapcount (a PMD mapping counts once). */
int folio_total_mapcount(struct folio folio);

#endif
