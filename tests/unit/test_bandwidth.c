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
 * them at their compute speed (op_ns = cpu_ns_per_op) on one node. */
static void test_roofline_solved_only_when_reachable(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_X86_IPI);
	double most = s->nr_tasks * 1e9 / s->w.p.cpu_ns_per_op * s->w.p.bytes_per_op;
	for (int link = 0; link < 2; link++) {
		double *cap = link ? &s->m.link_bw_gbs : &s->m.mem_bw_gbs;
		s->m.mem_bw_gbs = s->m.link_bw_gbs = 0;
		*cap = 1.001 * most / 1e9;
		s->w.demand_valid = false;
		workload_account(s, (uint64_t)(4 * link + 1) * NSEC_PER_MSEC);
		assert_false(s->w.demand_valid); /* not solved: it could not bind */
		*cap = 0.999 * most / 1e9;
		workload_account(s, (uint64_t)(4 * link + 2) * NSEC_PER_MSEC);
		assert_true(s->w.demand_valid); /* solved ... */
		assert_true(s->w.mem_q[0] == 1.0 && s->w.link_q == 1.0); /* ... below it still */
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_below_capacity_changes_nothing, testsim_teardown),
		cmocka_unit_test_teardown(test_roofline_solved_only_when_reachable, testsim_teardown),
		cmocka_unit_test_teardown(test_above_capacity_demand_meets_it, testsim_teardown),
		cmocka_unit_test_teardown(test_link_limits_remote_traffic, testsim_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
