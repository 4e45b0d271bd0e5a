/* The table of kernel bases and patches (see variants.h).
 *
 * Each base function calls the previous base and sets what its release
 * added, so a base in between (v6.1, v6.12, ...) is a function of a few
 * lines and a row in bases[].  docs/model.md section 5 cites the commits
 * and says which points of the model test each switch. */
#include "lib/suggest.h"
#include "kernel/variants.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

struct base_def {
	const char *name;
	const char *what;
	void (*apply)(struct kernel_config *k);
};

struct patch_def {
	const char *name;
	const char *what;
	void (*apply)(struct kernel_config *k);
};

static void base_v5_12(struct kernel_config *k)
{
	/* hint fault remaps before migrating; unbatched migration flush;
	 * THP hint faults take the old do_huge_pmd_numa_page path, which
	 * refuses a THP mapped by several processes; change_huge_pmd flushes
	 * each PMD at once; change_pte_range's COW test is per page
	 * (page_mapcount != 1) */
	k->thp_migrate_refuse_shared = true;
	k->huge_pmd_immediate_flush = true;
}

static void base_v5_15(struct kernel_config *k)
{
	base_v5_12(k);
	k->numa_delay_mapping = true;      /* b99a342d4f11, v5.13 */
	k->flush_pending_dsb_only = true;  /* arm64 until 4b634918384c */
	k->thp_numa_generic = true;        /* c5b5a3dd2c1f, v5.14 */
	k->prot_numa_refcount = true;      /* 80d47f5de5e3, v5.14 */
}

/* Debian bookworm's linux-image-6.1: v5.15 plus the v6.0 scheduler
 * changes (SIS_UTIL; imb_numa_nr, 026b98a93bbd and cb29a5c19d2d) and
 * mprotect's mmu_gather (v5.19); no batched migration flush yet
 * (7e12beb8ca2a is v6.3). */
static void base_v6_1(struct kernel_config *k)
{
	base_v5_15(k);
	k->sis_util = true;
	k->imb_numa_nr = true;
	k->huge_pmd_immediate_flush = false; /* 4a18419f71cd, v5.19 */
	k->memory_tiering = true;          /* c574bbe91703, v5.18; the hot-page selection, v6.0 */
}

static void base_v6_3(struct kernel_config *k)
{
	base_v6_1(k);
	k->migrate_batch_flush = true;
}

static void base_v6_4(struct kernel_config *k)
{
	base_v6_3(k);
	k->ubc_accessible_gate = true;
	k->vma_scan_filter = true;
	k->split_folios_own_batch = true;  /* a21d2133215b */
}

/* The first release with multi-size THP, before its NUMA balancing. */
static void base_v6_8(struct kernel_config *k)
{
	base_v6_4(k);
	k->arm64_batched_unmap = true;     /* 43b3dfdd0455, v6.5 */
	k->eevdf = true;                   /* v6.6 */
	k->riscv_batched_unmap = true;     /* 54d7431af73e, v6.8 */
	k->mthp_alloc = true;              /* 19eaf44954df, 3485b88390b0: v6.8 */
	k->split_unmap_batch = true;       /* v6.8: batched flush when splitting a PTE-mapped THP */
	k->thp_migrate_refuse_shared = false; /* 728be28fae8c, v6.8 */
}

/* Debian's linux-image-6.12: v6.8 plus weighted interleave (v6.9), mTHP
 * NUMA balancing and the deferred split in migration (v6.10), riscv's
 * pte_accessible (v6.11) and the partially-mapped flag (v6.12); arm64's
 * flush_tlb_batched_pending is still a DSB (4b634918384c is v6.16; its
 * stable backport to 6.12.y is the arm64-pending-flush patch). */
static void base_v6_12(struct kernel_config *k)
{
	base_v6_8(k);
	k->weighted_interleave = true;     /* fa3bea4e1f82, v6.9 */
	k->compact_large_folios = true;    /* v6.9 */
	k->mthp_numa = true;               /* d2136d749d76, 6b0ed7b3c775: v6.10 */
	k->prot_numa_refcount = false;     /* ... which replaced the page_count test */
	k->mthp_stats = true;              /* ec33687c6749, v6.10 */
	k->migrate_split_deferred = true;  /* 7262f208ca68, v6.10 */
	k->riscv_pte_accessible = true;    /* 50b5bae5be1b, v6.11 */
	k->partially_mapped_flag = true;   /* v6.12 */
}

