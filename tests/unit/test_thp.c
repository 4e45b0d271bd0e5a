/* Large folios, one rule per test: the order chosen at first touch for each
 * knob and alignment; change_huge_pmd; do_huge_pmd_numa_page; a PTE-mapped
 * large folio's fault; the split of a partially mapped folio in migration
 * and the flushes of its pieces' batch under each variant. */
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
#include "linux/sched/numa_balancing.h"
#include "unit/helpers/testsim.h"

#define TABLE 512ul

static void cfg_thp_always(struct sim *s) { s->t.thp.enabled = THP_ENABLED_ALWAYS; }
static void cfg_mthp_64k(struct sim *s) { s->t.thp.size[4] = THP_SIZE_ALWAYS; }
static void cfg_partial(struct sim *s)
{
	s->t.thp.enabled = THP_ENABLED_ALWAYS;
	s->w.p.thp_partial = 0.25; /* the last 128 pages of each THP */
}

static struct sim *mkc(void **state, const char *kernel, void (*cfg)(struct sim *))
{
	struct sim *s = testsim_new_cfg(kernel, FLUSH_X86_IPI, cfg);
	*state = s;
	return s;
}

/* A task whose CPU is on @node. */
static int task_on_node(const struct sim *s, int node)
{
	for (int i = 0; i < s->nr_tasks; i++)
		if (s->cpus[s->tasks[i].cpu].node == node)
			return i;
	fail();
	return -1;
}

/* The pages task_numa_fault was told about (its locality counts). */
static unsigned long fault_pages(const struct task_struct *p)
{
	return p->numa_faults_locality[0] + p->numa_faults_locality[1];
}

static struct folio folio_at(struct sim *s, uint64_t page)
{
	struct vm_area_struct *vma = testsim_vma(s);
	return page_folio(vma->store, vma_store_idx(vma, testsim_addr(s, page)));
}

/* ---- which order at first touch ------------------------------------------- */

static void test_allowable_orders_by_knob(void **state)
{
	struct sim *s = mkc(state, "v7.3", NULL);
	struct thp_tunables *t = &s->t.thp;
	const unsigned long pmd = 1ul << HPAGE_PMD_ORDER, o64k = 1ul << 4;

	/* defaults: nothing */
	assert_int_equal(thp_vma_allowable_orders(s, 0), 0);
	assert_int_equal(thp_vma_allowable_orders(s, VM_HUGEPAGE), 0);
	/* enabled=always: the PMD size inherits it */
	t->enabled = THP_ENABLED_ALWAYS;
	assert_int_equal(thp_vma_allowable_orders(s, 0), pmd);
	assert_int_equal(thp_vma_allowable_orders(s, VM_NOHUGEPAGE), 0);
	/* enabled=madvise: only a VM_HUGEPAGE VMA */
	t->enabled = THP_ENABLED_MADVISE;
	assert_int_equal(thp_vma_allowable_orders(s, 0), 0);
	assert_int_equal(thp_vma_allowable_orders(s, VM_HUGEPAGE), pmd);
	/* per size: always ignores the global knob; madvise needs the flag */
	t->enabled = THP_ENABLED_NEVER;
	t->size[4] = THP_SIZE_ALWAYS;
	assert_int_equal(thp_vma_allowable_orders(s, 0), o64k);
	t->size[4] = THP_SIZE_MADVISE;
	assert_int_equal(thp_vma_allowable_orders(s, 0), 0);
	assert_int_equal(thp_vma_allowable_orders(s, VM_HUGEPAGE), o64k);
	t->size[4] = THP_SIZE_INHERIT;
	t->enabled = THP_ENABLED_ALWAYS;
	assert_int_equal(thp_vma_allowable_orders(s, 0), o64k | pmd);
	t->size[HPAGE_PMD_ORDER] = THP_SIZE_NEVER;
	assert_int_equal(thp_vma_allowable_orders(s, 0), o64k);
	testsim_teardown(state);

	/* before v6.8 there are no per-size files: only the PMD size */
	s = mkc(state, "v6.4", NULL);
	s->t.thp.size[4] = THP_SIZE_ALWAYS;
	assert_int_equal(thp_vma_allowable_orders(s, 0), 0);
	s->t.thp.enabled = THP_ENABLED_ALWAYS;
	assert_int_equal(thp_vma_allowable_orders(s, 0), pmd);
}

