/* Kernel variants: a base version plus named patches, each a switch on the
 * modelled mechanisms.  A name is "BASE[+PATCH]...", e.g.
 * "v7.3+single-folio-v2".  Variants live in one table in kernel/variants.c;
 * adding a base or a patch is a few lines there (a base calls the previous
 * base's function and sets the switches its release added). */
#ifndef NUMASIM_VARIANTS_H
#define NUMASIM_VARIANTS_H

#include <stdbool.h>
#include <stddef.h>

struct kernel_config {
	char name[96];
	/* base-version mechanisms (the release that added each is in the
	 * comment; docs/model.md section 5 cites the commits) */
	bool numa_delay_mapping;     /* b99a342d4f11 (v5.13): PTE stays PROT_NONE during migration */
	bool migrate_batch_flush;    /* 7e12beb8ca2a (v6.3): MIGRATE_ASYNC unmaps with TTU_BATCH_FLUSH */
	bool ubc_accessible_gate;    /* 4d4b6d66db63 (v6.4): no batch for an inaccessible PTE */
	bool vma_scan_filter;        /* v6.4: per-VMA scan delay and PID filter (numab_state) */
	bool flush_pending_dsb_only; /* arm64 before 4b634918384c (v6.16): flush_tlb_batched_pending is a DSB */
	bool arm64_batched_unmap;    /* 43b3dfdd0455 (v6.5): arm64 selects ARCH_WANT_BATCHED_UNMAP_TLB_FLUSH */
	bool sis_util;               /* v6.0: select_idle_cpu's scan limit from LLC utilisation (SIS_UTIL) */
	bool imb_numa_nr;            /* v6.0: NUMA imbalance allowance from sd->imb_numa_nr (12.5% of a node) */
	bool eevdf;                  /* v6.6: EEVDF replaces CFS (one base slice, no latency period) */
	bool weighted_interleave;    /* fa3bea4e1f82 (v6.9): MPOL_WEIGHTED_INTERLEAVE */
	bool base_slice_700us;       /* 2ae891b82695 (v6.15): base slice 0.70 ms, not 0.75 ms */
	bool lazy_mm_cpumask;        /* 209954cbc7d0 + 6db2526c1d69 (v6.14): x86 mm_cpumask cleared lazily, trimmed once a second */
	bool x86_invlpgb;            /* v6.15 (Rik van Riel's series): INVLPGB broadcast flushes and global ASIDs */
	bool riscv_batched_unmap;    /* 54d7431af73e (v6.8): riscv selects ARCH_WANT_BATCHED_UNMAP_TLB_FLUSH */
	bool riscv_pte_accessible;   /* 50b5bae5be1b (v6.11): riscv's own pte_accessible (else always true) */
	/* large folios */
	bool thp_numa_generic;       /* c5b5a3dd2c1f (v5.14): THP hint faults migrate through a PMD migration entry */
	bool thp_migrate_refuse_shared; /* v5.x..v6.7: a THP mapped by several processes is not NUMA-migrated (728be28fae8c removed it, v6.8) */
	bool huge_pmd_immediate_flush;  /* before 4a18419f71cd (v5.19): change_huge_pmd flushes each PMD at once, no mmu_gather */
	bool prot_numa_refcount;     /* 80d47f5de5e3 (v5.14) .. v6.9: change_pte_range skips a COW page whose page_count != 1 */
	bool maybe_mapped_shared;    /* v6.15: folio_maybe_mapped_shared (exact), not folio_likely_mapped_shared (first page) */
	bool pmd_prot_numa_checks;   /* v6.19: change_huge_pmd applies folio_can_map_prot_numa */
	bool mthp_alloc;             /* 19eaf44954df + 3485b88390b0 (v6.8): multi-size anonymous THP */
	bool mthp_stats;             /* ec33687c6749 (v6.10): per-size anon_fault_* and split stats */
	bool split_unmap_batch;      /* v6.8: splitting a PTE-mapped THP unmaps with TTU_BATCH_FLUSH */
	bool split_folios_own_batch; /* a21d2133215b (v6.4): split pieces migrate in their own 1-pass ASYNC batch */
	bool migrate_split_deferred; /* 7262f208ca68 (v6.10): migrate_pages_batch splits a folio on the deferred list */
	bool partially_mapped_flag;  /* v6.12: ... only if flagged partially mapped */
	bool compact_large_folios;   /* v6.9: compaction migrates folios of order > 0 (below its target order) */
	/* scheduler (NUMA balancing) */
	bool degrades_locality_signed; /* c3856c9ce6b8 (v6.14): migrate_degrades_locality returns src - dst weight; equal weights leave it to task_hot */
	bool memory_tiering;         /* c574bbe91703 (v5.18): kernel.numa_balancing 2/3 promote from slow tiers; with
				      * 33024536bafd, c6833e10008f, c959924b0dc5 (v6.0): hot threshold, rate limit, auto-adjust */
	bool promote_candidate_nrl;  /* Ruan Shiyang's PGPROMOTE_CANDIDATE fix (2025, v6.17/v6.18 [U]): pgpromote_candidate_nrl */
	bool numa_locality_reset;    /* e81ee0630837 (v7.4 [U]; stable 6.12.117): update_task_scan_period clears numa_faults_locality when it slows down too */
	/* patches */
	bool single_folio_v1;        /* no TTU_BATCH_FLUSH for reason == MR_NUMA_MISPLACED */
	bool single_folio_v2;        /* no TTU_BATCH_FLUSH for a lone small unshared folio */
	bool flush_side;             /* try_to_unmap_flush() advances the flushed generation */
	/* broken on purpose: the TLB oracle (docs/oracle.md) must catch them */
	bool no_pending_check;       /* pte_accessible ignores tlb_flush_pending (before 20841405940e) */
	bool pending_flag;           /* tlb_flush_pending is a flag, not a count (before 16af97dc5a89) */
	bool flush_side_naive;       /* try_to_unmap_flush marks the mm's pending generation flushed, unconditionally */
	bool mthp_numa;              /* d2136d749d76 + 6b0ed7b3c775 (v6.10): PTE-mapped large folios scanned and migrated on hint faults */
};

/* Parse @name into @cfg.  Returns 0, or -1 with a message in @err. */
int kernel_config_parse(const char *name, struct kernel_config *cfg, char *err, size_t errlen);

/* Whether two kernels give the same run with kernel.numa_balancing = 0:
 * equal once the switches only NUMA balancing reaches are set aside
 * (numasim ab shares one balancing-off run between them). */
bool kernel_config_same_unbalanced(const struct kernel_config *a, const struct kernel_config *b);
/* The same, also ignoring the switches that act only inside a migration's
 * unmap (single-folio-v2, flush-side, flush-side-naive): kernels equal in this sense run a
 * balancing-off run identically if it never reaches those switches
 * (sim.migration_switch_reads == 0). */
bool kernel_config_same_unmigrated(const struct kernel_config *a, const struct kernel_config *b);
/* Do @a and @b switch the same mechanisms (whatever their names)? */
bool kernel_config_same(const struct kernel_config *a, const struct kernel_config *b);

/* The mechanisms' switches, by name (the fields of struct kernel_config). */
int kernel_nr_switches(void);
const char *kernel_switch_name(int i);
bool kernel_switch_on(const struct kernel_config *k, int i);

/* Print every base and patch, one line each, then which mechanism each
 * base has, to stdout. */
void kernel_variants_print(void);
/* The names alone, one a line: every base, then every patch as "+PATCH". */
void kernel_variants_print_names(void);

#endif
