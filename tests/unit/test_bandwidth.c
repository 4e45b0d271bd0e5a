/* The memory-bandwidth roofline (workload/workload.c): below a node's
 * capacity nothing changes; above it the node's accesses stretch until the
 * running threads' demand equals the capacity. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include <cmocka.h>

#include "unit/helpers/testsim.h"
#include "workload/workload.h"

#define mk testsim_mk

/* Bytes per second the running tasks ask of node 0 (all the testsim's
 * memory is there: FT_NODE0, no private slices). */
static double node0_demand(const struct sim *s)
{
	double d = 0;
	for (int i = 0; i < s->nr_tasks; i++)
		d += s->w.task_rate[i] * s->w.p.bytes_per_op;
	return d;
}

static void test_below_capacity_changes_nothing(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_X86_IPI);
	s->m.mem_bw_gbs = 0;
	s->m.link_bw_gbs = 0;
	workload_account(s, NSEC_PER_MSEC);
	double free_rate[4];
	for (int i = 0; i < 4; i++)
		free_rate[i] = s->w.task_rate[i];
	s->m.mem_bw_gbs = 1.01 * node0_demand(s) / 1e9; /* just above the demand */
	workload_account(s, 2 * NSEC_PER_MSEC);
	assert_true(s->w.mem_q[0] == 1.0 && s->w.link_q == 1.0);
	for (int i = 0; i < 4; i++)
		assert_true(s->w.task_rate[i] == free_rate[i]);
}

/* The solve runs only where the threads could reach a capacity: all of
 * them at their compute speed (op_ns = cpu_ns_per_op) on one node; and
 * then its sums are taken only where the bound on them (each thread at the
 * fastest thread's pace, bw_bound_below) reaches it. */
static void test_roofline_solved_only_when_reachable(void **state)
{
	(void)state;
	for (int link = 0; link < 2; link++) {
		struct sim *s = testsim_new("v7.3", FLUSH_X86_IPI);
		double most = s->nr_tasks * 1e9 / s->w.p.cpu_ns_per_op * s->w.p.bytes_per_op;
		double demand = node0_demand(s);
		assert_true(demand < 0.9 * most);
		double *cap = link ? &s->m.link_bw_gbs : &s->m.mem_bw_gbs;
		s->m.mem_bw_gbs = s->m.link_bw_gbs = 0;
		*cap = 1.001 * most / 1e9;
		s->w.demand_valid = false;
		workload_account(s, NSEC_PER_MSEC);
		assert_false(s->w.demand_valid); /* not solved: it could not bind */
		*cap = 0.999 * most / 1e9;
		workload_account(s, 2 * NSEC_PER_MSEC);
		assert_false(s->w.demand_valid); /* no sums taken: the bound is below it */
		assert_true(s->w.mem_q[0] == 1.0 && s->w.link_q == 1.0);
		*cap = 0.1 * demand / 1e9;
		workload_account(s, 3 * NSEC_PER_MSEC);
		assert_true(link ? s->w.link_q > 1.0 : s->w.mem_q[0] > 1.0); /* solved: above it */
		testsim_free(s);
	}
}

static void test_above_capacity_demand_meets_it(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_X86_IPI);
	s->m.mem_bw_gbs = 0;
	s->m.link_bw_gbs = 0;
	workload_account(s, NSEC_PER_MSEC);
	double free_demand = node0_demand(s), remote_free[4];
	for (int i = 0; i < 4; i++)
		remote_free[i] = s->w.task_rate[i];
	s->m.mem_bw_gbs = 0.5 * free_demand / 1e9; /* half of what they ask */
	workload_account(s, 2 * NSEC_PER_MSEC);
	assert_true(s->w.mem_q[0] > 1.0);
	assert_true(s->w.mem_q[1] == 1.0); /* node 1 holds nothing */
	double d = node0_demand(s);
	assert_true(d < 0.5 * free_demand * 1.001 && d > 0.5 * free_demand * 0.999);
	/* a thread on node 1 slows as well */
	for (int i = 0; i < 4; i++)
		if (s->cpus[s->tasks[i].cpu].node == 1)
			assert_true(s->w.task_rate[i] < remote_free[i]);
}

static bool remote(const struct sim *s, int i)
{
	return s->cpus[s->tasks[i].cpu].node != 0;
}

static void test_link_limits_remote_traffic(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_X86_IPI);
	s->m.mem_bw_gbs = 0;
	s->m.link_bw_gbs = 0;
	workload_account(s, NSEC_PER_MSEC);
	double free_rate[4], crossing_free = 0;
	for (int i = 0; i < 4; i++) {
		free_rate[i] = s->w.task_rate[i];
		if (remote(s, i))
			crossing_free += free_rate[i] * s->w.p.bytes_per_op;
	}
	assert_true(crossing_free > 0);
	/* the threads on node 1 cross the link: give it a quarter of their demand */
	s->m.link_bw_gbs = 0.25 * crossing_free / 1e9;
	workload_account(s, 2 * NSEC_PER_MSEC);
	assert_true(s->w.link_q > 1.0);
	double crossing = 0;
	for (int i = 0; i < 4; i++) {
		if (remote(s, i))
			crossing += s->w.task_rate[i] * s->w.p.bytes_per_op;
		else
			assert_true(s->w.task_rate[i] == free_rate[i]); /* local threads keep their pace */
	}
	assert_true(crossing < 0.25 * crossing_free * 1.001 && crossing > 0.25 * crossing_free * 0.999);
}