static void test_suitable_order_alignment(void **state)
{
	(void)state;
	struct vm_area_struct vma = { .vm_start = (1ul << 30) + 64 * 1024, .vm_end = (1ul << 30) + (6ul << 20) };
	/* the 2 MiB block of the first address starts below the VMA */
	assert_false(thp_vma_suitable_order(&vma, vma.vm_start, HPAGE_PMD_ORDER));
	assert_true(thp_vma_suitable_order(&vma, (1ul << 30) + (2ul << 20), HPAGE_PMD_ORDER));
	assert_true(thp_vma_suitable_order(&vma, (1ul << 30) + (4ul << 20) + 4096, HPAGE_PMD_ORDER));
	/* ... and the last block would end past it */
	vma.vm_end = (1ul << 30) + (6ul << 20) - 4096;
	assert_false(thp_vma_suitable_order(&vma, (1ul << 30) + (4ul << 20), HPAGE_PMD_ORDER));
	/* 64 kB blocks fit from the start */
	assert_true(thp_vma_suitable_order(&vma, vma.vm_start, 4));
	assert_false(thp_vma_suitable_order(&vma, vma.vm_start, 5));
}

static void take_all_blocks(struct sim *s, int nid, unsigned from_order)
{
	for (unsigned o = from_order; o < NR_PAGE_ORDERS; o++) {
		s->node_free_pages[nid] -= s->pgdat[nid].nr_free[o] << o;
		s->pgdat[nid].nr_free[o] = 0;
	}
}

static void test_first_touch_order_and_fallback(void **state)
{
	struct sim *s = mkc(state, "v7.3", cfg_thp_always);
	struct vm_area_struct vma = *testsim_vma(s);
	int nid;

	/* the whole world was built of PMD THPs, counted at the fault */
	assert_int_equal(testsim_event(s, THP_FAULT_ALLOC), 4);
	assert_int_equal(s->mthp_stats[HPAGE_PMD_ORDER][MTHP_STAT_ANON_FAULT_ALLOC], 4);
	assert_true(testsim_vma(s)->tables[0].pmd_huge);

	/* aligned, PMD empty, a free pageblock: order 9 on the faulting node */
	uint64_t a = vma.vm_start;
	assert_int_equal(thp_first_touch(s, &vma, vma.vm_flags, a, true, 1, ~0ull, 0, &nid), HPAGE_PMD_ORDER);
	assert_int_equal(nid, 1);
	/* a PTE table already there: no PMD THP, and without mTHP a small page */
	assert_int_equal(thp_first_touch(s, &vma, vma.vm_flags, a, false, 1, ~0ull, 0, &nid), 0);
	/* no pageblock on node 1 (defrag=madvise, no VM_HUGEPAGE): fallback,
	 * counted, and then the enabled mTHP size */
	take_all_blocks(s, 1, HPAGE_PMD_ORDER);
	s->t.thp.size[4] = THP_SIZE_ALWAYS;
	s->pgdat[1].nr_free[4] = 2;
	s->node_free_pages[1] += 32;
	unsigned long long fb = testsim_event(s, THP_FAULT_FALLBACK);
	assert_int_equal(thp_first_touch(s, &vma, vma.vm_flags, a, true, 1, ~0ull, 0, &nid), 4);
	assert_int_equal(nid, 1);
	assert_int_equal(testsim_event(s, THP_FAULT_FALLBACK), fb + 1);
	assert_int_equal(s->mthp_stats[HPAGE_PMD_ORDER][MTHP_STAT_ANON_FAULT_FALLBACK], 1);
	assert_int_equal(s->mthp_stats[4][MTHP_STAT_ANON_FAULT_ALLOC], 1);
	/* an mTHP block must start at its own alignment (pte_none of the block) */
	assert_int_equal(thp_first_touch(s, &vma, vma.vm_flags, a + 4096, false, 1, ~0ull, 0, &nid), 0);
	/* mTHP takes another node when this one has no block (zonelist) */
	take_all_blocks(s, 1, 0);
	assert_int_equal(thp_first_touch(s, &vma, vma.vm_flags, a, false, 1, ~0ull, 0, &nid), 4);
	assert_int_equal(nid, 0);

	/* an unaligned VMA start: the PMD size does not fit, nothing counted */
	struct vm_area_struct odd = vma;
	odd.vm_start += 64 * 1024;
	fb = testsim_event(s, THP_FAULT_FALLBACK);
	assert_int_equal(thp_first_touch(s, &odd, odd.vm_flags, odd.vm_start, true, 0, ~0ull, 0, &nid), 4);
	assert_int_equal(testsim_event(s, THP_FAULT_FALLBACK), fb);
}

