/* kernel/sched/fair.c NUMA balancing rules: the two-stage migration filter
 * (should_numa_migrate_memory), the early-life bypass, mpol_misplaced for a
 * local folio, task_scan_min/max and update_task_scan_period. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "linux/mm.h"
#include "linux/sched/numa_balancing.h"
#include "unit/helpers/testsim.h"


static struct sim *mk(void **state)
{
	return testsim_mk(state, "v7.3", FLUSH_X86_IPI);
}

static struct folio folio_at(struct sim *s, uint64_t page)
{
	struct vm_area_struct *vma = testsim_vma(s);
	return page_folio(vma->store, vma_store_idx(vma, testsim_addr(s, page)));
}

/* A task past its early life: a preferred node and numa_scan_seq > 4. */
static struct task_struct *settled_task(struct sim *s, int i)
{
	struct task_struct *p = &s->tasks[i];
	p->numa_preferred_nid = 0;
	p->numa_scan_seq = 5;
	return p;
}

/* A NUMA group with no faults yet: its fault-share test refuses every
 * shared fault, so only the private and early-life rules can say yes. */
static void attach_empty_group(struct task_struct *p)
{
	p->numa_group = calloc(1, sizeof(*p->numa_group));
	assert_non_null(p->numa_group);
	p->numa_group->refcount = 1;
	p->numa_group->nr_tasks = 1;
	p->numa_group->gid = p->pid;
}

/* ---- rule 9: the two-stage filter ---------------------------------------- */

static void test_two_stage_filter_refuses_first_sample_from_other_node(void **state)
{
	struct sim *s = mk(state);
	struct task_struct *p = settled_task(s, 2); /* CPU 2, node 1 */
	struct folio f = folio_at(s, 10);           /* on node 0 */

	assert_int_equal(s->cpus[2].node, 1);
	assert_int_equal(folio_nid(f), 0);
	f.fs->pg[f.idx].last_cpupid = (uint32_t)cpu_pid_to_cpupid(0, p->pid); /* last from node 0 */
	testsim_enter(s, 2, NSEC_PER_SEC);
	assert_false(should_numa_migrate_memory(s, p, f, 0, 2));
	/* the sample was recorded */
	assert_int_equal(f.fs->pg[f.idx].last_cpupid, (uint32_t)cpu_pid_to_cpupid(2, p->pid));
}

static void test_two_stage_filter_passes_second_sample_from_same_node(void **state)
{
	struct sim *s = mk(state);
	struct task_struct *p = settled_task(s, 2);
	struct folio f = folio_at(s, 10);

	attach_empty_group(p); /* a shared fault would be refused */
	f.fs->pg[f.idx].last_cpupid = (uint32_t)cpu_pid_to_cpupid(0, p->pid);
	testsim_enter(s, 2, NSEC_PER_SEC);
	assert_false(should_numa_migrate_memory(s, p, f, 0, 2));
	/* last_cpupid is now from node 1 and this task: private -> migrate */
	assert_true(should_numa_migrate_memory(s, p, f, 0, 2));
}

static void test_mpol_misplaced_two_stage_filter(void **state)
{
	struct sim *s = mk(state);
	struct vm_area_struct *vma = testsim_vma(s);
	struct folio f = folio_at(s, 10);
	uint64_t a = testsim_addr(s, 10);

	settled_task(s, 3); /* CPU 3, node 1 */

	f.fs->pg[f.idx].last_cpupid = (uint32_t)cpu_pid_to_cpupid(1, s->tasks[1].pid);
	testsim_enter(s, 3, NSEC_PER_SEC);
	assert_int_equal(mpol_misplaced(f, vma, a), NUMA_NO_NODE);
	assert_int_equal(mpol_misplaced(f, vma, a), 1);
}

static void test_early_life_bypass_first_fault_migrates(void **state)
{
	struct sim *s = mk(state);
	struct task_struct *p = &s->tasks[2];
	struct folio f = folio_at(s, 10);

	assert_int_equal(p->numa_preferred_nid, NUMA_NO_NODE);
	assert_int_equal(f.fs->pg[f.idx].last_cpupid, LAST_CPUPID_UNSET);
	/* with a NUMA group whose faults favour nothing, only the bypass says yes */
	attach_empty_group(p);
	testsim_enter(s, 2, NSEC_PER_SEC);
	assert_true(should_numa_migrate_memory(s, p, f, 0, 2));
}