/* Private slices as well as the shared region (test_account.c's). */
static void cfg_slices(struct sim *s)
{
	s->w.p.private_fraction = 0.5;
	s->w.p.private_access_share = 0.5;
	s->w.p.hot_fraction = 0;
}

/* A page of a slice (@slice) or of the shared region moves between the
 * nodes: to node 1 the first time, back the next. */
static void move_page(struct sim *s, bool slice, int times)
{
	struct vm_area_struct *vma = NULL;
	for (int v = 0; v < s->mms[0].nr_vmas; v++)
		if ((pte_table_of(&s->mms[0].vmas[v], s->mms[0].vmas[v].vm_start)->owner >= 0) == slice)
			vma = &s->mms[0].vmas[v];
	assert_non_null(vma);
	workload_page_moved(s, vma, vma->vm_start, times % 2, 1 - times % 2, 1);
}

/* The bound (bw_bound_below) skips the solve's sums only where they would
 * have changed nothing: two runs, one always taking the sums, keep the same
 * stretches and rates bit for bit while the capacities sweep across the
 * demand and tasks move, sleep and wake and pages move; and the bound's
 * kept sums, updated only for the tasks that changed, equal a
 * recomputation from every task after each tick. */
static void test_bound_same_as_sums(void **state)
{
	(void)state;
	struct sim *w[2];
	for (int j = 0; j < 2; j++) {
		w[j] = testsim_new_cfg("v7.3", FLUSH_X86_IPI, cfg_slices);
		w[j]->w.bw_no_bound = j == 1;
	}
	struct sim *a = w[0];
	assert_true(a->w.slice_pages > 0);
	/* capacities about which the stretches move, or not (both counted) */
	double demand = 0.08 * node0_demand(a);
	static const double level[] = { 3, 1.5, 1.05, 1.0, 0.95, 0.7, 1.2, 2, 0.5, 4 };
	int bounded = 0, moved = 0, slice_moves = 0, shared_moves = 0;
	for (int k = 0; k < 60; k++) {
		uint64_t now = (uint64_t)(k + 1) * 10 * NSEC_PER_MSEC;
		int i = k % a->nr_tasks;
		for (int j = 0; j < 2; j++) {
			struct sim *s = w[j];
			s->m.mem_bw_gbs = level[k % 10] * demand / 1e9;
			s->m.link_bw_gbs = level[(k + 3) % 10] * demand / 2e9;
			if (k % 3 == 1) { /* task i to a CPU on the other node */
				for (int c = 0; c < s->m.nr_cpus; c++)
					if (s->cpus[c].node != s->cpus[s->tasks[i].cpu].node) {
						s->tasks[i].cpu = c;
						break;
					}
				s->task_node_gen++; /* as set_task_cpu does */
			}
			if (k % 5 == 2) { /* task i sleeps, or wakes */
				s->tasks[i].state = s->tasks[i].state == TASK_ON_CPU ? TASK_SLEEPING
										       : TASK_ON_CPU;
				s->task_state_gen++; /* as the scheduler does */
			}
			if (k % 4 == 3) /* nothing moves but a page */
				move_page(s, k % 8 == 3, k % 8 == 3 ? slice_moves : shared_moves);
			workload_account(s, now);
		}
		slice_moves += k % 8 == 3;
		shared_moves += k % 8 == 7;
		assert_true(workload_bw_sums_check(a));
		bounded += !a->w.demand_valid && a->w.mem_q[0] == 1 && a->w.link_q == 1;
		moved += a->w.mem_q[0] > 1 || a->w.link_q > 1;
		assert_memory_equal(a->w.mem_q, w[1]->w.mem_q, sizeof(double) * 2);
		assert_memory_equal(&a->w.link_q, &w[1]->w.link_q, sizeof(double));
		assert_memory_equal(a->w.task_rate, w[1]->w.task_rate, sizeof(double) * 4);
		assert_memory_equal(a->w.op_ns, w[1]->w.op_ns, sizeof(double) * 4);
	}
	assert_true(bounded > 5 && moved > 5); /* both ways taken */
	/* a task's state changed behind the scheduler's back (no
	 * task_state_gen): the kept sums miss it, and the check sees that */
	a->tasks[0].state = a->tasks[0].state == TASK_ON_CPU ? TASK_SLEEPING : TASK_ON_CPU;
	assert_false(workload_bw_sums_check(a));
	for (int j = 0; j < 2; j++)
		testsim_free(w[j]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_below_capacity_changes_nothing, testsim_teardown),
		cmocka_unit_test_teardown(test_roofline_solved_only_when_reachable, testsim_teardown),
		cmocka_unit_test_teardown(test_above_capacity_demand_meets_it, testsim_teardown),
		cmocka_unit_test_teardown(test_link_limits_remote_traffic, testsim_teardown),
		cmocka_unit_test(test_bound_same_as_sums),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