static void test_first_touch_defrag_modes(void **state)
{
	struct sim *s = mkc(state, "v7.3", cfg_thp_always);
	struct vm_area_struct vma = *testsim_vma(s);
	uint32_t kd1 = s->nr_timers - compaction_nr_timers(s) + 1;
	int nid;

	/* node 1: free memory only in scattered holes (fragmented) */
	take_all_blocks(s, 1, 0);
	s->pgdat[1].nr_free[0] = 4096;
	s->node_free_pages[1] = 4096;
	/* defrag=defer: fail now, wake kcompactd on the node */
	s->t.thp.defrag = THP_DEFRAG_DEFER;
	assert_int_equal(thp_first_touch(s, &vma, vma.vm_flags, vma.vm_start, true, 1, ~0ull, 0, &nid), 0);
	assert_true(timerq_armed(&s->e.q, kd1));
	assert_int_equal(testsim_event(s, COMPACTSTALL), 0);
	timerq_cancel(&s->e.q, kd1);
	/* defrag=madvise without MADV_HUGEPAGE: fail, wake nobody */
	s->t.thp.defrag = THP_DEFRAG_MADVISE;
	assert_int_equal(thp_first_touch(s, &vma, vma.vm_flags, vma.vm_start, true, 1, ~0ull, 0, &nid), 0);
	assert_false(timerq_armed(&s->e.q, kd1));
	/* ... with it: direct compaction gathers a pageblock, and the THP
	 * lands on the faulting node */
	assert_int_equal(thp_first_touch(s, &vma, vma.vm_flags | VM_HUGEPAGE, vma.vm_start, true, 1, ~0ull, 0,
					 &nid), HPAGE_PMD_ORDER);
	assert_int_equal(nid, 1);
	assert_int_equal(testsim_event(s, COMPACTSTALL), 1);
	assert_int_equal(testsim_event(s, COMPACTSUCCESS), 1);
	assert_int_equal(s->node_free_pages[1], 4096 - 512);
}

/* ---- change_huge_pmd -------------------------------------------------------- */

static void test_change_huge_pmd_counts_one_update(void **state)
{
	struct sim *s = mkc(state, "v7.3", cfg_thp_always);
	struct vm_area_struct *vma = testsim_vma(s);
	struct pte_table *t = &vma->tables[0];

	testsim_enter(s, 0, NSEC_PER_SEC);
	assert_int_equal(change_prot_numa(vma, vma->vm_start, vma->vm_start + PMD_SIZE), TABLE);
	assert_int_equal(testsim_event(s, NUMA_HUGE_PTE_UPDATES), 1);
	assert_int_equal(testsim_event(s, NUMA_PTE_UPDATES), TABLE);
	assert_true(t->pmd_huge);
	assert_true(t->pmd_protnone);
	for (uint64_t p = 0; p < TABLE; p++)
		assert_true(pte_protnone(*testsim_pte(s, p)));
	assert_int_equal(t->nr_protnone_hot + t->nr_protnone_cold, TABLE);
	/* already PROT_NONE: nothing more */
	assert_int_equal(change_prot_numa(vma, vma->vm_start, vma->vm_start + PMD_SIZE), 0);
	assert_int_equal(testsim_event(s, NUMA_HUGE_PTE_UPDATES), 1);
}

/* folio_can_map_prot_numa reached huge PMDs in v6.19: a DMA-pinned THP is
 * hinted by v6.8, not by v7.3. */
