/* Memory policies at first touch (mm/mempolicy.c): the node each policy
 * asks for, and the page allocator's fallback when that node is full.  The
 * migration system calls: queue_pages_range isolates the whole range before
 * migrate_pages takes its first batch, what that does to a hint fault on a
 * folio still waiting, MPOL_MF_MOVE against MPOL_MF_MOVE_ALL, and that
 * nothing stays isolated. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "linux/migrate.h"
#include "linux/mm.h"
#include "linux/mmdebug.h"
#include "linux/sched/numa_balancing.h"
#include "unit/helpers/testsim.h"

#define mk testsim_mk

static struct first_touch_policy pol(enum first_touch mode, uint64_t nodes)
{
	struct first_touch_policy p = { .mode = mode, .nodes = nodes };
	return p;
}

static void test_each_policy_first_touch_node(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_X86_IPI);
	struct first_touch_policy local = pol(FT_LOCAL, 0), remote = pol(FT_REMOTE, 0);
	struct first_touch_policy il = pol(FT_INTERLEAVE, 0), bind1 = pol(FT_BIND, 2);
	struct first_touch_policy bind01 = pol(FT_BIND, 3), pref0 = pol(FT_PREFERRED, 1);
	struct first_touch_policy w = pol(FT_WEIGHTED, 3);
	w.weight[0] = 3;
	w.weight[1] = 1;
	assert_int_equal(mpol_first_touch_node(&s->m, &local, 1, 7), 1);
	assert_int_equal(mpol_first_touch_node(&s->m, &remote, 1, 7), 0);
	assert_int_equal(mpol_first_touch_node(&s->m, &il, 1, 6), 0);
	assert_int_equal(mpol_first_touch_node(&s->m, &il, 1, 7), 1);
	assert_int_equal(mpol_first_touch_node(&s->m, &bind1, 0, 7), 1);
	/* bind to both: the local node first */
	assert_int_equal(mpol_first_touch_node(&s->m, &bind01, 0, 7), 0);
	assert_int_equal(mpol_first_touch_node(&s->m, &bind01, 1, 7), 1);
	assert_int_equal(mpol_first_touch_node(&s->m, &pref0, 1, 7), 0);
	/* weighted 3:1: chunks 0-2 on node 0, chunk 3 on node 1, then again */
	int got[8];
	for (int c = 0; c < 8; c++)
		got[c] = mpol_first_touch_node(&s->m, &w, 0, (uint64_t)c);
	int want[8] = { 0, 0, 0, 1, 0, 0, 0, 1 };
	assert_memory_equal(got, want, sizeof(got));
}

/* __alloc_pages: the fast path takes a node only while it stays at or
 * above its low watermark, else the next of the zonelist; with every node
 * there, the slow path takes one above its min watermark. */
static void test_default_policy_falls_back_to_next_node(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_X86_IPI);
	struct first_touch_policy local = pol(FT_LOCAL, 0);
	uint64_t low0 = low_wmark_pages(&s->pgdat[0]), low1 = low_wmark_pages(&s->pgdat[1]);
	assert_true(min_wmark_pages(&s->pgdat[0]) < low0);
	s->node_free_pages[0] = low0 + 2;
	assert_int_equal(alloc_pages_policy(s, &local, 0, 2), 0);
	assert_int_equal(s->node_free_pages[0], low0);
	uint64_t free1 = s->node_free_pages[1];
	assert_int_equal(alloc_pages_policy(s, &local, 0, 1), 1); /* node 0 at its low mark: node 1 */
	assert_int_equal(s->node_free_pages[1], free1 - 1);
	s->node_free_pages[1] = low1;
	assert_int_equal(alloc_pages_policy(s, &local, 0, 1), 0); /* both at low: the min pass */
	assert_int_equal(s->node_free_pages[0], low0 - 1);
}

static void test_bind_does_not_fall_back(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_X86_IPI);
	struct first_touch_policy bind0 = pol(FT_BIND, 1);
	s->node_free_pages[0] = 0;
	uint64_t free1 = s->node_free_pages[1];
	assert_int_equal(alloc_pages_policy(s, &bind0, 0, 1), -1);
	assert_int_equal(s->node_free_pages[1], free1);
}

/* zone_statistics: hit where the allocation preferred, else a miss there
 * and a foreign on the preferred node; local or other by the allocating
 * CPU's node; in pages.  The interleave hit counts allocations. */
