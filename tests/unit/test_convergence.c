/* Convergence as a result (report/convergence.h, issue 29): the criterion
 * over a process's per-second series, the memory term
 * (workload_task_local_share) and the per-process hint-fault counts. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "helpers/testsim.h"
#include "linux/mm.h"
#include "linux/sched/numa_balancing.h"
#include "report/convergence.h"

#define N 12

/* local / all faults and memory shares, per second: both at 95% from
 * second 3 on. */
static void series(double *all, double *local, double *mem, double fault_share, double mem_share)
{
	for (int i = 0; i < N; i++) {
		all[i] = 100;
		local[i] = i >= 3 ? 100 * fault_share : 50;
		mem[i] = i >= 3 ? mem_share : 0.5;
	}
}

static void test_criterion_window(void **state)
{
	(void)state;
	double all[N], local[N], mem[N];
	series(all, local, mem, 0.95, 0.95);
	assert_int_equal(convergence_first(all, local, mem, N, 0.9, 5, false), 3);
	/* the window must fit in the run: 9 seconds above it need only 5 */
	assert_int_equal(convergence_first(all, local, mem, 8, 0.9, 5, false), 3);
	assert_int_equal(convergence_first(all, local, mem, 7, 0.9, 5, false), -1);
	/* a fixed-work run whose work was done: a window open at the end counts */
	assert_int_equal(convergence_first(all, local, mem, 7, 0.9, 5, true), 3);
	assert_int_equal(convergence_first(all, local, mem, 4, 0.9, 5, true), 3);
	local[6] = 50;
	assert_int_equal(convergence_first(all, local, mem, 7, 0.9, 5, true), -1);
	/* exactly the share counts ("at or above") */
	series(all, local, mem, 0.9, 0.9);
	assert_int_equal(convergence_first(all, local, mem, N, 0.9, 5, false), 3);
}

/* Both terms are needed: memory local but faults remote (or the
 * reverse) is not converged. */
static void test_criterion_needs_both(void **state)
{
	(void)state;
	double all[N], local[N], mem[N];
	series(all, local, mem, 0.95, 0.85);
	assert_int_equal(convergence_first(all, local, mem, N, 0.9, 5, false), -1);
	series(all, local, mem, 0.85, 0.95);
	assert_int_equal(convergence_first(all, local, mem, N, 0.9, 5, false), -1);
}

/* A dip below restarts the window. */
static void test_criterion_dip_restarts(void **state)
{
	(void)state;
	double all[N], local[N], mem[N];
	series(all, local, mem, 0.95, 0.95);
	local[6] = 50;
	assert_int_equal(convergence_first(all, local, mem, N, 0.9, 5, false), 7);
	series(all, local, mem, 0.95, 0.95);
	mem[5] = 0.2;
	assert_int_equal(convergence_first(all, local, mem, N, 0.9, 5, false), 6);
}

/* A second without hint faults (the scan slowed down) keeps the last
 * share; before the first fault there is none, so no convergence. */
static void test_criterion_quiet_seconds(void **state)
{
	(void)state;
	double all[N], local[N], mem[N];
	series(all, local, mem, 0.95, 0.95);
	for (int i = 4; i < N; i++)
		if (i % 2 == 0)
			all[i] = local[i] = 0;
	assert_int_equal(convergence_first(all, local, mem, N, 0.9, 5, false), 3);
	/* memory local all along, but never a hint fault: balancing off */
	for (int i = 0; i < N; i++) {
		all[i] = local[i] = 0;
		mem[i] = 1;
	}
	assert_int_equal(convergence_first(all, local, mem, N, 0.9, 5, false), -1);
	/* no task at work (mem < 0) keeps the last memory share */
	series(all, local, mem, 0.95, 0.95);
	mem[5] = mem[6] = -1;
	assert_int_equal(convergence_first(all, local, mem, N, 0.9, 5, false), 3);
}

/* workload_task_local_share: the slice's and the shared region's shares
 * on the task's node, weighted by private_access_share; a region
 * without pages takes no weight. */
static void cfg_half_private(struct sim *s)
{
	s->w.p.private_fraction = 0.5;
	s->w.p.private_access_share = 0.25;
}