static void test_change_huge_pmd_checks_by_base(void **state)
{
	const char *kernels[] = { "v6.8", "v7.3" };
	for (int k = 0; k < 2; k++) {
		struct sim *s = mkc(state, kernels[k], cfg_thp_always);
		struct vm_area_struct *vma = testsim_vma(s);
		testsim_enter(s, 0, NSEC_PER_SEC);
		if (vma->tables[0].lazy)
			workload_materialize_table(vma, &vma->tables[0]);
		folio_at(s, 0).fs->pg[folio_at(s, 0).idx].flags |= FOLIO_PINNED;
		long n = change_prot_numa(vma, vma->vm_start, vma->vm_start + PMD_SIZE);
		assert_int_equal(n, k == 0 ? (long)TABLE : 0);
		testsim_teardown(state);
	}
}

/* Before v5.19 (4a18419f71cd) change_huge_pmd flushed each PMD at once:
 * two IPI rounds for one PMD (its own and the range's), one since. */
static void test_change_huge_pmd_flush_by_base(void **state)
{
	const char *kernels[] = { "v5.15", "v6.4" };
	for (int k = 0; k < 2; k++) {
		struct sim *s = mkc(state, kernels[k], cfg_thp_always);
		struct vm_area_struct *vma = testsim_vma(s);
		testsim_enter(s, 0, NSEC_PER_SEC);
		assert_int_equal(change_prot_numa(vma, vma->vm_start, vma->vm_start + PMD_SIZE), TABLE);
		assert_int_equal(s->st.flush_rounds, k == 0 ? 2 : 1);
		testsim_teardown(state);
	}
}

/* ---- do_huge_pmd_numa_page ---------------------------------------------------- */

/* The scanner made the first THP PROT_NONE; task @i faults on page @page. */
static bool huge_fault(struct sim *s, int i, uint64_t page)
{
	struct vm_area_struct *vma = testsim_vma(s);
	testsim_enter(s, 0, NSEC_PER_SEC);
	change_prot_numa(vma, vma->vm_start, vma->vm_start + PMD_SIZE);
	testsim_enter(s, i, 2 * NSEC_PER_SEC);
	struct vm_fault vmf = { .vma = vma, .address = testsim_addr(s, page),
				.pmd = pte_table_of(vma, testsim_addr(s, page)), .orig_pte = *testsim_pte(s, page) };
	return do_huge_pmd_numa_page(&vmf);
}

/* The rest of the fault: migrate_misplaced_folio and its end. */
static int finish_migration(struct sim *s, struct migrate_ctx *ctx)
{
	struct task_struct *p = s->current;
	migrate_misplaced_folio_begin(s, ctx, p->fault.folio, p->fault.target_nid);
	migrate_pages_flush(s, ctx);
	int rc = migrate_misplaced_folio_end(s, ctx);
	do_numa_page_migrated(s, rc == 0);
	return rc;
}

static void test_do_huge_pmd_numa_page_migrates_whole_folio(void **state)
{
	struct sim *s = mkc(state, "v7.3", cfg_thp_always);
	struct migrate_ctx *ctx = calloc(1, sizeof(*ctx));
	struct vm_area_struct *vma = testsim_vma(s);
	struct pte_table *t = &vma->tables[0];
	struct mm_struct *mm = &s->mms[0];

	assert_non_null(ctx);
	assert_true(huge_fault(s, task_on_node(s, 1), 300));
	assert_int_equal(testsim_event(s, NUMA_HINT_FAULTS), 1);
	assert_true(s->current->fault.pmd);
	assert_int_equal(s->current->fault.nr_pages, HPAGE_PMD_NR);
	uint32_t batched = mm->tlb_flush_batched;
	uint64_t rounds = s->st.flush_rounds;
	assert_int_equal(finish_migration(s, ctx), 0);
	/* every page moved, through one PMD migration entry and its flush */
	for (uint64_t p = 0; p < TABLE; p++)
		assert_int_equal(folio_nid(folio_at(s, p)), 1);
	assert_int_equal(folio_order(folio_at(s, 0)), HPAGE_PMD_ORDER);
	assert_int_equal(s->st.flush_rounds, rounds + 1);
	assert_int_equal(mm->tlb_flush_batched, batched);
	assert_int_equal(testsim_event(s, THP_MIGRATION_SUCCESS), 1);
	assert_int_equal(testsim_event(s, PGMIGRATE_SUCCESS), TABLE);
	assert_int_equal(testsim_event(s, NUMA_PAGE_MIGRATE), TABLE);
	/* remove_migration_pmd: still one PMD, not PROT_NONE, not writable */
	assert_true(t->pmd_huge);
	assert_false(t->pmd_protnone);
	for (uint64_t p = 0; p < TABLE; p++) {
		pte_t pte = *testsim_pte(s, p);
		assert_true(pte & PTE_PRESENT);
		assert_false(pte & PTE_WRITE);
	}
	assert_int_equal(t->nr_protnone_hot + t->nr_protnone_cold, 0);
	free(ctx);
}

