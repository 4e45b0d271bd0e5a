/* change_prot_numa / change_pte_range (mm/mprotect.c, mm/mempolicy.c):
 * PROT_NONE PTEs are skipped, numa_pte_updates counts changed PTEs, the
 * gather covers what changed, and flush_tlb_batched_pending runs once per
 * PTE table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "asm/tlbflush.h"
#include "linux/mm.h"
#include "unit/helpers/testsim.h"


static struct sim *mk(void **state)
{
	return testsim_mk(state, "v7.3", FLUSH_X86_IPI);
}

static void make_protnone(struct sim *s, uint64_t first, uint64_t n)
{
	for (uint64_t p = first; p < first + n; p++) {
		pte_t *ptep = testsim_pte(s, p);
		set_pte_at(testsim_vma(s), testsim_addr(s, p), ptep,
			   PTE_PROTNONE | (*ptep & (PTE_YOUNG | PTE_DIRTY | PTE_SIM_HOT)));
	}
}

static uint64_t count_protnone(struct sim *s, uint64_t first, uint64_t n)
{
	uint64_t c = 0;
	for (uint64_t p = first; p < first + n; p++)
		c += pte_protnone(*testsim_pte(s, p));
	return c;
}

static void test_change_prot_numa_skips_protnone_and_counts_updates(void **state)
{
	struct sim *s = mk(state);
	struct vm_area_struct *vma = testsim_vma(s);

	testsim_enter(s, 0, NSEC_PER_SEC);
	make_protnone(s, 0, 100);
	unsigned long n = change_prot_numa(vma, vma->vm_start, vma->vm_start + PMD_SIZE);
	assert_int_equal(n, 412);
	assert_int_equal(testsim_event(s, NUMA_PTE_UPDATES), 412);
	assert_int_equal(count_protnone(s, 0, PTRS_PER_PTE), PTRS_PER_PTE);
	assert_int_equal(count_protnone(s, PTRS_PER_PTE, PTRS_PER_PTE), 0); /* next table untouched */
	struct pte_table *t = &vma->tables[0];
	assert_int_equal(t->nr_protnone_hot + t->nr_protnone_cold, PTRS_PER_PTE);
	assert_int_equal(s->mms[0].tlb_flush_pending, 0);
}

static void test_change_pte_range_gathers_only_changed_ptes(void **state)
{
	struct sim *s = mk(state);
	struct vm_area_struct *vma = testsim_vma(s);
	struct mmu_gather tlb;

	testsim_enter(s, 0, NSEC_PER_SEC);
	make_protnone(s, 0, 100);
	tlb_gather_mmu(&tlb, &s->mms[0]);
	long n = change_pte_range(&tlb, vma, vma->vm_start, vma->vm_start + PMD_SIZE, MM_CP_PROT_NUMA);
	assert_int_equal(n, 412);
	assert_true(tlb.cleared_ptes);
	assert_int_equal(tlb.start, testsim_addr(s, 100));
	assert_int_equal(tlb.end, vma->vm_start + PMD_SIZE);
	tlb_finish_mmu(&tlb);
}

/* The gather's range is the first to the last changed page (the model adds
 * it once per table, the kernel page by page: the same range), also for a
 * range that starts and ends inside the table. */
static void test_change_pte_range_gathers_first_to_last_changed(void **state)
{
	struct sim *s = mk(state);
	struct vm_area_struct *vma = testsim_vma(s);
	struct mmu_gather tlb;

	testsim_enter(s, 0, NSEC_PER_SEC);
	make_protnone(s, 100, 50);
	make_protnone(s, 290, 10);
	tlb_gather_mmu(&tlb, &s->mms[0]);
	long n = change_pte_range(&tlb, vma, testsim_addr(s, 90), testsim_addr(s, 300), MM_CP_PROT_NUMA);
	assert_int_equal(n, 210 - 50 - 10);
	assert_int_equal(tlb.start, testsim_addr(s, 90));
	assert_int_equal(tlb.end, testsim_addr(s, 290));
	assert_int_equal(count_protnone(s, 0, PTRS_PER_PTE), 300 - 90);
	assert_int_equal(*testsim_pte(s, 89) & PTE_PROTNONE, 0);
	assert_int_equal(*testsim_pte(s, 300) & PTE_PROTNONE, 0);
	tlb_finish_mmu(&tlb);
}

