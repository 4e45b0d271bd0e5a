/* Aggregated private faults (docs/model.md 3.3a): which tables the scanner
 * pools, what a pooled fault counts and defers, and how a pooled table is
 * settled.  The world: 4 threads, each with a private slice of one PTE
 * table, first touched on its node. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "kernel/sched/sched.h"
#include "linux/compaction.h"
#include "linux/mm.h"
#include "linux/sched/numa_balancing.h"
#include "unit/helpers/testsim.h"

static void slices(struct sim *s)
{
	s->w.p.private_fraction = 1;
	s->w.p.private_access_share = 1;
}

static void slices_exact(struct sim *s)
{
	slices(s);
	s->exact = true;
}

static struct sim *mk(void **state, void (*cfg)(struct sim *))
{
	struct sim *s = testsim_new_cfg("v7.3", FLUSH_X86_IPI, cfg);
	*state = s;
	return s;
}

/* Scan thread @i's slice (its table i) in its own context. */
static struct pte_table *scan_slice(struct sim *s, int i)
{
	struct vm_area_struct *vma = testsim_vma(s);
	testsim_enter(s, i, NSEC_PER_SEC);
	uint64_t a = vma->vm_start + (uint64_t)i * PMD_SIZE;
	change_prot_numa(vma, a, a + PMD_SIZE);
	return &vma->tables[i];
}

static const struct touch_pool *pool_of(struct sim *s, int i)
{
	return &s->w.touch.pool[testsim_vma(s)->first_table_id + (uint32_t)i];
}

static unsigned protnone_ptes(struct sim *s, int i)
{
	unsigned n = 0;
	for (uint64_t p = (uint64_t)i * PTRS_PER_PTE; p < (uint64_t)(i + 1) * PTRS_PER_PTE; p++)
		n += pte_protnone(*testsim_pte(s, p));
	return n;
}

static void assert_invariants(struct sim *s)
{
	char err[256] = "";
	bool ok = mm_check_invariants(s, err, sizeof(err));
	if (!ok)
		fail_msg("%s", err);
}

static void test_local_slice_table_is_pooled_and_its_faults_deferred(void **state)
{
	struct sim *s = mk(state, slices);
	struct vm_area_struct *vma = testsim_vma(s);
	struct pte_table *t = scan_slice(s, 1);
	struct task_struct *p = &s->tasks[1];
	assert_int_equal(t->owner, 1);
	assert_int_equal(pool_of(s, 1)->on, 1);
	assert_int_equal(pool_of(s, 1)->nid, s->cpus[p->cpu].node);
	assert_int_equal(protnone_ptes(s, 1), PTRS_PER_PTE);

	uint64_t cold = s->w.touch.pn_cold[t->group];
	unsigned long long faults = testsim_event(s, NUMA_HINT_FAULTS);
	for (int k = 0; k < 5; k++)
		task_fault_pooled(s, p, vma, t, false, NSEC_PER_SEC + 1000000 * (uint64_t)(k + 1));
	assert_int_equal(testsim_event(s, NUMA_HINT_FAULTS), faults + 5);
	assert_int_equal(testsim_event(s, NUMA_HINT_FAULTS_LOCAL), 5);
	assert_int_equal(s->st.hint_faults_pooled, 5);
	assert_int_equal(s->w.touch.pn_cold[t->group], cold - 5 * t->weight);
	assert_int_equal(pool_of(s, 1)->done[0], 5);
	/* task_numa_fault saw five private local faults on the slice's node */
	assert_non_null(p->numa_faults);
	assert_int_equal(p->numa_faults_locality[1], 5);
	/* the PTEs wait for the table to be settled; the checkers know */
	assert_int_equal(protnone_ptes(s, 1), PTRS_PER_PTE);
	assert_invariants(s);

	workload_pool_settle(vma, t);
	assert_int_equal(pool_of(s, 1)->on, 0);
	assert_int_equal(pool_of(s, 1)->done[0], 0);
	assert_int_equal(protnone_ptes(s, 1), PTRS_PER_PTE - 5);
	assert_int_equal(t->nr_protnone_hot + t->nr_protnone_cold, PTRS_PER_PTE - 5);
	assert_invariants(s);
	/* the scanner's next visit re-protects exactly the five */
	testsim_enter(s, 1, 2 * NSEC_PER_SEC);
	unsigned long n = change_prot_numa(vma, vma->vm_start + PMD_SIZE, vma->vm_start + 2 * PMD_SIZE);
	assert_int_equal(n, 5);
	assert_int_equal(pool_of(s, 1)->on, 1);
}

static void test_misplaced_page_keeps_table_exact(void **state)
{
	struct sim *s = mk(state, slices);
	struct vm_area_struct *vma = testsim_vma(s);
	struct page_state *pg = &vma->store->pg[vma->store_pgoff + 2 * PTRS_PER_PTE + 7];
	pg->nid = (uint8_t)(1 - s->cpus[s->tasks[2].cpu].node); /* one page on the other node */
	scan_slice(s, 2);
	assert_int_equal(pool_of(s, 2)->on, 0);
	scan_slice(s, 3); /* its neighbour is pooled */
	assert_int_equal(pool_of(s, 3)->on, 1);
}

static void test_page_last_faulted_by_another_task_keeps_table_exact(void **state)
{
	struct sim *s = mk(state, slices);
	struct vm_area_struct *vma = testsim_vma(s);
	struct page_state *pg = &vma->store->pg[vma->store_pgoff + 0 * PTRS_PER_PTE + 100];
	pg->last_cpupid = (uint32_t)cpu_pid_to_cpupid(s->tasks[3].cpu, s->tasks[3].pid);
	scan_slice(s, 0);
	assert_int_equal(pool_of(s, 0)->on, 0); /* a fault there is a shared one */
	pg->last_cpupid = (uint32_t)cpu_pid_to_cpupid(s->tasks[0].cpu, s->tasks[0].pid);
	scan_slice(s, 0); /* nothing new to protect, but the verdict is taken again */
	assert_int_equal(pool_of(s, 0)->on, 1);
}

static void test_large_folio_keeps_table_exact(void **state)
{
	struct sim *s = mk(state, slices);
	struct vm_area_struct *vma = testsim_vma(s);
	struct page_state *pg = &vma->store->pg[vma->store_pgoff + 1 * PTRS_PER_PTE];
	for (int i = 0; i < 16; i++) /* an order-4 folio at the table's start */
		pg[i].flags = (uint8_t)(4 << FOLIO_ORDER_SHIFT);
	scan_slice(s, 1);
	assert_int_equal(pool_of(s, 1)->on, 0);
}

static void test_exact_mode_pools_nothing(void **state)
{
	struct sim *s = mk(state, slices_exact);
	assert_null(s->w.touch.pool);
	struct pte_table *t = scan_slice(s, 1);
	assert_int_equal(t->nr_protnone_hot + t->nr_protnone_cold, PTRS_PER_PTE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_local_slice_table_is_pooled_and_its_faults_deferred, testsim_teardown),
		cmocka_unit_test_teardown(test_misplaced_page_keeps_table_exact, testsim_teardown),
		cmocka_unit_test_teardown(test_page_last_faulted_by_another_task_keeps_table_exact, testsim_teardown),
		cmocka_unit_test_teardown(test_large_folio_keeps_table_exact, testsim_teardown),
		cmocka_unit_test_teardown(test_exact_mode_pools_nothing, testsim_teardown),
	};
	return cmocka_run_group_tests_name("pool", tests, NULL, NULL);
}