static void test_do_huge_pmd_numa_page_local_restores_pmd(void **state)
{
	struct sim *s = mkc(state, "v7.3", cfg_thp_always);
	struct vm_area_struct *vma = testsim_vma(s);
	int i = task_on_node(s, 0);

	assert_false(huge_fault(s, i, 7));
	assert_int_equal(testsim_event(s, NUMA_HINT_FAULTS_LOCAL), 1);
	assert_false(vma->tables[0].pmd_protnone);
	for (uint64_t p = 0; p < TABLE; p++)
		assert_int_equal(*testsim_pte(s, p) & (PTE_PRESENT | PTE_WRITE), PTE_PRESENT | PTE_WRITE);
	/* task_numa_fault was told about all 512 pages */
	assert_int_equal(fault_pages(&s->tasks[i]), HPAGE_PMD_NR);
}

/* ---- a PTE-mapped large folio ---------------------------------------------------- */

static void test_large_pte_folio_rebuilt_whole_when_not_migrated(void **state)
{
	struct sim *s = mkc(state, "v7.3", cfg_mthp_64k);
	struct vm_area_struct *vma = testsim_vma(s);
	int i = task_on_node(s, 0);

	assert_int_equal(folio_order(folio_at(s, 16)), 4);
	testsim_enter(s, 0, NSEC_PER_SEC);
	assert_int_equal(change_prot_numa(vma, testsim_addr(s, 16), testsim_addr(s, 32)), 16);
	testsim_enter(s, i, 2 * NSEC_PER_SEC);
	struct vm_fault vmf = { .vma = vma, .address = testsim_addr(s, 21),
				.pmd = pte_table_of(vma, testsim_addr(s, 21)), .orig_pte = *testsim_pte(s, 21) };
	assert_false(do_numa_page(&vmf));
	for (uint64_t p = 16; p < 32; p++)
		assert_false(pte_protnone(*testsim_pte(s, p)));
	assert_int_equal(testsim_event(s, NUMA_HINT_FAULTS), 1);
	assert_int_equal(fault_pages(&s->tasks[i]), 16);
	testsim_teardown(state);

	/* v6.8 has mTHP but not its NUMA balancing: the scanner skips it
	 * (page_count), and a fault restores only its PTE, uncounted */
	s = mkc(state, "v6.8", cfg_mthp_64k);
	vma = testsim_vma(s);
	testsim_enter(s, 0, NSEC_PER_SEC);
	assert_int_equal(change_prot_numa(vma, testsim_addr(s, 16), testsim_addr(s, 32)), 0);
	for (uint64_t p = 16; p < 32; p++)
		set_pte_at(vma, testsim_addr(s, p), testsim_pte(s, p),
			   PTE_PROTNONE | (*testsim_pte(s, p) & (PTE_YOUNG | PTE_DIRTY | PTE_SIM_HOT)));
	testsim_enter(s, i, 2 * NSEC_PER_SEC);
	vmf = (struct vm_fault){ .vma = vma, .address = testsim_addr(s, 21),
				.pmd = pte_table_of(vma, testsim_addr(s, 21)), .orig_pte = *testsim_pte(s, 21) };
	assert_false(do_numa_page(&vmf));
	assert_false(pte_protnone(*testsim_pte(s, 21)));
	assert_true(pte_protnone(*testsim_pte(s, 20)));
	assert_int_equal(testsim_event(s, NUMA_HINT_FAULTS), 0);
	assert_int_equal(fault_pages(&s->tasks[i]), 0);
}