static void test_zone_statistics(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_X86_IPI);
	uint64_t before[2][NR_NUMA_STAT_ITEMS];
	for (int n = 0; n < 2; n++)
		for (int i = 0; i < NR_NUMA_STAT_ITEMS; i++)
			before[n][i] = s->node_numa[n * NR_NUMA_STAT_ITEMS + i];
#define D(n, i) (s->node_numa[(n) * NR_NUMA_STAT_ITEMS + (i)] - before[n][i])
	zone_statistics(s, 0, 0, 0, 4);    /* preferred 0, on 0, from node 0 */
	zone_statistics(s, 0, 1, 0, 512);  /* spilled to 1, from node 0 */
	zone_statistics(s, 1, 1, 0, 1);    /* asked for 1, got 1, from node 0 */
	count_numa_interleave_hit(s, 1);
	assert_int_equal(D(0, NUMA_HIT), 4);
	assert_int_equal(D(0, NUMA_LOCAL), 4);
	assert_int_equal(D(0, NUMA_MISS), 0);
	assert_int_equal(D(0, NUMA_FOREIGN), 512);
	assert_int_equal(D(1, NUMA_MISS), 512);
	assert_int_equal(D(1, NUMA_HIT), 1);
	assert_int_equal(D(1, NUMA_OTHER), 513);
	assert_int_equal(D(1, NUMA_LOCAL), 0);
	assert_int_equal(D(1, NUMA_FOREIGN), 0);
	assert_int_equal(D(1, NUMA_INTERLEAVE_HIT), 1);
	assert_int_equal(D(0, NUMA_INTERLEAVE_HIT), 0);
#undef D
	/* the names are the kernel's vmstat_text */
	assert_string_equal(numa_stat_names[NUMA_INTERLEAVE_HIT], "numa_interleave");
	assert_string_equal(numa_stat_names[NUMA_OTHER], "numa_other");
}

/* ---- the migration system calls ------------------------------------------- */

/* The world with a migrate_pages(2) caller (the last task), its 2048
 * pages all on node 0; @shared: two processes map them all. */
static void cfg_caller(struct sim *s)
{
	s->w.p.migrate_call = MCALL_MIGRATE_PAGES;
	s->w.p.migrate_from = 0;
	s->w.p.migrate_to = 1;
	s->w.p.migrate_at_s = 5;
}

static void cfg_caller_shared(struct sim *s)
{
	cfg_caller(s);
	s->w.p.processes = 2;
	s->w.p.map_shared = true;
}

#define NR_PAGES 2048

/* A call of process 0's pages from node 0 to node 1, in flight on the
 * caller task (which frees it with the world), run from its context. */
static struct migrate_call *start_call(struct sim *s, bool move_all, bool flush_at_busy)
{
	struct task_struct *caller = &s->tasks[s->nr_tasks - 1];
	assert_true(caller->syscall_caller);
	caller->call = calloc(1, sizeof(*caller->call));
	task_mctx(s, caller);
	assert_non_null(caller->call);
	assert_non_null(caller->mctx);
	*caller->call = (struct migrate_call){ .mm_id = 0, .from = 0, .to = 1, .reason = MR_SYSCALL,
					       .move_all = move_all, .flush_at_busy = flush_at_busy };
	testsim_enter(s, s->nr_tasks - 1, NSEC_PER_SEC);
	return caller->call;
}

static struct migrate_ctx *ctx_of(struct sim *s)
{
	return s->tasks[s->nr_tasks - 1].mctx;
}

static struct folio page_at(struct sim *s, uint64_t page)
{
	struct vm_area_struct *vma = testsim_vma(s);
	return page_folio(vma->store, vma_store_idx(vma, testsim_addr(s, page)));
}

static bool isolated(struct sim *s, uint64_t page)
{
	struct folio f = page_at(s, page);
	return f.fs->pg[f.idx].flags & FOLIO_ISOLATED;
}

static unsigned nr_isolated(struct sim *s)
{
	unsigned n = 0;
	for (uint64_t p = 0; p < NR_PAGES; p++)
		n += isolated(s, p);
	return n;
}

/* The flush and move steps of the batch just unmapped. */
static void finish_batch(struct sim *s, struct migrate_call *call)
{
	migrate_pages_flush(s, ctx_of(s));
	migrate_call_batch_finish(s, call, ctx_of(s));
}

static void assert_state_ok(struct sim *s)
{
	char msg[512] = "";
	if (mm_check_state(s, msg, sizeof(msg)))
		fail_msg("%s", msg);
}

static int task_on_node(const struct sim *s, int node)
{
	for (int i = 0; i < s->nr_tasks; i++)
		if (!s->tasks[i].syscall_caller && s->cpus[s->tasks[i].cpu].node == node)
			return i;
	fail();
	return -1;
}

