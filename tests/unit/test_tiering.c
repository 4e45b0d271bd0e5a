/* Memory tiering rules: tiers from abstract distance and the demotion
 * targets (mm/memory-tiers.c); the scanner's top-tier skip and access-time
 * stamp (change_pte_range); should_numa_migrate_memory's tiering path: the
 * hint-fault latency against the hot threshold, the promotion rate limit,
 * the threshold's auto-adjust and the free-space bypass; the promotion
 * counters; kswapd's demotion (mm/vmscan.c): the target, the watermark it
 * stops at, one batched flush per demote list (v6.3+) against one flush
 * per folio (v6.1). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "asm/tlbflush.h"
#include "linux/compaction.h"
#include "linux/migrate.h"
#include "linux/mm.h"
#include "linux/sched/numa_balancing.h"
#include "linux/vmscan.h"
#include "unit/helpers/testsim.h"

/* The test world (2 CPU nodes of 2 CPUs, 64 MiB each) with a 64 MiB
 * CPU-less node on each socket (nodes 2 and 3), tiering mode, demotion on,
 * the kernel's tiering defaults.  The workload's 8 MiB are interleaved
 * over nodes 0 and 2 by 2 MiB: tables 0 and 2 on DRAM, 1 and 3 on CXL. */
static void cfg_tiered(struct sim *s)
{
	s->m.nr_memory_nodes = 2;
	s->m.memory_node_socket[0] = 0;
	s->m.memory_node_socket[1] = 1;
	s->m.memory_node_mib = 64;
	if (machine_finish(&s->m))
		abort();
	s->t.numa_balancing = 2;
	s->t.hot_threshold_ms = 1000;
	s->t.promote_rate_limit_mbps = 65536;
	s->t.demotion_enabled = true;
	s->w.p.shared_first_touch.mode = FT_INTERLEAVE;
	s->w.p.shared_first_touch.nodes = (1u << 0) | (1u << 2);
	/* one operation a second per thread: pages that are seldom touched */
	s->w.p.cpu_ns_per_op = 1e9;
}

static struct sim *mkt(void **state, const char *kernel)
{
	struct sim *s = testsim_new_cfg(kernel, FLUSH_X86_IPI, cfg_tiered);
	*state = s;
	return s;
}

static struct folio folio_at(struct sim *s, uint64_t page)
{
	struct vm_area_struct *vma = testsim_vma(s);
	return page_folio(vma->store, vma_store_idx(vma, testsim_addr(s, page)));
}

#define TABLE_PAGES 512

/* ---- tiers ------------------------------------------------------------------ */

static void test_tiers_from_abstract_distance(void **state)
{
	struct sim *s = mkt(state, "v7.3");
	/* 250 ns and 50 GB/s against DRAM's 100 ns and 400 GB/s: 576 x 2.5 x 8 */
	assert_int_equal(mt_perf_to_adistance(250, 50, 100, 400), 11520);
	assert_int_equal(s->tiers.adistance[0], MEMTIER_ADISTANCE_DRAM);
	assert_int_equal(s->tiers.adistance[2], 11520);
	assert_true(node_is_toptier(s, 0) && node_is_toptier(s, 1));
	assert_false(node_is_toptier(s, 2) || node_is_toptier(s, 3));
	/* each DRAM node demotes to its own socket's CXL node, falls back to both */
	assert_int_equal(s->tiers.preferred[0], 1u << 2);
	assert_int_equal(s->tiers.preferred[1], 1u << 3);
	assert_int_equal(s->tiers.lower_tier_mask[0], (1u << 2) | (1u << 3));
	assert_int_equal(s->tiers.preferred[2], 0); /* the bottom tier */
}

static void test_memory_node_in_dram_tier_is_top_tier(void **state)
{
	struct sim *s = mkt(state, "v7.3");
	struct machine m = s->m;
	struct memory_tiers mt;
	m.memory_node_latency_ns = 110; /* 633: DRAM's chunk, [512, 640) */
	m.memory_node_bw_gbs = 400;
	memory_tiers_init(&m, &mt);
	assert_true(memtier_node_is_toptier(&mt, 2));
	assert_false(mt.has_slow_tier);
}

/* ---- the scanner ------------------------------------------------------------- */