/* change_pte_range over a table of 64 KiB folios with order-0 pages among
 * them (runs of them taken by change_small_ptes, each large folio by the
 * loop's folio test): every present PTE not yet PROT_NONE is changed, the
 * one already PROT_NONE is looked at and skipped, and the bitmaps count
 * them all. */
static void test_change_pte_range_mixed_orders(void **state)
{
	struct sim *s = mkc(state, "v7.3", cfg_mthp_64k);
	struct vm_area_struct *vma = testsim_vma(s);
	const struct cost_model *cm = &s->m.cost;
	struct page_state *pg = &vma->store->pg[vma->store_pgoff];
	struct mmu_gather tlb;

	assert_int_equal(folio_order(folio_at(s, 16)), 4);
	for (uint64_t p = 32; p < 48; p++) /* one 64 KiB folio as 16 order-0 ones */
		pg[p].flags &= (uint8_t)~(0xffu << FOLIO_ORDER_SHIFT);
	for (uint64_t p = 496; p < 512; p++) /* and the table's last */
		pg[p].flags &= (uint8_t)~(0xffu << FOLIO_ORDER_SHIFT);
	assert_int_equal(folio_order(folio_at(s, 40)), 0);
	testsim_enter(s, 0, NSEC_PER_SEC);
	set_pte_at(vma, testsim_addr(s, 40), testsim_pte(s, 40),
		   PTE_PROTNONE | (*testsim_pte(s, 40) & (PTE_YOUNG | PTE_DIRTY | PTE_SIM_HOT)));
	double before = engine_cost(&s->e.acct[s->e.cpu], COST_SCAN);
	tlb_gather_mmu(&tlb, &s->mms[0]);
	long n = change_pte_range(&tlb, vma, vma->vm_start, vma->vm_start + PMD_SIZE, MM_CP_PROT_NUMA);
	tlb_finish_mmu(&tlb);
	assert_int_equal(n, PTRS_PER_PTE - 1);
	for (uint64_t p = 0; p < PTRS_PER_PTE; p++)
		assert_true(pte_protnone(*testsim_pte(s, p)));
	struct pte_table *t = &vma->tables[0];
	assert_int_equal(t->nr_protnone_hot + t->nr_protnone_cold, PTRS_PER_PTE);
	double want = cm->pte_table_ns + (double)n * cm->pte_update_ns + cm->pte_skip_ns;
	double got = engine_cost(&s->e.acct[s->e.cpu], COST_SCAN) - before;
	assert_true(got > want - 1e-6 && got < want + 1e-6);
}

/* A large folio's verdict is its head's: with its head pinned, none of its
 * PTEs in the range changes, even when the range starts at its tails
 * (eight of them, whose own words carry only the order: the scanner's
 * eight-PTE step leaves a block with an order bit to the folio test);
 * every other PTE in the range does. */
static void test_change_pte_range_pinned_large_folio_in_blocks(void **state)
{
	struct sim *s = mkc(state, "v7.3", cfg_mthp_64k);
	struct vm_area_struct *vma = testsim_vma(s);
	struct folio f = folio_at(s, 64);
	assert_int_equal(folio_order(f), 4);
	f.fs->pg[f.idx].flags |= FOLIO_PINNED;
	testsim_enter(s, 0, NSEC_PER_SEC);
	unsigned long n = change_prot_numa(vma, testsim_addr(s, 72), vma->vm_start + PMD_SIZE);
	assert_int_equal(n, PTRS_PER_PTE - 80);
	for (uint64_t p = 0; p < PTRS_PER_PTE; p++)
		assert_int_equal(pte_protnone(*testsim_pte(s, p)), p >= 80);
}

