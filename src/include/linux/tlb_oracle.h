/* The TLB-coherence oracle (docs/oracle.md): alongside the flush model,
 * which CPUs may still hold a translation of a page whose PTE is no longer
 * accessible, and a check wherever the kernel relies on none holding one.
 *
 * Not a kernel facility: the simulator's own bookkeeping.  With the oracle
 * off (s->oracle == NULL, the default) every hook is one test of that
 * pointer and the run is unchanged.
 *
 * What is tracked:
 *  - per CPU and mm, since when the CPU may hold translations of the mm
 *    (0: none).  A CPU starts caching when it loads the mm; a flush that
 *    drops all of the mm's entries on it restarts the count (or empties it
 *    when the mm is not loaded there);
 *  - per PTE (an array per VMA, allocated only with the oracle on), the
 *    sequence number at which it last went from hardware-present to not
 *    present (PROT_NONE, a migration entry, none), 0 once a flush that
 *    covers it on every CPU that may hold it has run;
 *  - a ring of recent events (PTE changes, hint faults, batches, gathers,
 *    flushes) from which a violation's interleaving is printed.
 * A CPU may hold a stale translation of page P iff it may hold entries of
 * P's mm since before P's PTE went inaccessible, and no flush covering P
 * reached it since.  On x86 a CPU that is not running the mm (lazy, or
 * running another mm) and whose ASID's generation is behind the mm's
 * tlb_gen will flush before it uses the entries again (switch_mm_irqs_off,
 * choose_new_asid): such entries do not count. */
#ifndef NUMASIM_TLB_ORACLE_H
#define NUMASIM_TLB_ORACLE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "linux/mm_types.h"

struct sim;
struct cpumask;

/* Allocate the oracle for @s (after sim_init, before sim_run): 0, or -1.
 * @first: stop the run (s->stop) at the first violation. */
int oracle_enable(struct sim *s, bool first);
void oracle_free(struct sim *s);

/* Counts for the verdict. */
struct oracle_counts {
	uint64_t migrations;   /* folios checked before their copy */
	uint64_t checks;       /* page mappings checked */
	uint64_t violations;   /* checks that found a CPU that may translate the page */
	uint64_t zaps;         /* zaps whose return was checked (madvise(MADV_DONTNEED)) */
};
void oracle_counts(const struct sim *s, struct oracle_counts *c);
/* The first violations' reports (at most ORACLE_MAX_REPORTS), in order. */
#define ORACLE_MAX_REPORTS 3
int oracle_nr_reports(const struct sim *s);
const char *oracle_report(const struct sim *s, int i);

/* The CPUs (bit c: CPU c < 64) that may still translate the page at @addr
 * of @vma: 0 if its PTE is accessible or no CPU can hold it.  With @raw,
 * also those that hold it but will flush before using it (x86 lazy or
 * switched-away CPUs behind tlb_gen). */
uint64_t oracle_holders(const struct sim *s, const struct vm_area_struct *vma, uint64_t addr,
			bool raw);

/* ---- hooks (call only with s->oracle set) ------------------------------- */

/* The function whose PTE changes follow (for the report). */
void oracle_ctx_set(struct sim *s, const char *fn);
/* A PTE went from present to @val (not present). */
void oracle_pte_off(struct sim *s, struct vm_area_struct *vma, uint64_t addr, pte_t val);
/* pmdp_invalidate of the huge PMD at @haddr, before its flush: its present
 * PTEs count as inaccessible from now (@off: and they will be made so);
 * until oracle_ctx_set is called again the PTE writes that follow (which
 * the model makes after the flush) are not restamped. */
void oracle_pmd_invalidate(struct sim *s, struct vm_area_struct *vma, uint64_t haddr,
			   const char *fn, bool off);
/* @cpu loaded @mm (switch_mm; it may cache its entries from now on). */
void oracle_load(struct sim *s, int cpu, struct mm_struct *mm);
/* @cpu dropped every entry of @mm (a full flush, a flushed ASID). */
void oracle_drop_mm(struct sim *s, int cpu, struct mm_struct *mm, const char *how);
/* @cpu dropped every user entry of every mm (no-ASID flush, INVLPGB all). */
void oracle_drop_cpu(struct sim *s, int cpu, const char *how);
/* Every CPU dropped @mm's entries in [start, end) (broadcast TLBI/INVLPGB). */
void oracle_drop_range_all(struct sim *s, struct mm_struct *mm, uint64_t start, uint64_t end,
			   const char *how);
/* @cpu issued a broadcast invalidation of [start, end) of @mm that only a
 * barrier on @cpu completes (arm64 TLBI without DSB): until
 * oracle_issued_complete(@cpu), every CPU may still translate the range. */
void oracle_issued(struct sim *s, int cpu, struct mm_struct *mm, uint64_t start, uint64_t end);
/* The barrier on @cpu (arm64 DSB ISH): its issued invalidations are done. */
void oracle_issued_complete(struct sim *s, int cpu, const char *how);
/* @cpu flushed [start, end) of @mm: remembered until oracle_range_done. */
void oracle_range_cpu(struct sim *s, int cpu);
/* The CPUs marked by oracle_range_cpu flushed [start, end) of @mm. */
void oracle_range_done(struct sim *s, struct mm_struct *mm, uint64_t start, uint64_t end,
		       const char *how);
/* Events that only explain an interleaving. */
enum oracle_note {
	ON_FAULT,          /* a hint fault at @addr */
	ON_BATCH,          /* set_tlb_ubc_flush_pending recorded a batch */
	ON_BATCH_SKIP,     /* ... found the PTE inaccessible: nothing recorded */
	ON_CLEAR_FLUSH,    /* ptep_clear_flush flushed the page */
	ON_CLEAR_NOFLUSH,  /* ... found it inaccessible: no flush */
	ON_GATHER_OPEN,
	ON_GATHER_FLUSH,
	ON_GATHER_CLOSE,
	ON_UNMAP_FLUSH,    /* try_to_unmap_flush */
	ON_PENDING_FLUSH,  /* flush_tlb_batched_pending flushed */
	ON_PENDING_DSB,    /* ... with only a DSB (arm64 before 4b634918384c) */
	ON_PENDING_SKIP,   /* ... found nothing pending: no flush (noted by the zap only) */
	ON_UNMAP_MARK,     /* try_to_unmap_flush marked the mm's batches flushed (flush-side) */
	ON_ISSUED,         /* a broadcast invalidation issued, not yet completed */
};
void oracle_note(struct sim *s, enum oracle_note what, struct mm_struct *mm, uint64_t addr);
/* ON_UNMAP_MARK: the flushing task's own batch covered generation @own,
 * the mm's pending generation it marked flushed is @marked. */
void oracle_note_mark(struct sim *s, struct mm_struct *mm, uint32_t own, uint32_t marked);

/* The checks: no CPU may hold a stale translation of @folio's pages
 * (@where: the kernel's point, e.g. "before the copy"). */
void oracle_check_folio(struct sim *s, struct folio folio, const char *where);
/* The zap's check: when madvise(MADV_DONTNEED) (or munmap, mprotect) of
 * [start, end) of @vma returns, no CPU may still translate a page of the
 * range whose PTE is not present (the comment above
 * flush_tlb_batched_pending in mm/rmap.c). */
void oracle_check_range(struct sim *s, struct vm_area_struct *vma, uint64_t start, uint64_t end,
			const char *where);

#endif