static long scan_all(struct sim *s)
{
	struct vm_area_struct *vma = testsim_vma(s);
	struct mmu_gather tlb;
	testsim_enter(s, 0, 3 * NSEC_PER_SEC);
	tlb_gather_mmu(&tlb, &s->mms[0]);
	long n = change_protection(&tlb, vma, vma->vm_start, vma->vm_end, MM_CP_PROT_NUMA);
	tlb_finish_mmu(&tlb);
	return n;
}

static void test_tiering_only_skips_top_tier_and_stamps_slow_tier(void **state)
{
	struct sim *s = mkt(state, "v7.3");
	assert_int_equal(folio_nid(folio_at(s, 0)), 0);
	assert_int_equal(folio_nid(folio_at(s, TABLE_PAGES)), 2);
	/* mode 2: only the CXL tables' 1024 pages are hinted */
	assert_int_equal(scan_all(s), 2 * TABLE_PAGES);
	assert_false(pte_protnone(*testsim_pte(s, 0)));
	assert_true(pte_protnone(*testsim_pte(s, TABLE_PAGES)));
	/* ... and record the scan time, in ms, in last_cpupid */
	struct folio f = folio_at(s, TABLE_PAGES);
	assert_int_equal(f.fs->pg[f.idx].last_cpupid, 3000);
}

static void test_mode_3_hints_both_tiers(void **state)
{
	struct sim *s = mkt(state, "v7.3");
	s->t.numa_balancing = 3;
	assert_int_equal(scan_all(s), 4 * TABLE_PAGES);
	struct folio f = folio_at(s, 0);
	assert_int_equal(f.fs->pg[f.idx].last_cpupid, LAST_CPUPID_UNSET); /* DRAM: a cpupid */
}

/* ---- promotion ---------------------------------------------------------------- */

/* A CXL folio scanned at @scan_ms, its hint fault by task 0 (node 0) at
 * @fault_ms: should it be promoted? */
static bool promote_at(struct sim *s, uint64_t page, unsigned scan_ms, unsigned fault_ms)
{
	struct folio f = folio_at(s, page);
	f.fs->pg[f.idx].last_cpupid = scan_ms;
	testsim_enter(s, 0, (uint64_t)fault_ms * NSEC_PER_MSEC);
	return should_numa_migrate_memory(s, &s->tasks[0], f, folio_nid(f), 0);
}

static void test_hint_fault_latency_against_hot_threshold(void **state)
{
	struct sim *s = mkt(state, "v7.3");
	/* node 0 has 64 MiB: never 1 GiB free, so the latency decides */
	/* (within the first scan_period_max: the threshold is not adjusted) */
	assert_true(promote_at(s, TABLE_PAGES, 20000, 20500));      /* 500 ms */
	assert_false(promote_at(s, TABLE_PAGES + 1, 20000, 21000)); /* 1000 ms: not under */
	/* the fault recorded its own time: a second fault measures from it */
	struct folio f = folio_at(s, TABLE_PAGES + 1);
	assert_int_equal(f.fs->pg[f.idx].last_cpupid, 21000);
	assert_int_equal(s->pgdat[0].stat[PGPROMOTE_CANDIDATE], 1); /* only the hot one */
}

static void test_promotion_rate_limit(void **state)
{
	struct sim *s = mkt(state, "v7.3");
	s->t.promote_rate_limit_mbps = 1; /* 256 pages a second */
	int yes = 0;
	for (int i = 0; i < 300; i++)
		yes += promote_at(s, TABLE_PAGES + (uint64_t)i, 60000, 60100);
	/* the window opened at the first candidate (more than 1 s after 0),
	 * counting it in its base: 256 more reach the limit */
	assert_int_equal(yes, 256);
	assert_int_equal(s->pgdat[0].stat[PGPROMOTE_CANDIDATE], 300);
	/* a new one-second window */
	assert_true(promote_at(s, TABLE_PAGES + 300, 61000, 61200));
}

