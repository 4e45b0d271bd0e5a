/* kernel/variants.c: bases set the documented mechanism switches, patches
 * combine, unknown names fail with a message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "kernel/variants.h"

static struct kernel_config parse_ok(const char *name)
{
	struct kernel_config k;
	char err[256] = "";
	assert_int_equal(kernel_config_parse(name, &k, err, sizeof(err)), 0);
	assert_string_equal(k.name, name);
	return k;
}

static void assert_no_patches(const struct kernel_config *k)
{
	assert_false(k->single_folio_v1);
	assert_false(k->single_folio_v2);
	assert_false(k->flush_side);
}

static void test_v5_12_remaps_before_migrating(void **state)
{
	(void)state;
	struct kernel_config k = parse_ok("v5.12");
	assert_false(k.numa_delay_mapping);
	assert_false(k.migrate_batch_flush);
	assert_false(k.ubc_accessible_gate);
	assert_false(k.vma_scan_filter);
	assert_no_patches(&k);
}

static void test_v5_15_delays_mapping_no_batch_flush(void **state)
{
	(void)state;
	struct kernel_config k = parse_ok("v5.15");
	assert_true(k.numa_delay_mapping);
	assert_false(k.migrate_batch_flush);
	assert_false(k.ubc_accessible_gate);
	assert_false(k.vma_scan_filter);
	assert_true(k.flush_pending_dsb_only);
	assert_no_patches(&k);
}

static void test_v6_3_batches_migration_flush_without_gate(void **state)
{
	(void)state;
	struct kernel_config k = parse_ok("v6.3");
	assert_true(k.numa_delay_mapping);
	assert_true(k.migrate_batch_flush);
	assert_false(k.ubc_accessible_gate);
	assert_false(k.vma_scan_filter);
	assert_no_patches(&k);
}

/* Debian's 6.1 (make realcheck): no batched migration flush yet (v6.3);
 * the v6.0 scheduler (SIS_UTIL, imb_numa_nr) on top of v5.15. */
static void test_v6_1_is_v5_15_with_the_v6_0_scheduler(void **state)
{
	(void)state;
	struct kernel_config a = parse_ok("v6.1"), b = parse_ok("v5.15");
	assert_true(a.numa_delay_mapping);
	assert_false(a.migrate_batch_flush);
	assert_false(a.ubc_accessible_gate);
	assert_false(a.vma_scan_filter);
	assert_false(a.arm64_batched_unmap);
	assert_false(a.mthp_numa);
	assert_false(a.eevdf);
	assert_true(a.sis_util && a.imb_numa_nr);
	assert_false(b.sis_util || b.imb_numa_nr);
	/* and mprotect's mmu_gather for huge PMDs (4a18419f71cd, v5.19) */
	assert_false(a.huge_pmd_immediate_flush);
	assert_true(b.huge_pmd_immediate_flush);
	/* and memory tiering's promotion (c574bbe91703 v5.18, the hot-page
	 * selection v6.0) */
	assert_true(a.memory_tiering);
	assert_false(b.memory_tiering);
	a.sis_util = a.imb_numa_nr = false;
	a.memory_tiering = false;
	a.huge_pmd_immediate_flush = true;
	memcpy(a.name, b.name, sizeof(a.name));
	assert_memory_equal(&a, &b, sizeof(a));
}

/* Debian's 6.12: v6.4, arm64 batching (v6.5), mTHP NUMA balancing (v6.10),
 * arm64 flush_tlb_batched_pending still a DSB (4b634918384c is v6.16). */
static void test_v6_12_has_v6_5_and_v6_10(void **state)
{
	(void)state;
	struct kernel_config k = parse_ok("v6.12");
	assert_true(k.numa_delay_mapping);
	assert_true(k.migrate_batch_flush);
	assert_true(k.ubc_accessible_gate);
	assert_true(k.vma_scan_filter);
	assert_true(k.arm64_batched_unmap);
	assert_true(k.mthp_numa);
	assert_true(k.eevdf);
	assert_false(k.lazy_mm_cpumask);
	assert_true(k.flush_pending_dsb_only);
	assert_false(k.single_folio_v1 || k.single_folio_v2 || k.flush_side);
}