/* migrate_to_node: queue_pages_range isolates all 2048 pages in the first
 * step, before anything migrates; migrate_pages then takes 512 a batch,
 * and the pages of later batches wait isolated on node 0. */
static void test_call_isolates_whole_range_before_first_batch(void **state)
{
	struct sim *s = testsim_new_cfg("v6.12", FLUSH_X86_IPI, cfg_caller);
	*state = s;
	struct migrate_call *call = start_call(s, true, false);

	assert_int_equal(migrate_call_step(s, call, ctx_of(s)), CALL_QUEUED);
	assert_int_equal(call->nr_listed, NR_PAGES);
	assert_int_equal(nr_isolated(s), NR_PAGES);
	assert_int_equal(testsim_event(s, PGMIGRATE_SUCCESS), 0);
	assert_state_ok(s);

	assert_int_equal(migrate_call_step(s, call, ctx_of(s)), CALL_BATCH);
	assert_int_equal(ctx_of(s)->nr, NR_MAX_BATCHED_MIGRATION);
	assert_int_equal(call->nr_listed, NR_PAGES - NR_MAX_BATCHED_MIGRATION);
	finish_batch(s, call);
	for (uint64_t p = 0; p < NR_PAGES; p++) {
		bool first = p < NR_MAX_BATCHED_MIGRATION;
		assert_int_equal(folio_nid(page_at(s, p)), first ? 1 : 0);
		assert_int_equal(isolated(s, p), !first);
	}
	assert_state_ok(s);

	int batches = 1;
	enum migrate_call_step st;
	while ((st = migrate_call_step(s, call, ctx_of(s))) == CALL_BATCH) {
		finish_batch(s, call);
		batches++;
		assert_state_ok(s);
	}
	assert_int_equal(st, CALL_DONE);
	assert_int_equal(batches, NR_PAGES / NR_MAX_BATCHED_MIGRATION);
	assert_int_equal(call->moved, NR_PAGES);
	assert_int_equal(nr_isolated(s), 0);
	for (uint64_t p = 0; p < NR_PAGES; p++)
		assert_int_equal(folio_nid(page_at(s, p)), 1);
}

/* The walk reads every PTE, a large folio's too (queue_folios_pte_range;
 * qp->large only keeps it from being queued twice): with 64 KiB mTHP the
 * walk costs what it does with 4 KiB pages, and lists the same pages. */
static void cfg_caller_mthp(struct sim *s)
{
	cfg_caller(s);
	s->t.thp.size[4] = THP_SIZE_ALWAYS;
}

static double walk_cost(void (*cfg)(struct sim *))
{
	struct sim *s = testsim_new_cfg("v6.12", FLUSH_X86_IPI, cfg);
	struct migrate_call *call = start_call(s, true, false);
	double before = engine_cost(&s->e.acct[s->e.cpu], COST_MIGRATE);
	assert_int_equal(migrate_call_step(s, call, ctx_of(s)), CALL_QUEUED);
	assert_int_equal(call->nr_listed, NR_PAGES);
	double ns = engine_cost(&s->e.acct[s->e.cpu], COST_MIGRATE) - before;
	assert_true(folio_nr_pages(page_at(s, 0)) == (cfg == cfg_caller_mthp ? 16u : 1u));
	migrate_call_putback(s, call);
	testsim_free(s);
	return ns;
}

static void test_walk_charges_every_pte(void **state)
{
	(void)state;
	double small = walk_cost(cfg_caller), large = walk_cost(cfg_caller_mthp);
	assert_true(small > 0);
	assert_true(large == small);
}

/* A hint fault on a page of a later batch, while the first is being
 * migrated: migrate_misplaced_folio_prepare finds the folio isolated
 * (folio_isolate_lru fails), so the fault restores the PTE and tells
 * task_numa_fault TNF_MIGRATE_FAIL (numa_faults_locality[2]); the call
 * counts it; the folio stays on the list and moves with its batch. */
