/* mm/compaction.c over the free-block counts: the fragmentation index and
 * compaction_suitable, a forced compact_memory run migrating within its node
 * (MR_COMPACTION, batched flushes, hints lost), large folios by base,
 * kcompactd, and the invariants after it all. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "asm/tlbflush.h"
#include "linux/compaction.h"
#include "linux/huge_mm.h"
#include "linux/migrate.h"
#include "linux/mm.h"
#include "unit/helpers/testsim.h"

static struct sim *mkc(void **state, const char *kernel, void (*cfg)(struct sim *))
{
	struct sim *s = testsim_new_cfg(kernel, FLUSH_X86_IPI, cfg);
	*state = s;
	return s;
}

static void cfg_mthp_64k(struct sim *s) { s->t.thp.size[4] = THP_SIZE_ALWAYS; }

static void check_invariants(const struct sim *s)
{
	char err[256];
	if (!mm_check_invariants(s, err, sizeof(err)))
		fail_msg("%s", err);
}

static struct folio folio_at(struct sim *s, uint64_t page)
{
	struct vm_area_struct *vma = testsim_vma(s);
	return page_folio(vma->store, vma_store_idx(vma, testsim_addr(s, page)));
}

/* Move pages [0, n) of the workload (all on node 0) to node 1: their old
 * frames become holes in node 0's used pageblocks. */
static void punch_holes(struct sim *s, uint64_t n)
{
	struct migrate_ctx *ctx = calloc(1, sizeof(*ctx));
	struct vm_area_struct *vma = testsim_vma(s);
	assert_non_null(ctx);
	testsim_enter(s, 2, NSEC_PER_SEC / 2);
	for (uint64_t first = 0; first < n; first += 512) {
		ctx->nr = 0;
		for (uint64_t p = first; p < n && p < first + 512;) {
			struct folio f = folio_at(s, p);
			assert_int_equal(migrate_misplaced_folio_prepare(s, f, vma, 1), 0);
			ctx->folios[ctx->nr++] = f;
			p += folio_nr_pages(f);
		}
		ctx->target_nid = 1;
		ctx->mode = MIGRATE_ASYNC;
		ctx->reason = MR_SYSCALL;
		migrate_pages_begin(s, ctx);
		migrate_pages_flush(s, ctx);
		assert_int_equal(migrate_pages_finish(s, ctx), 0);
	}
	free(ctx);
}

static void test_fragmentation_index(void **state)
{
	struct sim *s = mkc(state, "v7.3", NULL);
	/* free pageblocks: a THP allocation would succeed */
	assert_int_equal(fragmentation_index(s, 1, HPAGE_PMD_ORDER), -1000);
	assert_false(compaction_suitable(s, 1, HPAGE_PMD_ORDER));
	/* only scattered pages: fragmentation, compaction can help */
	s->pgdat[1].nr_free[HPAGE_PMD_ORDER] = 0;
	s->pgdat[1].nr_free[0] = 8192;
	s->node_free_pages[1] = 8192;
	assert_true(fragmentation_index(s, 1, HPAGE_PMD_ORDER) > EXTFRAG_THRESHOLD);
	assert_true(compaction_suitable(s, 1, HPAGE_PMD_ORDER));
	/* a few large-ish blocks but little memory: lack of memory */
	s->pgdat[1].nr_free[0] = 0;
	s->pgdat[1].nr_free[8] = 1;
	s->node_free_pages[1] = 256;
	assert_false(compaction_suitable(s, 1, HPAGE_PMD_ORDER));
	s->pgdat[1].nr_free[8] = 0;
	s->node_free_pages[1] = 0;
	assert_int_equal(fragmentation_index(s, 1, HPAGE_PMD_ORDER), 0);
}