/* The scan's cost is the table's, each changed PTE's and each PTE looked at
 * and skipped (already PROT_NONE, or not present): the same on a base whose
 * order-0 folios take the small test's run (v7.3) and on one whose take the
 * loop's per-folio test (v5.15). */
static void scan_cost_counts_changed_and_skipped(void **state, const char *kernel)
{
	struct sim *s = testsim_mk(state, kernel, FLUSH_X86_IPI);
	struct vm_area_struct *vma = testsim_vma(s);
	const struct cost_model *cm = &s->m.cost;
	struct mmu_gather tlb;

	testsim_enter(s, 0, NSEC_PER_SEC);
	make_protnone(s, 0, 100);
	for (uint64_t p = 200; p < 230; p++) /* not present: zapped */
		set_pte_at(vma, testsim_addr(s, p), testsim_pte(s, p), 0);
	double before = engine_cost(&s->e.acct[s->e.cpu], COST_SCAN);
	tlb_gather_mmu(&tlb, &s->mms[0]);
	long n = change_pte_range(&tlb, vma, vma->vm_start, vma->vm_start + PMD_SIZE, MM_CP_PROT_NUMA);
	assert_int_equal(n, PTRS_PER_PTE - 130);
	double want = cm->pte_table_ns + (double)n * cm->pte_update_ns + 130.0 * cm->pte_skip_ns;
	double got = engine_cost(&s->e.acct[s->e.cpu], COST_SCAN) - before;
	assert_true(got > want - 1e-6 && got < want + 1e-6);
	struct pte_table *t = &vma->tables[0];
	assert_int_equal(t->nr_protnone_hot + t->nr_protnone_cold, PTRS_PER_PTE - 30);
	tlb_finish_mmu(&tlb);
}

static void test_change_pte_range_scan_cost_small_run(void **state)
{
	scan_cost_counts_changed_and_skipped(state, "v7.3");
}

static void test_change_pte_range_scan_cost_folio_test(void **state)
{
	scan_cost_counts_changed_and_skipped(state, "v5.15");
}

static void test_change_pte_range_all_protnone_changes_nothing(void **state)
{
	struct sim *s = mk(state);
	struct vm_area_struct *vma = testsim_vma(s);
	struct mmu_gather tlb;

	testsim_enter(s, 0, NSEC_PER_SEC);
	make_protnone(s, 0, PTRS_PER_PTE);
	tlb_gather_mmu(&tlb, &s->mms[0]);
	long n = change_pte_range(&tlb, vma, vma->vm_start, vma->vm_start + PMD_SIZE, MM_CP_PROT_NUMA);
	assert_int_equal(n, 0);
	assert_false(tlb.cleared_ptes);
	tlb_finish_mmu(&tlb);
	assert_int_equal(testsim_event(s, NR_TLB_REMOTE_FLUSH), 0); /* no PTE changed: no flush */
}