static void test_hint_fault_on_listed_folio_fails(void **state)
{
	struct sim *s = testsim_new_cfg("v6.12", FLUSH_X86_IPI, cfg_caller);
	*state = s;
	struct vm_area_struct *vma = testsim_vma(s);
	struct migrate_call *call = start_call(s, true, false);
	const uint64_t page = 3 * PTRS_PER_PTE + 7; /* in the fourth batch */

	assert_int_equal(migrate_call_step(s, call, ctx_of(s)), CALL_QUEUED);
	assert_int_equal(migrate_call_step(s, call, ctx_of(s)), CALL_BATCH);
	/* the scanner made the last table PROT_NONE meanwhile */
	testsim_enter(s, 0, NSEC_PER_SEC + 1000);
	uint64_t t3 = vma->vm_start + 3 * PMD_SIZE;
	assert_int_equal(change_prot_numa(vma, t3, t3 + PMD_SIZE), PTRS_PER_PTE);

	int i = task_on_node(s, 1);
	struct task_struct *p = &s->tasks[i];
	testsim_enter(s, i, NSEC_PER_SEC + 2000);
	uint64_t addr = testsim_addr(s, page);
	struct vm_fault vmf = { .vma = vma, .address = addr, .pmd = pte_table_of(vma, addr),
				.orig_pte = *testsim_pte(s, page) };
	assert_false(do_numa_page(&vmf)); /* no migration */
	assert_int_equal(p->numa_faults_locality[2], 1);
	assert_int_equal(p->numa_faults_locality[0], 1); /* a remote fault */
	assert_int_equal(call->hint_fails, 1);
	assert_false(pte_protnone(*testsim_pte(s, page)));
	assert_true(isolated(s, page));
	assert_int_equal(folio_nid(page_at(s, page)), 0);

	/* a fault on a page the call does not hold: no failure, no count */
	testsim_enter(s, s->nr_tasks - 1, NSEC_PER_SEC + 3000);
	finish_batch(s, call);
	while (migrate_call_step(s, call, ctx_of(s)) == CALL_BATCH)
		finish_batch(s, call);
	assert_int_equal(folio_nid(page_at(s, page)), 1);
	assert_int_equal(nr_isolated(s), 0);
	assert_int_equal(call->hint_fails, 1);
}

/* migrate_folio_add: MPOL_MF_MOVE leaves a folio that another process
 * maps, and that is no failure; MPOL_MF_MOVE_ALL isolates it. */
static void test_move_leaves_shared_folio_move_all_takes_it(void **state)
{
	struct sim *s = testsim_new_cfg("v6.12", FLUSH_X86_IPI, cfg_caller_shared);
	*state = s;
	assert_int_equal(page_at(s, 0).fs->pg[page_at(s, 0).idx].mapcount, 2);
	struct migrate_call *call = start_call(s, false, false);
	assert_int_equal(migrate_call_step(s, call, ctx_of(s)), CALL_DONE);
	assert_int_equal(nr_isolated(s), 0);
	assert_int_equal(call->failed, 0);
	assert_int_equal(folio_nid(page_at(s, 0)), 0);

	call->move_all = true;
	call->walked = false;
	call->vma = 0;
	call->addr = 0;
	assert_int_equal(migrate_call_step(s, call, ctx_of(s)), CALL_QUEUED);
	assert_int_equal(call->nr_listed, NR_PAGES);
	while (migrate_call_step(s, call, ctx_of(s)) == CALL_BATCH)
		finish_batch(s, call);
	assert_int_equal(call->moved, NR_PAGES);
	assert_int_equal(folio_nid(page_at(s, 0)), 1);
	assert_int_equal(nr_isolated(s), 0);
}

/* A folio another migration holds (a hint fault's, between its isolation
 * and its move): migrate_pages(2) walks past it, the isolation failing. */
static void test_migrate_pages_walks_past_busy_folio(void **state)
{
	struct sim *s = testsim_new_cfg("v6.12", FLUSH_X86_IPI, cfg_caller);
	*state = s;
	const uint64_t busy = 700;
	struct folio f = page_at(s, busy);
	f.fs->pg[f.idx].flags |= FOLIO_ISOLATED;
	struct migrate_call *call = start_call(s, true, false);
	assert_int_equal(migrate_call_step(s, call, ctx_of(s)), CALL_QUEUED);
	assert_int_equal(call->nr_listed, NR_PAGES - 1);
	assert_true(call->walked);
	migrate_call_putback(s, call);
	f.fs->pg[f.idx].flags &= (uint8_t)~FOLIO_ISOLATED;
	assert_int_equal(nr_isolated(s), 0);
}

/* move_pages(2) (do_pages_move) queues page by page and migrates what it
 * has queued at the first page it cannot queue, then goes on after it. */