/* Debian's 6.12.118: v6.12 and the three backports its source carries
 * that the model switches; not v6.14's lazy mm_cpumask, not INVLPGB. */
static void test_v6_12_debian_is_v6_12_with_its_backports(void **state)
{
	(void)state;
	struct kernel_config d = parse_ok("v6.12-debian"), v = parse_ok("v6.12");
	assert_true(d.base_slice_700us && !v.base_slice_700us);
	assert_true(!d.flush_pending_dsb_only && v.flush_pending_dsb_only);
	assert_true(d.numa_locality_reset && !v.numa_locality_reset);
	d.base_slice_700us = v.base_slice_700us;
	d.flush_pending_dsb_only = v.flush_pending_dsb_only;
	d.numa_locality_reset = v.numa_locality_reset;
	memcpy(d.name, v.name, sizeof(d.name));
	assert_memory_equal(&d, &v, sizeof(d)); /* nothing else differs */
	assert_false(d.lazy_mm_cpumask);
	assert_false(d.x86_invlpgb);
}

static void test_v6_4_adds_accessible_gate_and_vma_filter(void **state)
{
	(void)state;
	struct kernel_config k = parse_ok("v6.4");
	assert_true(k.numa_delay_mapping);
	assert_true(k.migrate_batch_flush);
	assert_true(k.ubc_accessible_gate);
	assert_true(k.vma_scan_filter);
	assert_true(k.flush_pending_dsb_only);
	assert_no_patches(&k);
}

static void test_v7_3_flushes_mm_in_batched_pending(void **state)
{
	(void)state;
	struct kernel_config k = parse_ok("v7.3");
	assert_true(k.numa_delay_mapping);
	assert_true(k.migrate_batch_flush);
	assert_true(k.ubc_accessible_gate);
	assert_true(k.vma_scan_filter);
	assert_false(k.flush_pending_dsb_only);
	/* the releases since v6.4: mTHP NUMA balancing (v6.10), EEVDF (v6.6),
	 * the lazy x86 mm_cpumask (v6.14), the 2.8 ms slice (v6.15) */
	assert_true(k.mthp_numa);
	assert_true(k.eevdf && k.lazy_mm_cpumask && k.base_slice_700us);
	assert_no_patches(&k);
}

/* mTHP NUMA balancing (d2136d749d76, 6b0ed7b3c775) was merged for v6.10:
 * the v7.3 base has it, v6.8 (the first with mTHP) does not, and it stays a
 * patch for the older bases, where it also retires the page_count test. */
static void test_mthp_numa_in_v7_3_patch_before(void **state)
{
	(void)state;
	struct kernel_config k = parse_ok("v7.3");
	assert_true(k.mthp_numa);
	assert_false(k.prot_numa_refcount);
	assert_true(k.mthp_alloc);
	k = parse_ok("v6.8");
	assert_false(k.mthp_numa);
	assert_true(k.mthp_alloc);
	assert_true(k.prot_numa_refcount);
	k = parse_ok("v6.8+mthp-numa");
	assert_true(k.mthp_numa);
	assert_false(k.prot_numa_refcount);
	for (const char *const *b = (const char *const[]){ "v5.12", "v5.15", "v6.3", "v6.4", NULL };
	     *b; b++) {
		k = parse_ok(*b);
		assert_false(k.mthp_numa);
		assert_false(k.mthp_alloc); /* mTHP sizes exist from v6.8 */
	}
}

/* INVLPGB flushing came with v6.15: only v7.3 has it. */
static void test_invlpgb_only_from_v6_15(void **state)
{
	(void)state;
	assert_true(parse_ok("v7.3").x86_invlpgb);
	for (const char *const *b = (const char *const[]){ "v5.12", "v5.15", "v6.3", "v6.4", "v6.8", NULL };
	     *b; b++)
		assert_false(parse_ok(*b).x86_invlpgb);
}