static void test_large_pte_folio_migrates_whole(void **state)
{
	struct sim *s = mkc(state, "v7.3", cfg_mthp_64k);
	struct migrate_ctx *ctx = calloc(1, sizeof(*ctx));
	struct vm_area_struct *vma = testsim_vma(s);

	assert_non_null(ctx);
	testsim_enter(s, 0, NSEC_PER_SEC);
	change_prot_numa(vma, testsim_addr(s, 16), testsim_addr(s, 32));
	testsim_enter(s, task_on_node(s, 1), 2 * NSEC_PER_SEC);
	struct vm_fault vmf = { .vma = vma, .address = testsim_addr(s, 21),
				.pmd = pte_table_of(vma, testsim_addr(s, 21)), .orig_pte = *testsim_pte(s, 21) };
	assert_true(do_numa_page(&vmf));
	assert_int_equal(finish_migration(s, ctx), 0);
	for (uint64_t p = 16; p < 32; p++)
		assert_int_equal(folio_nid(folio_at(s, p)), 1);
	assert_int_equal(testsim_event(s, PGMIGRATE_SUCCESS), 16);
	assert_int_equal(testsim_event(s, THP_MIGRATION_SUCCESS), 0); /* not PMD-sized */
	free(ctx);
}

/* ---- a partially mapped THP split in migration ----------------------------------- */

struct split_result {
	int rc, nr_ctx;
	uint64_t batch_flushes, flush_rounds;
};

/* The scanner protects the mapped pages of the first (partially unmapped)
 * THP; a task on node 1 faults on one of them and migrates it. */
static struct split_result migrate_partial(void **state, const char *kernel)
{
	struct sim *s = mkc(state, kernel, cfg_partial);
	struct migrate_ctx *ctx = calloc(1, sizeof(*ctx));
	struct vm_area_struct *vma = testsim_vma(s);
	struct split_result r;

	assert_non_null(ctx);
	assert_false(vma->tables[0].pmd_huge);                  /* the PMD was split */
	assert_true(folio_test_partially_mapped(folio_at(s, 0)));
	assert_int_equal(testsim_event(s, THP_DEFERRED_SPLIT_PAGE), 4);
	assert_int_equal(s->pgdat[0].split_queue_len, 4);
	testsim_enter(s, 0, NSEC_PER_SEC);
	assert_int_equal(change_prot_numa(vma, vma->vm_start, vma->vm_start + PMD_SIZE), 384);
	testsim_enter(s, task_on_node(s, 1), 2 * NSEC_PER_SEC);
	struct vm_fault vmf = { .vma = vma, .address = testsim_addr(s, 3),
				.pmd = pte_table_of(vma, testsim_addr(s, 3)), .orig_pte = *testsim_pte(s, 3) };
	assert_true(do_numa_page(&vmf));
	uint64_t bf = s->st.batch_flushes, fr = s->st.flush_rounds;
	r.rc = finish_migration(s, ctx);
	r.nr_ctx = ctx->nr;
	r.batch_flushes = s->st.batch_flushes - bf;
	r.flush_rounds = s->st.flush_rounds - fr;
	/* split before migrating: the folio is gone, its pieces moved */
	assert_int_equal(testsim_event(s, THP_SPLIT_PAGE), 1);
	assert_int_equal(testsim_event(s, THP_MIGRATION_SPLIT), 1);
	assert_int_equal(testsim_event(s, THP_MIGRATION_FAIL), 1);
	assert_int_equal(s->pgdat[0].split_queue_len, 3);
	for (uint64_t p = 0; p < TABLE; p++) {
		struct folio f = folio_at(s, p);
		assert_int_equal(folio_order(f), 0);
		if (p < 384)
			assert_int_equal(folio_nid(f), 1);
		else /* the unmapped pieces were freed */
			assert_true(f.fs->pg[f.idx].flags2 & FOLIO2_FREED);
	}
	assert_int_equal(testsim_event(s, PGMIGRATE_SUCCESS), TABLE);
	char err[256];
	assert_true(mm_check_invariants(s, err, sizeof(err)));
	free(ctx);
	testsim_teardown(state);
	return r;
}

static void test_partial_folio_split_pieces_one_batch(void **state)
{
	struct split_result r = migrate_partial(state, "v7.3");
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.nr_ctx, 1 + 512); /* the folio, then its pieces' batch */
	/* the split's own unmap found only PROT_NONE PTEs (nothing to flush);
	 * the pieces, remapped present by the split, batch into one flush */
	assert_int_equal(r.batch_flushes, 1);
	assert_int_equal(r.flush_rounds, 1);
}