/* Debian's linux-image-6.12.118 as booted by make realcheck: v6.12 with
 * the stable backports its source (linux-source-6.12, 6.12.118) carries
 * that the model has switches for: the 700 us base slice (2ae891b82695;
 * sysctl_sched_base_slice = 700000), arm64's arch_flush_tlb_batched_pending
 * as flush_tlb_mm (4b634918384c), and update_task_scan_period clearing
 * numa_faults_locality on its slow-down path too (e81ee0630837).  Left
 * out: the once-a-second mm_cpumask trim (6db2526c1d69), which 6.12.118
 * has without the lazy mm_cpumask update it came with (209954cbc7d0: its
 * switch_mm_irqs_off still clears the CPU from the previous mm's mask);
 * the model's lazy_mm_cpumask switch is the two together. */
static void base_v6_12_debian(struct kernel_config *k)
{
	base_v6_12(k);
	k->base_slice_700us = true;
	k->flush_pending_dsb_only = false;
	k->numa_locality_reset = true;
}

static void base_v7_3(struct kernel_config *k)
{
	base_v6_12(k);
	k->lazy_mm_cpumask = true;         /* 209954cbc7d0, 6db2526c1d69: v6.14 */
	k->degrades_locality_signed = true; /* c3856c9ce6b8, v6.14 */
	k->maybe_mapped_shared = true;     /* v6.15 */
	k->base_slice_700us = true;        /* 2ae891b82695, v6.15 */
	k->x86_invlpgb = true;             /* v6.15 */
	k->flush_pending_dsb_only = false; /* 4b634918384c, v6.16: flush_tlb_mm on every arch */
	k->pmd_prot_numa_checks = true;    /* v6.19 */
	k->promote_candidate_nrl = true;   /* 2025 (v6.17/v6.18, release not confirmed) */
}

static const struct base_def bases[] = {
	{ "v5.12", "hint fault restores the PTE before migrating; ptep_clear_flush per PTE", base_v5_12 },
	{ "v5.15", "b99a342d4f11: PTE stays PROT_NONE while the fault migrates; no batched flush", base_v5_15 },
	{ "v6.1", "as v5.15 with the v6.0 scheduler (SIS_UTIL, imb_numa_nr); no batched migration flush", base_v6_1 },
	{ "v6.3", "7e12beb8ca2a: MIGRATE_ASYNC unmaps with TTU_BATCH_FLUSH, no pte_accessible gate", base_v6_3 },
	{ "v6.4", "4d4b6d66db63: set_tlb_ubc_flush_pending skips inaccessible PTEs; per-VMA scan filter", base_v6_4 },
	{ "v6.8", "as v6.4, plus EEVDF, multi-size THP (not yet NUMA-balanced), arm64/riscv batched unmap", base_v6_8 },
	{ "v6.12", "as v6.8; mTHP NUMA balancing and the deferred split in migration (v6.10), riscv pte_accessible (v6.11)", base_v6_12 },
	{ "v6.12-debian", "Debian's 6.12.118: v6.12 with the 700 us slice, arm64's batched-pending flush and the locality reset backported", base_v6_12_debian },
	{ "v7.3", "as v6.12; lazy x86 mm_cpumask (v6.14); INVLPGB, 2.8 ms slices (v6.15); arm64 flush_tlb_batched_pending flushes the mm (v6.16)", base_v7_3 },
};

static void patch_single_folio_v1(struct kernel_config *k) { k->single_folio_v1 = true; }
static void patch_single_folio_v2(struct kernel_config *k) { k->single_folio_v2 = true; }
static void patch_flush_side(struct kernel_config *k) { k->flush_side = true; }
/* The three broken variants the TLB oracle is tested against
 * (docs/oracle.md): real history and the seed review's rejected option. */