/* riscv: batched unmap (54d7431af73e) in v6.8, its own pte_accessible
 * (50b5bae5be1b) in v6.11. */
static void test_riscv_batching_and_pte_accessible(void **state)
{
	(void)state;
	assert_false(parse_ok("v6.4").riscv_batched_unmap);
	assert_true(parse_ok("v6.8").riscv_batched_unmap);
	assert_false(parse_ok("v6.8").riscv_pte_accessible);
	assert_true(parse_ok("v7.3").riscv_pte_accessible);
	assert_true(parse_ok("v7.3").riscv_batched_unmap);
}

/* arm64: batched unmap from v6.5 (43b3dfdd0455); between it and v6.16
 * (4b634918384c) flush_tlb_batched_pending is only a DSB; the stable
 * backport is the arm64-pending-flush patch. */
static void test_arm64_batching_and_pending_flush(void **state)
{
	(void)state;
	struct kernel_config k = parse_ok("v6.8");
	assert_true(k.arm64_batched_unmap);
	assert_true(k.flush_pending_dsb_only);
	assert_false(parse_ok("v6.4").arm64_batched_unmap);
	assert_false(parse_ok("v7.3").flush_pending_dsb_only);
	assert_false(parse_ok("v6.8+arm64-pending-flush").flush_pending_dsb_only);
	assert_true(parse_ok("v6.8+arm64-pending-flush").arm64_batched_unmap);
}

/* The large-folio switches at their versions. */
static void test_large_folio_switches_by_version(void **state)
{
	(void)state;
	/* v6.19: change_huge_pmd applies folio_can_map_prot_numa */
	assert_true(parse_ok("v7.3").pmd_prot_numa_checks);
	assert_false(parse_ok("v6.8").pmd_prot_numa_checks);
	/* before v5.19 (4a18419f71cd) no mmu_gather in mprotect: PMD flushed at once */
	assert_true(parse_ok("v5.12").huge_pmd_immediate_flush);
	assert_true(parse_ok("v5.15").huge_pmd_immediate_flush);
	assert_false(parse_ok("v6.3").huge_pmd_immediate_flush);
	/* c5b5a3dd2c1f (v5.14): THP faults through migration entries */
	assert_false(parse_ok("v5.12").thp_numa_generic);
	assert_true(parse_ok("v5.15").thp_numa_generic);
	/* the shared-THP refusal, removed by 728be28fae8c (v6.8) */
	assert_true(parse_ok("v6.4").thp_migrate_refuse_shared);
	assert_false(parse_ok("v6.8").thp_migrate_refuse_shared);
	/* v5.12 tests page_mapcount, v5.14..v6.9 page_count */
	assert_false(parse_ok("v5.12").prot_numa_refcount);
	assert_true(parse_ok("v6.4").prot_numa_refcount);
	/* v6.15: folio_maybe_mapped_shared */
	assert_true(parse_ok("v7.3").maybe_mapped_shared);
	assert_false(parse_ok("v6.8+mthp-numa").maybe_mapped_shared);
	/* splits: own batch v6.4, batched split unmap v6.8, deferred split in
	 * migration v6.10 (flag v6.12), mTHP stats v6.10, compaction of large
	 * folios v6.9 */
	assert_false(parse_ok("v6.3").split_folios_own_batch);
	assert_true(parse_ok("v6.4").split_folios_own_batch);
	assert_false(parse_ok("v6.4").split_unmap_batch);
	assert_true(parse_ok("v6.8").split_unmap_batch);
	assert_false(parse_ok("v6.8").migrate_split_deferred);
	assert_true(parse_ok("v7.3").migrate_split_deferred);
	assert_true(parse_ok("v7.3").partially_mapped_flag);
	assert_false(parse_ok("v6.8").mthp_stats);
	assert_true(parse_ok("v7.3").mthp_stats);
	assert_false(parse_ok("v6.8").compact_large_folios);
	assert_true(parse_ok("v7.3").compact_large_folios);
}