static void test_change_pte_range_flushes_batched_pending_once_per_table(void **state)
{
	struct sim *s = mk(state);
	struct vm_area_struct *vma = testsim_vma(s);
	struct mm_struct *mm = &s->mms[0];
	struct mmu_gather tlb;
	uint64_t a = testsim_addr(s, 1000);

	/* another task recorded a batched unmap */
	testsim_enter(s, 1, NSEC_PER_SEC);
	set_tlb_ubc_flush_pending(mm, PTE_PRESENT, a, a + PAGE_SIZE);
	assert_int_equal(mm->tlb_flush_batched, 1);

	testsim_enter(s, 0, NSEC_PER_SEC);
	tlb_gather_mmu(&tlb, mm);
	change_pte_range(&tlb, vma, vma->vm_start, vma->vm_start + PMD_SIZE, MM_CP_PROT_NUMA);
	assert_int_equal(testsim_event(s, NR_TLB_REMOTE_FLUSH), 1);
	assert_int_equal(mm->tlb_flush_batched, 1u | (1u << TLB_FLUSH_BATCH_FLUSHED_SHIFT));
	change_pte_range(&tlb, vma, vma->vm_start + PMD_SIZE, vma->vm_start + 2 * PMD_SIZE,
			 MM_CP_PROT_NUMA);
	assert_int_equal(testsim_event(s, NR_TLB_REMOTE_FLUSH), 1);
	tlb_finish_mmu(&tlb);
}

static void test_change_prot_numa_two_tables_one_pending_flush(void **state)
{
	struct sim *s = mk(state);
	struct vm_area_struct *vma = testsim_vma(s);
	struct mm_struct *mm = &s->mms[0];
	uint64_t a = testsim_addr(s, 1500);

	testsim_enter(s, 1, NSEC_PER_SEC);
	set_tlb_ubc_flush_pending(mm, PTE_PRESENT, a, a + PAGE_SIZE);

	testsim_enter(s, 0, NSEC_PER_SEC);
	s->current->act = ACT_SCAN; /* so the scanner instrumentation counts */
	unsigned long n = change_prot_numa(vma, vma->vm_start, vma->vm_start + 2 * PMD_SIZE);
	s->current->act = ACT_USER;
	assert_int_equal(n, 2 * PTRS_PER_PTE);
	assert_int_equal(s->st.scanner_flushes_cpr, 1);
	/* one flush_tlb_batched_pending flush plus the gather's own flush */
	assert_int_equal(testsim_event(s, NR_TLB_REMOTE_FLUSH), 2);
}

static void test_change_pte_range_no_batch_no_pending_flush(void **state)
{
	struct sim *s = mk(state);
	struct vm_area_struct *vma = testsim_vma(s);
	struct mmu_gather tlb;

	testsim_enter(s, 0, NSEC_PER_SEC);
	tlb_gather_mmu(&tlb, &s->mms[0]);
	change_pte_range(&tlb, vma, vma->vm_start, vma->vm_start + PMD_SIZE, MM_CP_PROT_NUMA);
	assert_int_equal(testsim_event(s, NR_TLB_REMOTE_FLUSH), 0);
	tlb_finish_mmu(&tlb);
	assert_int_equal(testsim_event(s, NR_TLB_REMOTE_FLUSH), 1);
}

/* change_pte_range's test of an order-0 folio from its one page_state
 * (prot_numa_test_small) gives prot_numa_test_folio's verdict in every
 * case: COW or not, either shared-mapping test, a local node or none,
 * anon or file, any mapcount, pinned, dirty, either node. */
static void test_prot_numa_test_small_matches_folio_test(void **state)
{
	(void)state;
	struct page_state pg[1];
	struct folio_store fs = { .nr_pages = 1, .pg = pg };
	unsigned cases = 0, refused = 0;
	for (int cow = 0; cow < 2; cow++)
		for (int maybe = 0; maybe < 2; maybe++)
			for (int local = -1; local < 2; local++)
				for (int anon = 0; anon < 2; anon++)
					for (unsigned mapcount = 0; mapcount < 3; mapcount++)
						for (unsigned flags = 0; flags < 16; flags++)
							for (uint8_t nid = 0; nid < 2; nid++) {
								struct prot_numa_test pt = {
									.mthp_numa = true, .maybe_mapped_shared = maybe,
									.cow = cow, .local_nid = local,
								};
								pg[0] = (struct page_state){ .nid = nid,
											     .flags = (uint8_t)flags,
											     .mapcount = mapcount & 0x1fff };
								fs.anon = anon;
								struct folio f = { &fs, 0 };
								bool want = prot_numa_test_folio(&pt, f);
								assert_int_equal(prot_numa_test_small(&pt, pg[0], anon), want);
								cases++;
								refused += !want;
							}
	assert_int_equal(cases, 2 * 2 * 3 * 2 * 3 * 16 * 2);
	assert_true(refused > 0 && refused < cases); /* both verdicts were reached */
}