static void test_partial_folio_pieces_v1_flush_each(void **state)
{
	struct split_result r = migrate_partial(state, "v7.3+single-folio-v1");
	assert_int_equal(r.rc, 0);
	/* reason == MR_NUMA_MISPLACED: no batching, one flush per mapped piece */
	assert_int_equal(r.batch_flushes, 0);
	assert_int_equal(r.flush_rounds, 384);
}

static void test_partial_folio_pieces_v2_batch(void **state)
{
	struct split_result r = migrate_partial(state, "v7.3+single-folio-v2");
	assert_int_equal(r.rc, 0);
	/* the pieces' batch is not singular: batched as on the base */
	assert_int_equal(r.batch_flushes, 1);
	assert_int_equal(r.flush_rounds, 1);
}

/* Before 7262f208ca68 (v6.10) nothing split a partially mapped folio: with
 * the mTHP NUMA patch, v6.8 migrates it whole. */
static void test_partial_folio_migrates_whole_before_v6_10(void **state)
{
	struct sim *s = mkc(state, "v6.8+mthp-numa", cfg_partial);
	struct migrate_ctx *ctx = calloc(1, sizeof(*ctx));
	struct vm_area_struct *vma = testsim_vma(s);

	assert_non_null(ctx);
	testsim_enter(s, 0, NSEC_PER_SEC);
	change_prot_numa(vma, vma->vm_start, vma->vm_start + PMD_SIZE);
	testsim_enter(s, task_on_node(s, 1), 2 * NSEC_PER_SEC);
	struct vm_fault vmf = { .vma = vma, .address = testsim_addr(s, 3),
				.pmd = pte_table_of(vma, testsim_addr(s, 3)), .orig_pte = *testsim_pte(s, 3) };
	assert_true(do_numa_page(&vmf));
	assert_int_equal(finish_migration(s, ctx), 0);
	assert_int_equal(testsim_event(s, THP_SPLIT_PAGE), 0);
	assert_int_equal(testsim_event(s, THP_MIGRATION_SUCCESS), 1);
	assert_int_equal(folio_order(folio_at(s, 0)), HPAGE_PMD_ORDER);
	assert_int_equal(folio_nid(folio_at(s, 500)), 1);
	free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_allowable_orders_by_knob, testsim_teardown),
		cmocka_unit_test(test_suitable_order_alignment),
		cmocka_unit_test_teardown(test_change_pte_range_mixed_orders, testsim_teardown),
		cmocka_unit_test_teardown(test_change_pte_range_pinned_large_folio_in_blocks, testsim_teardown),
		cmocka_unit_test_teardown(test_first_touch_order_and_fallback, testsim_teardown),
		cmocka_unit_test_teardown(test_first_touch_defrag_modes, testsim_teardown),
		cmocka_unit_test_teardown(test_change_huge_pmd_counts_one_update, testsim_teardown),
		cmocka_unit_test_teardown(test_change_huge_pmd_checks_by_base, testsim_teardown),
		cmocka_unit_test_teardown(test_change_huge_pmd_flush_by_base, testsim_teardown),
		cmocka_unit_test_teardown(test_do_huge_pmd_numa_page_migrates_whole_folio, testsim_teardown),
		cmocka_unit_test_teardown(test_do_huge_pmd_numa_page_local_restores_pmd, testsim_teardown),
		cmocka_unit_test_teardown(test_large_pte_folio_rebuilt_whole_when_not_migrated, testsim_teardown),
		cmocka_unit_test_teardown(test_large_pte_folio_migrates_whole, testsim_teardown),
		cmocka_unit_test_teardown(test_partial_folio_split_pieces_one_batch, testsim_teardown),
		cmocka_unit_test_teardown(test_partial_folio_pieces_v1_flush_each, testsim_teardown),
		cmocka_unit_test_teardown(test_partial_folio_pieces_v2_batch, testsim_teardown),
		cmocka_unit_test_teardown(test_partial_folio_migrates_whole_before_v6_10, testsim_teardown),
	};
	return cmocka_run_group_tests_name("thp", tests, NULL, NULL);
}