static void test_patches_combine(void **state)
{
	(void)state;
	struct kernel_config k = parse_ok("v7.3+single-folio-v2+flush-side");
	assert_true(k.single_folio_v2);
	assert_true(k.flush_side);
	assert_false(k.single_folio_v1);
	assert_true(k.mthp_numa);
	/* the base's switches are kept */
	assert_true(k.mthp_numa);
	assert_true(k.migrate_batch_flush);
	assert_true(k.ubc_accessible_gate);
	assert_false(k.flush_pending_dsb_only);
}

static void test_each_patch_sets_its_switch(void **state)
{
	(void)state;
	assert_true(parse_ok("v6.3+single-folio-v1").single_folio_v1);
	assert_true(parse_ok("v7.3+single-folio-v2").single_folio_v2);
	assert_true(parse_ok("v7.3+flush-side").flush_side);
	assert_true(parse_ok("v6.4+mthp-numa").mthp_numa);
	/* a patch does not change the base */
	assert_false(parse_ok("v6.3+single-folio-v1").ubc_accessible_gate);
}

static void test_unknown_base_fails_with_message(void **state)
{
	(void)state;
	struct kernel_config k;
	char err[256] = "";
	assert_int_equal(kernel_config_parse("v9.9", &k, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "unknown kernel base"));
	assert_non_null(strstr(err, "v9.9"));
	err[0] = '\0';
	assert_int_equal(kernel_config_parse("single-folio-v2", &k, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "unknown kernel base"));
	err[0] = '\0';
	assert_int_equal(kernel_config_parse("", &k, err, sizeof(err)), -1);
	assert_true(strlen(err) > 0);
}

static void test_unknown_patch_fails_with_message(void **state)
{
	(void)state;
	struct kernel_config k;
	char err[256] = "";
	assert_int_equal(kernel_config_parse("v7.3+single-folio-v3", &k, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "unknown patch"));
	assert_non_null(strstr(err, "single-folio-v3"));
	err[0] = '\0';
	assert_int_equal(kernel_config_parse("v7.3+flush-side+bogus", &k, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "bogus"));
}

static void test_overlong_name_fails(void **state)
{
	(void)state;
	struct kernel_config k;
	char err[256] = "", name[300];
	memset(name, 'x', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	memcpy(name, "v7.3+", 5);
	assert_int_equal(kernel_config_parse(name, &k, err, sizeof(err)), -1);
	assert_true(strlen(err) > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v5_12_remaps_before_migrating),
		cmocka_unit_test(test_v5_15_delays_mapping_no_batch_flush),
		cmocka_unit_test(test_v6_3_batches_migration_flush_without_gate),
		cmocka_unit_test(test_v6_1_is_v5_15_with_the_v6_0_scheduler),
		cmocka_unit_test(test_v6_4_adds_accessible_gate_and_vma_filter),
		cmocka_unit_test(test_v6_12_has_v6_5_and_v6_10),
		cmocka_unit_test(test_v6_12_debian_is_v6_12_with_its_backports),
		cmocka_unit_test(test_v7_3_flushes_mm_in_batched_pending),
		cmocka_unit_test(test_mthp_numa_in_v7_3_patch_before),
		cmocka_unit_test(test_invlpgb_only_from_v6_15),
		cmocka_unit_test(test_riscv_batching_and_pte_accessible),
		cmocka_unit_test(test_arm64_batching_and_pending_flush),
		cmocka_unit_test(test_large_folio_switches_by_version),
		cmocka_unit_test(test_patches_combine),
		cmocka_unit_test(test_each_patch_sets_its_switch),
		cmocka_unit_test(test_unknown_base_fails_with_message),
		cmocka_unit_test(test_unknown_patch_fails_with_message),
		cmocka_unit_test(test_overlong_name_fails),
	};
	return cmocka_run_group_tests_name("kernels", tests, NULL, NULL);
}
