/* The 10 ms accounting tick's caches (workload/workload.c): op_ns, the
 * bandwidth demand's first round and the rates are kept from the last tick
 * while their inputs are unchanged.  A world that keeps them and one that
 * recomputes everything at every tick go through the same changes -- a page
 * of a slice moves, a shared page moves, a task changes node, a task leaves
 * its CPU, a phase -- and must agree bit for bit after every tick. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "unit/helpers/testsim.h"
#include "workload/workload.h"

/* Private slices as well as the shared region, so that both kinds of class
 * are read; bandwidth low enough that the roofline is in force ... */
static void cfg(struct sim *s)
{
	s->w.p.private_fraction = 0.5;
	s->w.p.private_access_share = 0.5;
	s->w.p.hot_fraction = 0;
	s->m.mem_bw_gbs = 0.1; /* node 0 is asked about 0.3 GB/s, the link 0.1 */
	s->m.link_bw_gbs = 0.02;
}

/* ... or none: the tick then looks at the tasks' nodes only when the
 * scheduler has moved one (task_node_gen). */
static void cfg_unlimited(struct sim *s)
{
	cfg(s);
	s->m.mem_bw_gbs = s->m.link_bw_gbs = 0;
}

/* The receivers' fixed-point sums in ns: exact through int64_t, and from
 * their halves beyond it (absurd costs), within an ulp or two. */
static void test_fixed_point_to_ns(void **state)
{
	(void)state;
	assert_true(engine_fx_ns(engine_fx(1234.0)) == 1234.0);
	assert_true(engine_fx_ns(engine_fx(0.5)) == 0.5);
	engine_fx_t big = (engine_fx_t)1 << 80; /* past int64_t */
	assert_true(engine_fx_ns(big) == 18446744073709551616.0); /* 2^80 / 2^16 */
	assert_true(engine_fx_ns(-big) == -18446744073709551616.0);
	engine_fx_t odd = big * 3 + ((engine_fx_t)0x123456789abcdefull << 8) + 1;
	double want = ((double)3 * 18446744073709551616.0 + (double)0x123456789abcdefull / 256) *
		      (1 + 1.5e-5 / 3.5e19); /* + 1 unit, far below an ulp */
	double got = engine_fx_ns(odd);
	assert_true(got > want * (1 - 4e-16) && got < want * (1 + 4e-16));
}

static void tick(struct sim *s, uint64_t ms, bool keep)
{
	if (!keep) {
		s->w.op_valid = s->w.demand_valid = s->w.rates_valid = false;
		s->w.op_all = true;
	}
	workload_account(s, ms * NSEC_PER_MSEC);
}

/* Everything the tick derives, bit for bit. */
static void same(const struct sim *a, const struct sim *b)
{
	size_t tasks = (size_t)a->nr_tasks, nodes = (size_t)a->m.nr_nodes;
	assert_memory_equal(a->w.op_ns, b->w.op_ns, tasks * sizeof(double));
	assert_memory_equal(a->w.task_rate, b->w.task_rate, tasks * sizeof(double));
	assert_memory_equal(a->w.mm_rate, b->w.mm_rate, (size_t)a->nr_mms * sizeof(double));
	assert_memory_equal(a->w.touch.rate, b->w.touch.rate, 2 * a->w.touch.nr_groups * sizeof(double));
	assert_memory_equal(a->w.mem_q, b->w.mem_q, nodes * sizeof(double));
	assert_memory_equal(&a->w.link_q, &b->w.link_q, sizeof(double));
	assert_memory_equal(&a->w.remote_ns, &b->w.remote_ns, sizeof(double));
}

static bool ops_changed(const struct sim *s, const double *before)
{
	return memcmp(before, s->w.op_ns, (size_t)s->nr_tasks * sizeof(double)) != 0;
}

/* A CPU of the other node than task @i's. */
static int cpu_elsewhere(const struct sim *s, int i)
{
	for (int c = 0; c < s->m.nr_cpus; c++)
		if (s->cpus[c].node != s->cpus[s->tasks[i].cpu].node)
			return c;
	return -1;
}