static void patch_no_pending_check(struct kernel_config *k) { k->no_pending_check = true; }
static void patch_pending_flag(struct kernel_config *k) { k->pending_flag = true; }
static void patch_flush_side_naive(struct kernel_config *k) { k->flush_side_naive = true; }
static void patch_mthp_numa(struct kernel_config *k)
{
	k->mthp_numa = true;
	k->prot_numa_refcount = false;
}
static void patch_arm64_pending_flush(struct kernel_config *k) { k->flush_pending_dsb_only = false; }
static void patch_locality_reset(struct kernel_config *k) { k->numa_locality_reset = true; }

static const struct patch_def patches[] = {
	{ "single-folio-v1", "migrate_pages_batch: no TTU_BATCH_FLUSH when reason == MR_NUMA_MISPLACED", patch_single_folio_v1 },
	{ "single-folio-v2", "migrate_folio_unmap: no TTU_BATCH_FLUSH for a lone, small, unshared folio", patch_single_folio_v2 },
	{ "flush-side", "try_to_unmap_flush advances the mm's flushed generation", patch_flush_side },
	{ "no-pending-check", "BROKEN: pte_accessible ignores tlb_flush_pending (the race 20841405940e closed)",
	  patch_no_pending_check },
	{ "pending-flag", "BROKEN: tlb_flush_pending is a flag each gather sets and clears (before 16af97dc5a89)",
	  patch_pending_flag },
	{ "flush-side-naive", "BROKEN: try_to_unmap_flush marks the mm's pending generation flushed unconditionally",
	  patch_flush_side_naive },
	{ "mthp-numa", "PTE-mapped large folios are scanned and migrated by hint faults (in every base from v6.10)", patch_mthp_numa },
	{ "arm64-pending-flush", "4b634918384c (v6.16, also in stable 6.6.y/6.12.y): arm64 flush_tlb_batched_pending flushes the mm", patch_arm64_pending_flush },
	{ "locality-reset", "e81ee0630837 (for v7.4, in stable 6.12.117): update_task_scan_period clears the fault locality when it slows down too",
	  patch_locality_reset },
};

/* Every switch by field: `numasim kernels` shows the bases' (not the
 * switches only patches set), results record them all. */
struct switch_def {
	const char *name;
	size_t off;
	bool patch_only;
};

#define SW(f) { #f, offsetof(struct kernel_config, f), false }
#define PATCH_SW(f) { #f, offsetof(struct kernel_config, f), true }
static const struct switch_def switches[] = {
	SW(numa_delay_mapping), SW(migrate_batch_flush), SW(ubc_accessible_gate),
	SW(vma_scan_filter), SW(flush_pending_dsb_only), SW(arm64_batched_unmap),
	SW(riscv_batched_unmap), SW(riscv_pte_accessible), SW(x86_invlpgb),
	SW(lazy_mm_cpumask), SW(sis_util), SW(imb_numa_nr), SW(eevdf), SW(base_slice_700us),
	SW(weighted_interleave),
	SW(thp_numa_generic), SW(thp_migrate_refuse_shared), SW(huge_pmd_immediate_flush),
	SW(prot_numa_refcount), SW(maybe_mapped_shared), SW(pmd_prot_numa_checks),
	SW(mthp_alloc), SW(mthp_stats), SW(mthp_numa), SW(split_unmap_batch),
	SW(split_folios_own_batch), SW(migrate_split_deferred), SW(partially_mapped_flag),
	SW(compact_large_folios), SW(degrades_locality_signed), SW(numa_locality_reset),
	SW(memory_tiering), SW(promote_candidate_nrl),
	PATCH_SW(single_folio_v1), PATCH_SW(single_folio_v2), PATCH_SW(flush_side),
	PATCH_SW(no_pending_check), PATCH_SW(pending_flag), PATCH_SW(flush_side_naive),
};
#undef SW
#undef PATCH_SW
_Static_assert(sizeof(struct kernel_config) == 96 + sizeof(switches) / sizeof(switches[0]) * sizeof(bool),
	       "struct kernel_config changed: add the switch to switches[] in variants.c");

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