static void test_threshold_auto_adjust(void **state)
{
	struct sim *s = mkt(state, "v7.3");
	s->t.promote_rate_limit_mbps = 1;      /* 256 pages/s */
	s->t.scan_period_max_ms = 1000;        /* the adjust period: ref 256 candidates */
	/* the first period: opens it (no candidates seen before: raise) */
	promote_at(s, TABLE_PAGES, 2000, 2100);
	assert_int_equal(s->pgdat[0].nbp_threshold, 1125); /* + 2 x 1000 / 16 */
	/* 400 candidates in the next period: above 110% of 256, lower */
	for (int i = 0; i < 400; i++) {
		unsigned t = 2200 + (unsigned)i;
		promote_at(s, TABLE_PAGES + 1 + (uint64_t)i, t - 100, t);
	}
	assert_int_equal(s->pgdat[0].stat[PGPROMOTE_CANDIDATE], 401);
	assert_int_equal(s->pgdat[0].nbp_threshold, 1125);
	promote_at(s, 3 * TABLE_PAGES, 3200, 3250); /* table 3: on node 2 too */
	assert_int_equal(s->pgdat[0].nbp_threshold, 1000);
}

static void cfg_big_dram(struct sim *s)
{
	cfg_tiered(s);
	s->m.mem_per_node_mib = 4096; /* more than 1 GiB free */
	if (machine_finish(&s->m))
		abort();
}

static void test_free_space_enough_promotes_without_threshold(void **state)
{
	struct sim *s = testsim_new_cfg("v7.3", FLUSH_X86_IPI, cfg_big_dram);
	*state = s;
	assert_true(promote_at(s, TABLE_PAGES, 1000, 50000)); /* 49 s: cold, but room */
	assert_int_equal(s->pgdat[0].stat[PGPROMOTE_CANDIDATE], 0);
	assert_int_equal(s->pgdat[0].stat[PGPROMOTE_CANDIDATE_NRL], 1); /* v7.3 counts it */
}

static void test_promotion_counts_pgpromote_success(void **state)
{
	struct sim *s = mkt(state, "v7.3");
	struct vm_area_struct *vma = testsim_vma(s);
	struct migrate_ctx *ctx = calloc(1, sizeof(*ctx));
	assert_non_null(ctx);
	struct folio f = folio_at(s, TABLE_PAGES);
	f.fs->pg[f.idx].last_cpupid = 100;
	testsim_enter(s, 0, NSEC_PER_SEC);
	assert_int_equal(migrate_misplaced_folio_prepare(s, f, vma, 0), 0);
	migrate_misplaced_folio_begin(s, ctx, f, 0);
	migrate_pages_flush(s, ctx);
	assert_int_equal(migrate_misplaced_folio_end(s, ctx), 0);
	assert_int_equal(folio_nid(f), 0);
	assert_int_equal(s->pgdat[0].stat[PGPROMOTE_SUCCESS], 1);
	/* the access time is not carried to the top tier as a cpupid */
	assert_int_equal(f.fs->pg[f.idx].last_cpupid, LAST_CPUPID_UNSET);
	free(ctx);
}

/* ---- demotion ----------------------------------------------------------------- */

/* Node 0 squeezed below its promo watermark by a memory eater. */
static void cfg_squeezed(struct sim *s)
{
	cfg_tiered(s);
	s->w.p.shared_first_touch.mode = FT_NODE0; /* all 8 MiB on DRAM */
	s->w.p.eat_node = 0;
	s->w.p.eat_gib = 55.6 / 1024;
}

static void test_kswapd_demotes_to_its_target_until_balanced(void **state)
{
	struct sim *s = testsim_new_cfg("v7.3", FLUSH_X86_IPI, cfg_squeezed);
	*state = s;
	const struct pglist_data *pg = &s->pgdat[0];
	assert_true(s->node_free_pages[0] <= promo_wmark_pages(pg));
	uint64_t on2 = s->node_free_pages[2], on3 = s->node_free_pages[3];
	unsigned long demoted = kswapd_run_sync(s, 0, NSEC_PER_SEC);
	assert_true(demoted > 0);
	assert_int_equal(pg->stat[PGDEMOTE_KSWAPD], demoted);
	/* to node 2, its own socket's CXL node, and no further than balance */
	assert_int_equal(on2 - s->node_free_pages[2], demoted);
	assert_int_equal(on3, s->node_free_pages[3]);
	assert_true(s->node_free_pages[0] > promo_wmark_pages(pg));
	assert_true(s->node_free_pages[0] <= promo_wmark_pages(pg) + 32 + 1);
}