/* In the loop: a pinned page, a page mapped twice in a COW mapping and a
 * page already PROT_NONE are left alone; every other PTE changes. */
static void test_change_pte_range_small_folio_tests(void **state)
{
	struct sim *s = mk(state);
	struct vm_area_struct *vma = testsim_vma(s);

	testsim_enter(s, 0, NSEC_PER_SEC);
	change_prot_numa(vma, vma->vm_start, vma->vm_start + PMD_SIZE); /* materialize the table */
	for (uint64_t p = 0; p < PTRS_PER_PTE; p++) /* and put it back */
		set_pte_at(vma, testsim_addr(s, p), testsim_pte(s, p), PTE_PRESENT | PTE_YOUNG);
	struct page_state *pg = &vma->store->pg[vma->store_pgoff];
	pg[3].flags |= FOLIO_PINNED;
	pg[7].mapcount = 2;
	make_protnone(s, 9, 1);
	assert_true((vma->vm_flags & (VM_SHARED | VM_WRITE)) == VM_WRITE); /* a COW mapping */
	unsigned long before = testsim_event(s, NUMA_PTE_UPDATES);
	unsigned long n = change_prot_numa(vma, vma->vm_start, vma->vm_start + PMD_SIZE);
	assert_int_equal(n, PTRS_PER_PTE - 3);
	assert_int_equal(testsim_event(s, NUMA_PTE_UPDATES) - before, PTRS_PER_PTE - 3);
	assert_false(pte_protnone(*testsim_pte(s, 3)));
	assert_false(pte_protnone(*testsim_pte(s, 7)));
	assert_true(pte_protnone(*testsim_pte(s, 8)));
	assert_int_equal(count_protnone(s, 0, PTRS_PER_PTE), PTRS_PER_PTE - 2);
}

/* The loop takes eight PTEs at a time when all eight change and page by
 * page otherwise: over a table of mixed PTEs (none, PROT_NONE, present
 * with young, dirty and write bits) and pages (pinned, dirty, mapped twice in the
 * COW mapping), in anonymous memory and in file memory (where a dirty page is
 * refused), each in runs of every length so that eight-blocks are
 * whole, broken and mixed, every PTE ends as the test page by page says
 * and the count is theirs. */
