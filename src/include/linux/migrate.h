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

/* migrate_pages()'s lists, carried across the two halves. */
struct migrate_ctx {
	struct folio folios[MAX_MIGRATE_FOLIOS];
	unsigned char state[MAX_MIGRATE_FOLIOS];
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
/* The migration system calls (mm/mempolicy.c: migrate_pages(2), mbind(2)
 * with MPOL_MF_MOVE; mm/migrate.c: move_pages(2)): every folio of the
 * process on @from goes to @to through migrate_pages(MIGRATE_SYNC), a batch
 * of at most NR_MAX_BATCHED_MIGRATION pages per step. */
struct migrate_call {
	int mm_id, from, to;
	enum migrate_reason reason;
	int vma;                     /* the page-table walk's position */
	uint64_t addr;
	uint64_t started;            /* ns */
	unsigned long moved, failed; /* pages */
};
/* Isolate the next batch of the call's folios into @ctx and run its unmap
 * phase; false when the walk is done (nothing isolated).  The flush follows
 * in a step of its own (migrate_pages_flush). */
bool migrate_call_batch(struct sim *s, struct migrate_call *call, struct migrate_ctx *ctx);
/* The batch's move phase and counters. */
void migrate_call_batch_finish(struct sim *s, struct migrate_call *call, struct migrate_ctx *ctx);

/* migrate_misplaced_folio parts: the unmap; then (migrate_pages_flush) the
 * flush and copy; then the move and counters. */
void migrate_misplaced_folio_begin(struct sim *s, struct migrate_ctx *ctx, struct folio folio, int node);
int migrate_misplaced_folio_end(struct sim *s, struct migrate_ctx *ctx);
/* The folio's total mapcount (a PMD mapping counts once). */
int folio_total_mapcount(struct folio folio);

#endif