static void test_early_life_bypass_private_fault_from_other_node(void **state)
{
	struct sim *s = mk(state);
	struct task_struct *p = &s->tasks[2];
	struct folio f = folio_at(s, 10);

	p->numa_preferred_nid = NUMA_NO_NODE;
	p->numa_scan_seq = 9;
	/* this task's last fault came from node 0: the filter alone would refuse */
	f.fs->pg[f.idx].last_cpupid = (uint32_t)cpu_pid_to_cpupid(0, p->pid);
	testsim_enter(s, 2, NSEC_PER_SEC);
	assert_true(should_numa_migrate_memory(s, p, f, 0, 2));
}

static void test_no_bypass_for_settled_task_first_fault_in_group(void **state)
{
	struct sim *s = mk(state);
	struct task_struct *p = settled_task(s, 2);
	struct folio f = folio_at(s, 10);

	attach_empty_group(p);
	testsim_enter(s, 2, NSEC_PER_SEC);
	assert_false(should_numa_migrate_memory(s, p, f, 0, 2));
}

static void test_mpol_misplaced_local_folio_keeps_last_cpupid(void **state)
{
	struct sim *s = mk(state);
	struct vm_area_struct *vma = testsim_vma(s);
	struct folio f = folio_at(s, 10); /* node 0 */
	uint32_t last = (uint32_t)cpu_pid_to_cpupid(3, s->tasks[3].pid);

	settled_task(s, 0);
	f.fs->pg[f.idx].last_cpupid = last;
	testsim_enter(s, 0, NSEC_PER_SEC); /* CPU 0, node 0: the folio is local */
	assert_int_equal(mpol_misplaced(f, vma, testsim_addr(s, 10)), NUMA_NO_NODE);
	assert_int_equal(f.fs->pg[f.idx].last_cpupid, last);
}

/* ---- scan period ---------------------------------------------------------- */

static void test_task_scan_min_max_rss_3gib(void **state)
{
	struct sim *s = mk(state);
	struct task_struct *p = &s->tasks[0];

	p->mm->rss_pages = (3ull << 30) >> PAGE_SHIFT;
	assert_int_equal(task_scan_min(s, p), 100);
	assert_int_equal(task_scan_max(s, p), 5000);
}

static void test_task_scan_min_max_rss_up_to_256mib(void **state)
{
	struct sim *s = mk(state);
	struct task_struct *p = &s->tasks[0];

	p->mm->rss_pages = (256ull << 20) >> PAGE_SHIFT;
	assert_int_equal(task_scan_min(s, p), 1000);
	assert_int_equal(task_scan_max(s, p), 60000);
	p->mm->rss_pages = 2048;
	assert_int_equal(task_scan_min(s, p), 1000);
	assert_int_equal(task_scan_max(s, p), 60000);
	/* one page more: two scan windows */
	p->mm->rss_pages = ((256ull << 20) >> PAGE_SHIFT) + 1;
	assert_int_equal(task_scan_min(s, p), 500);
	assert_int_equal(task_scan_max(s, p), 30000);
}

static void test_scan_period_doubles_without_faults(void **state)
{
	struct sim *s = mk(state);
	struct task_struct *p = &s->tasks[0];

	testsim_enter(s, 0, 2 * NSEC_PER_SEC);
	p->numa_scan_period = 1000;
	p->numa_scan_period_max = 60000;
	update_task_scan_period(s, p, 0, 0);
	assert_int_equal(p->numa_scan_period, 2000);
	assert_int_equal(p->mm->numa_next_scan, jiffies(s) + msecs_to_jiffies(s, 2000));
}

static void test_scan_period_doubling_bounded_by_max(void **state)
{
	struct sim *s = mk(state);
	struct task_struct *p = &s->tasks[0];

	testsim_enter(s, 0, NSEC_PER_SEC);
	p->numa_scan_period = 40000;
	p->numa_scan_period_max = 60000;
	update_task_scan_period(s, p, 0, 0);
	assert_int_equal(p->numa_scan_period, 60000);
}

