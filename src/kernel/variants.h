/* Kernel variants: a base version plus named patches, each a switch on the
 * modelled mechanisms.  A name is "BASE[+PATCH]...", e.g.
 * "v7.3+single-folio-v2".  Variants live in one table in kernel/variants.c;
 * adding a base or a patch is a few lines there. */
#ifndef NUMASIM_VARIANTS_H
#define NUMASIM_VARIANTS_H

#include <stdbool.h>
#include <stddef.h>

struct kernel_config {
	char name[96];
	/* base-version mechanisms */
	bool numa_delay_mapping;     /* b99a342d4f11 (v5.13): PTE stays PROT_NONE during migration */
	bool migrate_batch_flush;    /* 7e12beb8ca2a (v6.3): MIGRATE_ASYNC unmaps with TTU_BATCH_FLUSH */
	bool ubc_accessible_gate;    /* 4d4b6d66db63 (v6.4): no batch for an inaccessible PTE */
	bool vma_scan_filter;        /* v6.4: per-VMA scan delay and PID filter (numab_state) */
	bool flush_pending_dsb_only; /* arm64 before 4b634918384c: flush_tlb_batched_pending is a DSB */
	bool arm64_batched_unmap;    /* 43b3dfdd0455 (v6.5): arm64 selects ARCH_WANT_BATCHED_UNMAP_TLB_FLUSH */
	bool sis_util;               /* v6.0: select_idle_cpu's scan limit from LLC utilisation (SIS_UTIL) */
	bool imb_numa_nr;            /* v6.0: NUMA imbalance allowance from sd->imb_numa_nr (12.5% of a node) */
	bool eevdf;                  /* v6.6: EEVDF replaces CFS (one base slice, no latency period) */
	bool weighted_interleave;    /* fa3bea4e1f82 (v6.9): MPOL_WEIGHTED_INTERLEAVE */
	bool base_slice_700us;       /* 2ae891b82695 (v6.15): base slice 0.70 ms, not 0.75 ms */
	bool lazy_mm_cpumask;        /* 209954cbc7d0 + 6db2526c1d69 (v6.14): x86 mm_cpumask cleared lazily, trimmed once a second */
	/* patches */
	bool single_folio_v1;        /* no TTU_BATCH_FLUSH for reason == MR_NUMA_MISPLACED */
	bool single_folio_v2;        /* no TTU_BATCH_FLUSH for a lone small unshared folio */
	bool flush_side;             /* try_to_unmap_flush() advances the flushed generation */
	bool mthp_numa;              /* PTE-mapped large folios scanned and migrated on hint faults */
};

/* Parse @name into @cfg.  Returns 0, or -1 with a message in @err. */
int kernel_config_parse(const char *name, struct kernel_config *cfg, char *err, size_t errlen);

/* Whether two kernels give the same run with kernel.numa_balancing = 0:
 * equal once the switches only NUMA balancing reaches are set aside
 * (numasim ab shares one balancing-off run between them). */
bool kernel_config_same_unbalanced(const struct kernel_config *a, const struct kernel_config *b);
/* Do @a and @b switch the same mechanisms (whatever their names)? */
bool kernel_config_same(const struct kernel_config *a, const struct kernel_config *b);

/* The mechanisms' switches, by name (the fields of struct kernel_config). */
int kernel_nr_switches(void);
const char *kernel_switch_name(int i);
bool kernel_switch_on(const struct kernel_config *k, int i);

/* Print every base and patch, one line each, to stdout. */
void kernel_variants_print(void);

#endif