static void test_compact_memory_migrates_within_node(void **state)
{
	struct sim *s = mkc(state, "v7.3", NULL);
	struct mm_struct *mm = &s->mms[0];
	struct vm_area_struct *vma = testsim_vma(s);

	punch_holes(s, 1000);
	assert_int_equal(node_hole_pages(s, 0), 1000);
	uint64_t blocks = s->pgdat[0].nr_free[HPAGE_PMD_ORDER];
	uint64_t free0 = s->node_free_pages[0];
	/* the scanner's hints on node 0's pages 1000..1099 */
	for (uint64_t p = 1000; p < 1100; p++)
		set_pte_at(vma, testsim_addr(s, p), testsim_pte(s, p),
			   PTE_PROTNONE | (*testsim_pte(s, p) & (PTE_YOUNG | PTE_DIRTY | PTE_SIM_HOT)));
	unsigned long long mig = testsim_event(s, PGMIGRATE_SUCCESS);
	uint32_t pending = mm->tlb_flush_batched & TLB_FLUSH_BATCH_PENDING_MASK;

	unsigned long moved = compact_node_sync(s, 0, NSEC_PER_SEC);
	assert_true(moved > 0);
	assert_int_equal(testsim_event(s, PGMIGRATE_SUCCESS), mig + moved);
	assert_true(testsim_event(s, COMPACTMIGRATE_SCANNED) >= moved);
	assert_true(testsim_event(s, COMPACTISOLATED) >= moved);
	/* within the node: nothing left it, no memory was gained or lost */
	for (uint64_t p = 1000; p < 2048; p++)
		assert_int_equal(folio_nid(folio_at(s, p)), 0);
	assert_int_equal(s->node_free_pages[0], free0);
	/* the scattered free pages became a pageblock */
	assert_true(s->pgdat[0].nr_free[HPAGE_PMD_ORDER] > blocks);
	assert_true(node_hole_pages(s, 0) < 1000);
	/* the present PTEs it unmapped were batched (MIGRATE_SYNC's first,
	 * ASYNC, attempt): the scanner's next walk will flush the mm */
	assert_true((mm->tlb_flush_batched & TLB_FLUSH_BATCH_PENDING_MASK) != pending);
	assert_true(s->st.batch_flushes > 0);
	/* a migrated PROT_NONE page comes back accessible: the hint is lost */
	bool lost = false;
	for (uint64_t p = 1000; p < 1100; p++)
		lost |= !pte_protnone(*testsim_pte(s, p));
	assert_true(lost);
	check_invariants(s);
}

/* Compaction took only small folios before v6.9; since, folios below its
 * target order (any for compact_memory) but never a pageblock-sized one. */
static void test_compaction_large_folios_by_base(void **state)
{
	const char *kernels[] = { "v6.8", "v7.3" };
	for (int k = 0; k < 2; k++) {
		struct sim *s = mkc(state, kernels[k], cfg_mthp_64k);
			assert_int_equal(folio_order(folio_at(s, 0)), 4);
		punch_holes(s, 1024);
		unsigned long moved = compact_node_sync(s, 0, NSEC_PER_SEC);
		if (k == 0)
			assert_int_equal(moved, 0);
		else
			assert_true(moved > 0 && moved % 16 == 0);
		check_invariants(s);
		testsim_teardown(state);
	}
}

static void test_kcompactd_runs_when_woken(void **state)
{
	struct sim *s = mkc(state, "v7.3", NULL);
	uint32_t kd0 = s->nr_timers - compaction_nr_timers(s);

	punch_holes(s, 1536);
	/* no pageblock left on node 0 (as if something else held them): the
	 * holes are all it has */
	uint64_t held = s->pgdat[0].nr_free[HPAGE_PMD_ORDER];
	s->node_free_pages[0] -= held << HPAGE_PMD_ORDER;
	s->pgdat[0].nr_free[HPAGE_PMD_ORDER] = 0;
	testsim_enter(s, 0, NSEC_PER_SEC);
	wakeup_kcompactd(s, 0, HPAGE_PMD_ORDER);
	assert_true(timerq_armed(&s->e.q, kd0));
	uint64_t t = NSEC_PER_SEC;
	for (int steps = 0; timerq_armed(&s->e.q, kd0) && steps < 1000; steps++) {
		t = s->e.q.when[kd0] > t ? s->e.q.when[kd0] : t;
		timerq_cancel(&s->e.q, kd0);
		compaction_timer(s, kd0, t);
	}
	assert_int_equal(testsim_event(s, KCOMPACTD_WAKE), 1);
	assert_true(testsim_event(s, KCOMPACTD_MIGRATE_SCANNED) > 0);
	assert_true(node_has_free_block(s, 0, HPAGE_PMD_ORDER));
	/* give back what was held, then everything must add up */
	s->pgdat[0].nr_free[HPAGE_PMD_ORDER] += held;
	s->node_free_pages[0] += held << HPAGE_PMD_ORDER;
	check_invariants(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_fragmentation_index, testsim_teardown),
		cmocka_unit_test_teardown(test_compact_memory_migrates_within_node, testsim_teardown),
		cmocka_unit_test_teardown(test_compaction_large_folios_by_base, testsim_teardown),
		cmocka_unit_test_teardown(test_kcompactd_runs_when_woken, testsim_teardown),
	};
	return cmocka_run_group_tests_name("compaction", tests, NULL, NULL);
}