static void kept_rates_match_recomputed(bool limited)
{
	void (*setup)(struct sim *) = limited ? cfg : cfg_unlimited;
	struct sim *w[2] = { testsim_new_cfg("v7.3", FLUSH_X86_IPI, setup),
			     testsim_new_cfg("v7.3", FLUSH_X86_IPI, setup) };
	struct sim *a = w[0];
	double before[8];
	uint64_t ms = 0;
	assert_true(a->nr_tasks <= 8 && a->w.slice_pages > 0);

	for (int k = 0; k < 3; k++) { /* nothing changes: kept */
		ms += 10;
		for (int j = 0; j < 2; j++)
			tick(w[j], ms, j == 0);
		same(w[0], w[1]);
	}
	assert_true(a->w.op_valid && a->w.rates_valid);
	if (limited)
		assert_true(a->w.demand_valid && a->w.mem_q[0] > 1 && a->w.link_q > 1);

	/* a page of a slice (task 1's), then a shared page, moves to node 1 */
	for (int step = 0; step < 2; step++) {
		memcpy(before, a->w.op_ns, (size_t)a->nr_tasks * sizeof(double));
		for (int j = 0; j < 2; j++) {
			struct vm_area_struct *vma = NULL;
			for (int v = 0; v < w[j]->mms[0].nr_vmas; v++) {
				struct vm_area_struct *c = &w[j]->mms[0].vmas[v];
				if ((pte_table_of(c, c->vm_start)->owner >= 0) == (step == 0))
					vma = c;
			}
			assert_non_null(vma);
			workload_page_moved(w[j], vma, vma->vm_start, 0, 1, 1);
			tick(w[j], ms + 10, j == 0);
		}
		ms += 10;
		assert_true(ops_changed(a, before));
		same(w[0], w[1]);
	}

	/* task 0 runs on the other node from now on */
	memcpy(before, a->w.op_ns, (size_t)a->nr_tasks * sizeof(double));
	int c = cpu_elsewhere(a, 0);
	ms += 10;
	for (int j = 0; j < 2; j++) {
		w[j]->tasks[0].cpu = c;
		w[j]->task_node_gen++; /* as set_task_cpu does */
		tick(w[j], ms, j == 0);
	}
	assert_true(ops_changed(a, before));
	same(w[0], w[1]);

	/* task 2 leaves its CPU: the demand falls, so do the stretches */
	double q[2] = { a->w.mem_q[0], a->w.link_q };
	ms += 10;
	for (int j = 0; j < 2; j++) {
		w[j]->tasks[2].state = TASK_SLEEPING;
		w[j]->task_state_gen++; /* as the scheduler does */
		tick(w[j], ms, j == 0);
	}
	if (limited)
		assert_true(a->w.mem_q[0] != q[0] || a->w.link_q != q[1]);
	same(w[0], w[1]);

	/* a phase: each thread touches the next one's slice.  First the
	 * roofline is lifted and a tick passes, so that nothing but the phase
	 * changes (the stretches stay where they are). */
	ms += 10;
	for (int j = 0; j < 2; j++) {
		w[j]->m.mem_bw_gbs = w[j]->m.link_bw_gbs = 0;
		tick(w[j], ms, j == 0);
	}
	memcpy(before, a->w.op_ns, (size_t)a->nr_tasks * sizeof(double));
	ms += 10;
	for (int j = 0; j < 2; j++)
		tick(w[j], ms, j == 0);
	assert_false(ops_changed(a, before));
	same(w[0], w[1]);
	ms += 10;
	for (int j = 0; j < 2; j++) {
		w[j]->w.p.phase_every_s = 1;
		w[j]->w.next_phase_ns = ms * NSEC_PER_MSEC;
		workload_phase(w[j], ms * NSEC_PER_MSEC);
		tick(w[j], ms, j == 0);
	}
	assert_int_equal(a->w.slice_of[0], 1);
	assert_true(ops_changed(a, before));
	same(w[0], w[1]);

	for (int j = 0; j < 2; j++)
		testsim_free(w[j]);
}

static void test_kept_rates_match_recomputed(void **state)
{
	(void)state;
	kept_rates_match_recomputed(true);
}

static void test_kept_rates_match_recomputed_unlimited(void **state)
{
	(void)state;
	kept_rates_match_recomputed(false);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixed_point_to_ns),
		cmocka_unit_test(test_kept_rates_match_recomputed),
		cmocka_unit_test(test_kept_rates_match_recomputed_unlimited),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