/* The preferred target (node 2) short of room above its min watermark:
 * the fallback, any lower-tier node (node 3). */
static void test_demotion_falls_back_to_another_lower_tier_node(void **state)
{
	struct sim *s = testsim_new_cfg("v7.3", FLUSH_X86_IPI, cfg_squeezed);
	*state = s;
	uint64_t keep = min_wmark_pages(&s->pgdat[2]) + 8;
	uint64_t take = s->node_free_pages[2] - keep;
	assert_true(alloc_pages_bulk_node(s, 2, take));
	s->pgdat[2].held_pages += take; /* as a memory eater holds it */
	uint64_t on3 = s->node_free_pages[3];
	unsigned long demoted = kswapd_run_sync(s, 0, NSEC_PER_SEC);
	assert_true(demoted > 0);
	assert_int_equal(s->node_free_pages[2], keep);
	assert_int_equal(on3 - s->node_free_pages[3], demoted);
	char err[256];
	if (!mm_check_invariants(s, err, sizeof(err)))
		fail_msg("%s", err);
}

static void test_kswapd_without_demotion_reclaims_nothing(void **state)
{
	struct sim *s = testsim_new_cfg("v7.3", FLUSH_X86_IPI, cfg_squeezed);
	*state = s;
	s->t.demotion_enabled = false;
	assert_int_equal(kswapd_run_sync(s, 0, NSEC_PER_SEC), 0);
}

/* The demote lists' flushes: @kernel's remote flush rounds per page. */
static double flushes_per_demoted_page(void **state, const char *kernel, unsigned long *demoted)
{
	struct sim *s = testsim_new_cfg(kernel, FLUSH_X86_IPI, cfg_squeezed);
	*state = s;
	unsigned long long before = testsim_event(s, NR_TLB_REMOTE_FLUSH);
	*demoted = kswapd_run_sync(s, 0, NSEC_PER_SEC);
	assert_true(*demoted > 32);
	return (double)(testsim_event(s, NR_TLB_REMOTE_FLUSH) - before) / (double)*demoted;
}

static void test_demote_list_one_batched_flush(void **state)
{
	unsigned long demoted;
	double per_page = flushes_per_demoted_page(state, "v7.3", &demoted);
	/* one flush per list of up to SWAP_CLUSTER_MAX (32) folios */
	assert_true(per_page * (double)demoted <= (double)(demoted + 31) / 32 + 0.5);
}

static void test_demote_list_flush_per_folio_before_v6_3(void **state)
{
	unsigned long demoted;
	double per_page = flushes_per_demoted_page(state, "v6.1", &demoted);
	assert_true(per_page >= 0.999);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_tiers_from_abstract_distance, testsim_teardown),
		cmocka_unit_test_teardown(test_memory_node_in_dram_tier_is_top_tier, testsim_teardown),
		cmocka_unit_test_teardown(test_tiering_only_skips_top_tier_and_stamps_slow_tier,
					  testsim_teardown),
		cmocka_unit_test_teardown(test_mode_3_hints_both_tiers, testsim_teardown),
		cmocka_unit_test_teardown(test_hint_fault_latency_against_hot_threshold, testsim_teardown),
		cmocka_unit_test_teardown(test_promotion_rate_limit, testsim_teardown),
		cmocka_unit_test_teardown(test_threshold_auto_adjust, testsim_teardown),
		cmocka_unit_test_teardown(test_free_space_enough_promotes_without_threshold,
					  testsim_teardown),
		cmocka_unit_test_teardown(test_promotion_counts_pgpromote_success, testsim_teardown),
		cmocka_unit_test_teardown(test_kswapd_demotes_to_its_target_until_balanced,
					  testsim_teardown),
		cmocka_unit_test_teardown(test_demotion_falls_back_to_another_lower_tier_node,
					  testsim_teardown),
		cmocka_unit_test_teardown(test_kswapd_without_demotion_reclaims_nothing, testsim_teardown),
		cmocka_unit_test_teardown(test_demote_list_one_batched_flush, testsim_teardown),
		cmocka_unit_test_teardown(test_demote_list_flush_per_folio_before_v6_3, testsim_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