static void test_move_pages_migrates_its_list_at_busy_folio(void **state)
{
	struct sim *s = testsim_new_cfg("v6.12", FLUSH_X86_IPI, cfg_caller);
	*state = s;
	const uint64_t busy = 700;
	struct folio f = page_at(s, busy);
	f.fs->pg[f.idx].flags |= FOLIO_ISOLATED;
	struct migrate_call *call = start_call(s, false, true);
	assert_int_equal(migrate_call_step(s, call, ctx_of(s)), CALL_QUEUED);
	assert_int_equal(call->nr_listed, busy);
	assert_false(call->walked);
	enum migrate_call_step st;
	int queued = 1, batches = 0;
	while ((st = migrate_call_step(s, call, ctx_of(s))) != CALL_DONE) {
		if (st == CALL_QUEUED) {
			queued++;
			assert_int_equal(call->moved, busy); /* the first list went first */
			continue;
		}
		finish_batch(s, call);
		batches++;
	}
	assert_int_equal(queued, 2);
	assert_int_equal(batches, 2 + 3); /* 512 + 188, then 512 + 512 + 323 */
	assert_int_equal(call->moved, NR_PAGES - 1);
	assert_int_equal(folio_nid(page_at(s, busy)), 0);
	f.fs->pg[f.idx].flags &= (uint8_t)~FOLIO_ISOLATED;
	assert_int_equal(nr_isolated(s), 0);
}

/* migrate_pages stops on -ENOMEM (the target node full): migrate_to_node
 * puts the rest of the list back and the call returns. */
static void test_enomem_puts_the_list_back(void **state)
{
	struct sim *s = testsim_new_cfg("v6.12", FLUSH_X86_IPI, cfg_caller);
	*state = s;
	struct migrate_call *call = start_call(s, true, false);
	assert_int_equal(migrate_call_step(s, call, ctx_of(s)), CALL_QUEUED);
	uint64_t taken = s->node_free_pages[1] - 100; /* someone else's: 100 pages left */
	assert_true(alloc_pages_bulk_node(s, 1, taken));
	assert_int_equal(migrate_call_step(s, call, ctx_of(s)), CALL_BATCH);
	finish_batch(s, call);
	assert_true(ctx_of(s)->enomem);
	assert_int_equal(call->moved, 100);
	assert_int_equal(call->nr_listed, 0);
	assert_int_equal(nr_isolated(s), 0);
	assert_int_equal(migrate_call_step(s, call, ctx_of(s)), CALL_DONE);
	for (uint64_t k = 0; k < taken; k++)
		free_pages_node(s, 1, 0);
	assert_state_ok(s);
}

/* The run ends mid-call: what the call had not batched yet is put back
 * (putback_movable_pages); the batch in flight stays with its migration. */
static void test_putback_at_the_end(void **state)
{
	struct sim *s = testsim_new_cfg("v6.12", FLUSH_X86_IPI, cfg_caller);
	*state = s;
	struct migrate_call *call = start_call(s, true, false);
	assert_int_equal(migrate_call_step(s, call, ctx_of(s)), CALL_QUEUED);
	assert_int_equal(migrate_call_step(s, call, ctx_of(s)), CALL_BATCH);
	migrate_call_putback(s, call);
	assert_int_equal(call->nr_listed, 0);
	assert_int_equal(nr_isolated(s), NR_MAX_BATCHED_MIGRATION); /* the batch's */
	finish_batch(s, call);
	assert_int_equal(nr_isolated(s), 0);
	assert_int_equal(migrate_call_step(s, call, ctx_of(s)), CALL_DONE);
	assert_int_equal(call->moved, NR_MAX_BATCHED_MIGRATION);
	assert_state_ok(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_each_policy_first_touch_node, testsim_teardown),
		cmocka_unit_test_teardown(test_zone_statistics, testsim_teardown),
		cmocka_unit_test_teardown(test_default_policy_falls_back_to_next_node, testsim_teardown),
		cmocka_unit_test_teardown(test_bind_does_not_fall_back, testsim_teardown),
		cmocka_unit_test_teardown(test_call_isolates_whole_range_before_first_batch, testsim_teardown),
		cmocka_unit_test(test_walk_charges_every_pte),
		cmocka_unit_test_teardown(test_hint_fault_on_listed_folio_fails, testsim_teardown),
		cmocka_unit_test_teardown(test_move_leaves_shared_folio_move_all_takes_it, testsim_teardown),
		cmocka_unit_test_teardown(test_migrate_pages_walks_past_busy_folio, testsim_teardown),
		cmocka_unit_test_teardown(test_move_pages_migrates_its_list_at_busy_folio, testsim_teardown),
		cmocka_unit_test_teardown(test_enomem_puts_the_list_back, testsim_teardown),
		cmocka_unit_test_teardown(test_putback_at_the_end, testsim_teardown),
	};
	return cmocka_run_group_tests_name("mempolicy", tests, NULL, NULL);
}