int kernel_config_parse(const char *name, struct kernel_config *cfg, char *err, size_t errlen)
{
	char buf[256];
	if (strlen(name) >= sizeof(buf) || strlen(name) >= sizeof(cfg->name)) {
		snprintf(err, errlen, "kernel name too long");
		return -1;
	}
	memset(cfg, 0, sizeof(*cfg));
	strcpy(cfg->name, name);
	strcpy(buf, name);

	/* BASE then +PATCH...: every part non-empty ('v7.3+', '+v7.3' and
	 * 'v7.3++flush-side' are typos, not kernels), no patch twice */
	char *parts[1 + ARRAY_SIZE(patches) + 1];
	size_t nr = 0;
	for (char *p = buf;; p++) {
		char *plus = strchr(p, '+');
		if (plus)
			*plus = '\0';
		if (!*p) {
			snprintf(err, errlen, "'%s': %s", name, !nr && !plus ? "an empty kernel name"
				 : !nr ? "no kernel base before '+'"
				 : plus ? "an empty patch name between '+' signs"
				 : "an empty patch name after the last '+'");
			return -1;
		}
		if (nr == ARRAY_SIZE(parts)) {
			snprintf(err, errlen, "'%s': more patches than there are (see 'numasim kernels')",
				 name);
			return -1;
		}
		parts[nr++] = p;
		if (!plus)
			break;
		p = plus;
	}
	const struct base_def *base = NULL;
	for (size_t i = 0; i < ARRAY_SIZE(bases); i++)
		if (!strcmp(parts[0], bases[i].name))
			base = &bases[i];
	if (!base) {
		struct suggest sg;
		suggest_init(&sg, parts[0]);
		for (size_t i = 0; i < ARRAY_SIZE(bases); i++)
			suggest_offer(&sg, bases[i].name);
		const char *near = suggest_result(&sg);
		/* a patch named alone: it goes after a base */
		const char *patch = NULL;
		struct suggest sp;
		suggest_init(&sp, parts[0]);
		for (size_t i = 0; i < ARRAY_SIZE(patches); i++) {
			if (!strcmp(parts[0], patches[i].name))
				patch = patches[i].name;
			suggest_offer(&sp, patches[i].name);
		}
		if (!patch)
			patch = suggest_result(&sp);
		if (near)
			snprintf(err, errlen, "unknown kernel base '%s'; did you mean '%s'? (see 'numasim "
				 "kernels')", parts[0], near);
		else if (patch)
			snprintf(err, errlen, "unknown kernel base '%s'; a patch goes after a base: did you "
				 "mean 'v7.3+%s'? (see 'numasim kernels')", parts[0], patch);
		else
			snprintf(err, errlen, "unknown kernel base '%s' (see 'numasim kernels')", parts[0]);
		return -1;
	}
	base->apply(cfg);
	for (size_t t = 1; t < nr; t++) {
		const struct patch_def *p = NULL;
		for (size_t i = 0; i < ARRAY_SIZE(patches); i++)
			if (!strcmp(parts[t], patches[i].name))
				p = &patches[i];
		if (!p) {
			struct suggest sg;
			suggest_init(&sg, parts[t]);
			for (size_t i = 0; i < ARRAY_SIZE(patches); i++)
				suggest_offer(&sg, patches[i].name);
			const char *near = suggest_result(&sg);
			snprintf(err, errlen, "unknown patch '%s'%s%s%s (see 'numasim kernels')", parts[t],
				 near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
			return -1;
		}
		for (size_t u = 1; u < t; u++)
			if (!strcmp(parts[u], parts[t])) {
				snprintf(err, errlen, "'%s': patch '%s' given twice", name, parts[t]);
				return -1;
			}
		p->apply(cfg);
	}
	return 0;
}

/* Switches read only on paths that NUMA balancing alone reaches: the
 * scanner's VMA filter (task_numa_work), the hint fault's delayed mapping
 * and mTHP gate (do_numa_page, mpol_misplaced), the v1 patch (reason
 * MR_NUMA_MISPLACED) and the arm64 pending flush (change_pte_range, which
 * only the scanner calls here); the scanner's large-folio tests
 * (prot_numa_can_map, change_huge_pmd) and the huge-PMD hint fault's
 * (do_huge_pmd_numa_page, migrate_misplaced_folio_prepare).  A new switch
 * is compared unless it is listed here; tests/e2e/ab.sh checks the listed
 * ones. */
static void clear_balancing_only(struct kernel_config *c)
{
	memset(c->name, 0, sizeof(c->name));
	c->vma_scan_filter = false;
	c->numa_delay_mapping = false;
	c->mthp_numa = false;
	c->single_folio_v1 = false;
	c->flush_pending_dsb_only = false;
	c->prot_numa_refcount = false;
	c->maybe_mapped_shared = false;
	c->pmd_prot_numa_checks = false;
	c->huge_pmd_immediate_flush = false;
	c->thp_numa_generic = false;
	c->thp_migrate_refuse_shared = false;
	c->numa_locality_reset = false;    /* update_task_scan_period: placement only */
	c->memory_tiering = false;         /* promotion: hint faults only */
	c->promote_candidate_nrl = false;
}

bool kernel_config_same_unbalanced(const struct kernel_config *a, const struct kernel_config *b)
{
	struct kernel_config x = *a, y = *b;
	clear_balancing_only(&x);
	clear_balancing_only(&y);
	return !memcmp(&x, &y, sizeof(x)); /* chars and bools only: no padding */
}

bool kernel_config_same_unmigrated(const struct kernel_config *a, const struct kernel_config *b)
{
	struct kernel_config x = *a, y = *b;
	clear_balancing_only(&x);
	clear_balancing_only(&y);
	/* read only in migrate_folio_unmap and try_to_unmap_flush, each of
	 * which counts its reads (sim.migration_switch_reads) */
	x.single_folio_v2 = y.single_folio_v2 = false;
	x.flush_side = y.flush_side = false;
	x.flush_side_naive = y.flush_side_naive = false;
	return !memcmp(&x, &y, sizeof(x));
}

bool kernel_config_same(const struct kernel_config *a, const struct kernel_config *b)
{
	struct kernel_config x = *a, y = *b;
	memset(x.name, 0, sizeof(x.name));
	memset(y.name, 0, sizeof(y.name));
	return !memcmp(&x, &y, sizeof(x));
}

void kernel_variants_print(void)
{
	printf("Bases:\n");
	for (size_t i = 0; i < ARRAY_SIZE(bases); i++)
		printf("  %-20s %s\n", bases[i].name, bases[i].what);
	printf("Patches (append with '+', e.g. v7.3+single-folio-v2):\n");
	for (size_t i = 0; i < ARRAY_SIZE(patches); i++)
		printf("  %-20s %s\n", patches[i].name, patches[i].what);
	printf("\nWhat each base has (x: on; docs/model.md section 5 cites the commits):\n");
	printf("  %-26s", "");
	for (size_t b = 0; b < ARRAY_SIZE(bases); b++)
		printf(" %-6s", bases[b].name);
	printf("\n");
	/* each column as wide as its base's name (at least 6) */
	for (size_t i = 0; i < ARRAY_SIZE(switches); i++) {
		if (switches[i].patch_only)
			continue;
		printf("  %-26s", switches[i].name);
		for (size_t b = 0; b < ARRAY_SIZE(bases); b++) {
			struct kernel_config k;
			memset(&k, 0, sizeof(k));
			bases[b].apply(&k);
			int w = (int)strlen(bases[b].name) > 6 ? (int)strlen(bases[b].name) : 6;
			printf(" %-*s", w, *(const bool *)((const char *)&k + switches[i].off) ? "x" : "-");
		}
		printf("\n");
	}
}

void kernel_variants_print_names(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(bases); i++)
		printf("%s\n", bases[i].name);
	for (size_t i = 0; i < ARRAY_SIZE(patches); i++)
		printf("+%s\n", patches[i].name);
}

int kernel_nr_switches(void)
{
	return (int)ARRAY_SIZE(switches);
}

const char *kernel_switch_name(int i)
{
	return switches[i].name;
}

bool kernel_switch_on(const struct kernel_config *k, int i)
{
	return *(const bool *)((const char *)k + switches[i].off);
}