static void test_scan_period_doubles_after_failed_migrations(void **state)
{
	struct sim *s = mk(state);
	struct task_struct *p = &s->tasks[0];

	testsim_enter(s, 0, NSEC_PER_SEC);
	p->numa_scan_period = 1000;
	p->numa_scan_period_max = 60000;
	p->numa_faults_locality[0] = 90; /* remote, shared: would speed up */
	p->numa_faults_locality[1] = 10;
	p->numa_faults_locality[2] = 1;  /* a failed migration */
	update_task_scan_period(s, p, 90, 10);
	assert_int_equal(p->numa_scan_period, 2000);
}

static void test_scan_period_lengthens_when_faults_mostly_private(void **state)
{
	struct sim *s = mk(state);
	struct task_struct *p = &s->tasks[0];

	testsim_enter(s, 0, NSEC_PER_SEC);
	p->numa_scan_period = 1000;
	p->numa_scan_period_max = 60000;
	p->numa_faults_locality[0] = 5; /* remote */
	p->numa_faults_locality[1] = 5; /* local */
	/* ps_ratio 9: slot 2 * period_slot 100 */
	update_task_scan_period(s, p, 1, 9);
	assert_int_equal(p->numa_scan_period, 1200);
	assert_int_equal(p->numa_faults_locality[0], 0);
	assert_int_equal(p->numa_faults_locality[1], 0);
}

static void test_scan_period_shortens_when_shared_and_remote(void **state)
{
	struct sim *s = mk(state);
	struct task_struct *p = &s->tasks[0];

	testsim_enter(s, 0, NSEC_PER_SEC);
	p->numa_scan_period = 10000;
	p->numa_scan_period_max = 60000;
	p->numa_faults_locality[0] = 9; /* remote */
	p->numa_faults_locality[1] = 1; /* local */
	/* lr 1, ps 1: diff = -(7 - 1) * 1000 */
	update_task_scan_period(s, p, 9, 1);
	assert_int_equal(p->numa_scan_period, 4000);
	/* and never below task_scan_min (1000): 1500 - 6 * 150 = 600 */
	p->numa_scan_period = 1500;
	p->numa_faults_locality[0] = 9;
	p->numa_faults_locality[1] = 1;
	update_task_scan_period(s, p, 9, 1);
	assert_int_equal(p->numa_scan_period, 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_two_stage_filter_refuses_first_sample_from_other_node, testsim_teardown),
		cmocka_unit_test_teardown(test_two_stage_filter_passes_second_sample_from_same_node, testsim_teardown),
		cmocka_unit_test_teardown(test_mpol_misplaced_two_stage_filter, testsim_teardown),
		cmocka_unit_test_teardown(test_early_life_bypass_first_fault_migrates, testsim_teardown),
		cmocka_unit_test_teardown(test_early_life_bypass_private_fault_from_other_node, testsim_teardown),
		cmocka_unit_test_teardown(test_no_bypass_for_settled_task_first_fault_in_group, testsim_teardown),
		cmocka_unit_test_teardown(test_mpol_misplaced_local_folio_keeps_last_cpupid, testsim_teardown),
		cmocka_unit_test_teardown(test_task_scan_min_max_rss_3gib, testsim_teardown),
		cmocka_unit_test_teardown(test_task_scan_min_max_rss_up_to_256mib, testsim_teardown),
		cmocka_unit_test_teardown(test_scan_period_doubles_without_faults, testsim_teardown),
		cmocka_unit_test_teardown(test_scan_period_doubling_bounded_by_max, testsim_teardown),
		cmocka_unit_test_teardown(test_scan_period_doubles_after_failed_migrations, testsim_teardown),
		cmocka_unit_test_teardown(test_scan_period_lengthens_when_faults_mostly_private, testsim_teardown),
		cmocka_unit_test_teardown(test_scan_period_shortens_when_shared_and_remote, testsim_teardown),
	};
	return cmocka_run_group_tests_name("numa_filter", tests, NULL, NULL);
}