static void test_task_local_share(void **state)
{
	struct sim *s = testsim_new_cfg("v7.3", FLUSH_X86_IPI, cfg_half_private);
	*state = s;
	struct task_struct *t = &s->tasks[0];
	int node = s->cpus[t->cpu].node, other = !node;
	int slice = s->w.slice_of[t->idx], shared = s->nr_tasks + t->mm->id;
	/* move every page of the two classes by hand: the slice all local,
	 * the shared region all remote */
	for (int hot = 0; hot < 2; hot++) {
		uint64_t *sl = class_nodes(&s->w, slice, hot), *sh = class_nodes(&s->w, shared, hot);
		sl[node] += sl[other];
		sl[other] = 0;
		sh[other] += sh[node];
		sh[node] = 0;
	}
	assert_true(fabs(workload_task_local_share(s, t) - 0.25) < 1e-9);
	/* no slice pages: the shared region is all there is */
	for (int hot = 0; hot < 2; hot++)
		memset(class_nodes(&s->w, slice, hot), 0, sizeof(uint64_t) * (size_t)s->m.nr_nodes);
	assert_true(fabs(workload_task_local_share(s, t)) < 1e-9);
	for (int hot = 0; hot < 2; hot++) {
		uint64_t *sh = class_nodes(&s->w, shared, hot);
		sh[node] += sh[other];
		sh[other] = 0;
	}
	assert_true(fabs(workload_task_local_share(s, t) - 1) < 1e-9);
	/* nothing at all to touch */
	for (int hot = 0; hot < 2; hot++)
		memset(class_nodes(&s->w, shared, hot), 0, sizeof(uint64_t) * (size_t)s->m.nr_nodes);
	assert_true(workload_task_local_share(s, t) < 0);
}

/* numa_migrate_check counts a hint fault for the faulting process. */
static void test_hint_faults_per_process(void **state)
{
	struct sim *s = testsim_mk(state, "v7.3", FLUSH_X86_IPI);
	struct vm_area_struct *vma = testsim_vma(s);
	int i = 0;
	testsim_enter(s, 0, NSEC_PER_SEC);
	assert_int_equal(change_prot_numa(vma, testsim_addr(s, 0), testsim_addr(s, 4)), 4);
	for (int k = 0; k < s->nr_tasks; k++)
		if (s->cpus[s->tasks[k].cpu].node == 0)
			i = k;
	testsim_enter(s, i, 2 * NSEC_PER_SEC);
	struct vm_fault vmf = { .vma = vma, .address = testsim_addr(s, 1),
				.pmd = pte_table_of(vma, testsim_addr(s, 1)), .orig_pte = *testsim_pte(s, 1) };
	do_numa_page(&vmf);
	assert_int_equal(testsim_event(s, NUMA_HINT_FAULTS), 1);
	assert_int_equal(s->mms[0].hint_faults, 1);
	/* the pages are on node 0 (first touch node0) and so is the task */
	assert_int_equal(s->mms[0].hint_faults_local, 1);
	assert_int_equal(s->mms[0].hint_faults_ended_local, 1);
}

/* task_numa_fault: a fault ends local when the page is on the task's
 * node after it (mem_node is the node after any migration). */
static void test_fault_ended_local(void **state)
{
	struct sim *s = testsim_mk(state, "v7.3", FLUSH_X86_IPI);
	int i = 0;
	testsim_enter(s, i, NSEC_PER_SEC);
	int node = s->cpus[s->tasks[i].cpu].node;
	task_numa_fault(s, (int)LAST_CPUPID_UNSET, node, 1, TNF_MIGRATED);
	assert_int_equal(s->mms[0].hint_faults_ended_local, 1);
	task_numa_fault(s, (int)LAST_CPUPID_UNSET, !node, 1, 0);
	assert_int_equal(s->mms[0].hint_faults_ended_local, 1);
	task_numa_fault(s, (int)LAST_CPUPID_UNSET, node, 16, TNF_FAULT_LOCAL); /* one fault, 16 pages */
	assert_int_equal(s->mms[0].hint_faults_ended_local, 2);
	/* counted in every balancing mode, as numa_hint_faults is */
	s->t.numa_balancing = NUMA_BALANCING_MEMORY_TIERING;
	task_numa_fault(s, (int)LAST_CPUPID_UNSET, node, 1, 0);
	assert_int_equal(s->mms[0].hint_faults_ended_local, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_criterion_window),
		cmocka_unit_test(test_criterion_needs_both),
		cmocka_unit_test(test_criterion_dip_restarts),
		cmocka_unit_test(test_criterion_quiet_seconds),
		cmocka_unit_test_teardown(test_task_local_share, testsim_teardown),
		cmocka_unit_test_teardown(test_hint_faults_per_process, testsim_teardown),
		cmocka_unit_test_teardown(test_fault_ended_local, testsim_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