static void by8_same_as_page_by_page(void **state, bool anon)
{
	struct sim *s = mk(state);
	struct vm_area_struct *vma = testsim_vma(s);

	testsim_enter(s, 0, NSEC_PER_SEC);
	change_prot_numa(vma, vma->vm_start, vma->vm_start + PMD_SIZE); /* materialize the table */
	vma->store->anon = anon; /* file memory: a dirty folio is left alone */
	struct page_state *pg = &vma->store->pg[vma->store_pgoff];
	struct prot_numa_test pt;
	prot_numa_test_init(&pt, vma, false);
	const pte_t kinds[] = { PTE_PRESENT | PTE_YOUNG, PTE_PRESENT | PTE_DIRTY | PTE_WRITE, 0,
				PTE_PROTNONE };
	uint64_t x = 88172645463325252ull; /* xorshift64: the pattern, not the run's streams */
	pte_t want[PTRS_PER_PTE];
	unsigned long changes = 0;
	for (uint64_t p = 0; p < PTRS_PER_PTE;) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		unsigned len = 1 + (unsigned)(x % 20), kind = (unsigned)(x >> 8) % 4;
		unsigned page = (unsigned)(x >> 16) % 8; /* mostly plain pages */
		for (unsigned k = 0; k < len && p < PTRS_PER_PTE; k++, p++) {
			/* the first two blocks all present, one with a dirty
			 * page, the other with a page mapped twice */
			unsigned kd = p < 16 ? 0 : kind, pgk = p < 16 ? (p == 3 ? 2 : p == 12 ? 3 : 0) : page;
			/* a page's hot bit is the workload's: it stays */
			pte_t hot = *testsim_pte(s, p) & PTE_SIM_HOT;
			set_pte_at(vma, testsim_addr(s, p), testsim_pte(s, p),
				   kinds[kd] | (kinds[kd] ? hot : 0));
			pg[p].flags &= (uint8_t) ~(FOLIO_PINNED | FOLIO_DIRTY);
			pg[p].flags |= pgk == 1 ? FOLIO_PINNED : pgk == 2 ? FOLIO_DIRTY : 0;
			pg[p].mapcount = pgk == 3 ? 2 : 1;
			pte_t old = *testsim_pte(s, p);
			bool change = (old & PTE_PRESENT) && prot_numa_test_small(&pt, pg[p], vma->store->anon);
			want[p] = change ? pte_mkprotnone(old) : old;
			changes += change;
		}
	}
	assert_true(changes > 64 && changes < PTRS_PER_PTE - 64); /* both kinds of block */
	unsigned long before = testsim_event(s, NUMA_PTE_UPDATES);
	unsigned long n = change_prot_numa(vma, vma->vm_start, vma->vm_start + PMD_SIZE);
	assert_int_equal(n, changes);
	assert_int_equal(testsim_event(s, NUMA_PTE_UPDATES) - before, changes);
	for (uint64_t p = 0; p < PTRS_PER_PTE; p++)
		assert_int_equal(*testsim_pte(s, p), want[p]);
	struct pte_table *t = &vma->tables[0];
	assert_int_equal(t->nr_protnone_hot + t->nr_protnone_cold, count_protnone(s, 0, PTRS_PER_PTE));
}

static void test_change_pte_range_by8_same_as_page_by_page(void **state)
{
	by8_same_as_page_by_page(state, true);
}

static void test_change_pte_range_by8_same_as_page_by_page_file(void **state)
{
	by8_same_as_page_by_page(state, false);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_change_prot_numa_skips_protnone_and_counts_updates, testsim_teardown),
		cmocka_unit_test(test_prot_numa_test_small_matches_folio_test),
		cmocka_unit_test_teardown(test_change_pte_range_small_folio_tests, testsim_teardown),
		cmocka_unit_test_teardown(test_change_pte_range_by8_same_as_page_by_page, testsim_teardown),
		cmocka_unit_test_teardown(test_change_pte_range_by8_same_as_page_by_page_file, testsim_teardown),
		cmocka_unit_test_teardown(test_change_pte_range_gathers_only_changed_ptes, testsim_teardown),
		cmocka_unit_test_teardown(test_change_pte_range_gathers_first_to_last_changed, testsim_teardown),
		cmocka_unit_test_teardown(test_change_pte_range_all_protnone_changes_nothing, testsim_teardown),
		cmocka_unit_test_teardown(test_change_pte_range_scan_cost_small_run, testsim_teardown),
		cmocka_unit_test_teardown(test_change_pte_range_scan_cost_folio_test, testsim_teardown),
		cmocka_unit_test_teardown(test_change_pte_range_flushes_batched_pending_once_per_table, testsim_teardown),
		cmocka_unit_test_teardown(test_change_prot_numa_two_tables_one_pending_flush, testsim_teardown),
		cmocka_unit_test_teardown(test_change_pte_range_no_batch_no_pending_flush, testsim_teardown),
	};
	return cmocka_run_group_tests_name("mprotect", tests, NULL, NULL);
}
