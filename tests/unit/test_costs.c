/* The cost model's shapes: the initiator's IPI round against targets,
 * sockets and rounds in flight (kernel/smp.h), and the refill a full flush
 * costs against the TLB's size and the workload's reuse
 * (workload/tlb_reuse.h). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "asm/tlbflush.h"
#include "kernel/smp.h"
#include "linux/mm.h"
#include "machine/machine.h"
#include "unit/helpers/testsim.h"
#include "workload/access.h"
#include "workload/tlb_reuse.h"
#include "workload/workload.h"

static struct cost_model defaults(void)
{
	struct machine m;
	machine_defaults(&m);
	return m.cost;
}

/* ---- the IPI round ------------------------------------------------------- */

static void test_round_grows_with_targets_more_across_sockets(void **state)
{
	(void)state;
	struct cost_model c = defaults();
	double last = 0;
	for (int n = 1; n <= 512; n *= 2) {
		double near = smp_call_round_ns(&c, n, 0, 0, 0);
		double far = smp_call_round_ns(&c, 0, n, 0, 0);
		double half = smp_call_round_ns(&c, n / 2.0, n / 2.0, 0, 0);
		assert_true(near > last);
		assert_true(far > near);
		assert_true(half > near && half < far);
		last = near;
	}
	/* a round's start-up is there with one target: not a line through 0 */
	assert_true(smp_call_round_ns(&c, 1, 0, 0, 0) > 2 * c.ipi_send_per_cpu_ns);
}

static void test_round_waits_for_queued_callbacks(void **state)
{
	(void)state;
	struct cost_model c = defaults();
	double alone = smp_call_round_ns(&c, 10, 10, 0, 0);
	assert_true(smp_call_round_ns(&c, 10, 10, 3, 0) - alone == 3 * c.ipi_callback_ns);
	/* and for the flush each target does */
	assert_true(smp_call_round_ns(&c, 10, 10, 0, 100) - alone == 100);
}

static void test_rounds_in_flight_overlap_and_end(void **state)
{
	(void)state;
	struct smp_inflight f;
	struct cpumask a = { { 0 } }, b = { { 0 } };
	int saved = nr_cpu_words;
	nr_cpu_words = 2;
	assert_int_equal(smp_inflight_init(&f, 128), 0);
	cpumask_set_cpu(1, &a);
	cpumask_set_cpu(70, &a);
	cpumask_set_cpu(2, &b);
	assert_int_equal(smp_rounds_in_flight(&f, 0, &a, 100), 0);
	smp_round_done(&f, 0, &a, 200);
	/* CPU 5's round to CPU 70 overlaps CPU 0's until 200 */
	struct cpumask c70 = { { 0 } };
	cpumask_set_cpu(70, &c70);
	assert_int_equal(smp_rounds_in_flight(&f, 5, &c70, 150), 1);
	/* a mask it does not reach, or a time after it ended, sees nothing */
	assert_int_equal(smp_rounds_in_flight(&f, 5, &b, 150), 0);
	smp_round_done(&f, 5, &c70, 300);
	assert_int_equal(smp_rounds_in_flight(&f, 6, &c70, 250), 1);
	assert_int_equal(smp_rounds_in_flight(&f, 6, &c70, 300), 0);
	/* an initiator never waits for its own round */
	smp_round_done(&f, 6, &c70, 400);
	assert_int_equal(smp_rounds_in_flight(&f, 6, &c70, 350), 0);
	smp_inflight_free(&f);
	nr_cpu_words = saved;
}

/* End to end on the 4-CPU world: a round to the same CPUs while another is
 * in flight waits one callback more; after it ended, none. */
static double round_wait(struct sim *s, int task, uint64_t now)
{
	int cpu = s->tasks[task].cpu;
	double before = engine_cost(&s->e.acct[cpu], COST_FLUSH_WAIT);
	testsim_enter(s, task, now);
	flush_tlb_mm(&s->mms[0]);
	return engine_cost(&s->e.acct[cpu], COST_FLUSH_WAIT) - before;
}

static void test_concurrent_initiators_wait_longer(void **state)
{
	struct sim *s = testsim_mk(state, "v7.3", FLUSH_X86_IPI);
	uint64_t t = NSEC_PER_SEC;
	assert_true(s->tasks[0].cpu != s->tasks[1].cpu);
	double a = round_wait(s, 0, t);
	double b_behind_a = round_wait(s, 1, t);     /* while task 0's round is in flight */
	double b_alone = round_wait(s, 1, 3 * t);
	double a_alone = round_wait(s, 0, 5 * t);
	assert_true(a > 0);
	assert_true(fabs(b_behind_a - b_alone - s->m.cost.ipi_callback_ns) < 1e-6);
	assert_true(fabs(a_alone - a) < 1e-6);
}

/* ---- the refill after a full flush -------------------------------------- */

static double uniform(double pages, double tlb)
{
	struct reuse_class c = { pages, 1 / pages };
	return tlb_reuse_after_flush(&c, 1, tlb);
}

static void test_refill_full_when_it_fits_zero_without_reuse(void **state)
{
	(void)state;
	assert_true(uniform(1000, 1536) == 1000);
	assert_true(uniform(1536, 1536) == 1536);
	/* no reuse: a set the TLB holds nothing of */
	assert_true(uniform(1e12, 1536) < 1e-3);
	/* a large uniform set: E^2 / 2N (the seed's slice: ~15 entries) */
	double r = uniform(77824, 1536);
	assert_true(fabs(r - 1536.0 * 1536 / 2 / 77824) < 0.05 * r);
	/* monotone: the larger the set, the less is reused */
	double last = 1536;
	for (double n = 2048; n < 1e8; n *= 3) {
		double x = uniform(n, 1536);
		assert_true(x < last);
		last = x;
	}
	/* and the bigger the TLB, the more */
	assert_true(uniform(77824, 3072) > uniform(77824, 1536));
}

static void test_refill_of_a_hot_set_that_fits(void **state)
{
	(void)state;
	/* 90% of the touches on 1,000 pages, the rest over a million */
	struct reuse_class c[2] = { { 1000, 0.9 / 1000 }, { 1e6, 0.1 / 1e6 } };
	double r = tlb_reuse_after_flush(c, 2, 1536);
	assert_true(r > 800 && r < 1536);
}

static double pattern(int access, double shape, double pmd)
{
	struct workload_params p;
	workload_defaults(&p);
	p.hot_fraction = 0;
	p.hot_access_share = 0;
	p.access = access;
	p.access_shape = shape;
	p.access_set = 1;
	/* pmbench's 32 GiB map, shared, no slices */
	return workload_tlb_reuse(&p, 0, 8u << 20, pmd, 1536);
}

static void test_refill_by_access_pattern(void **state)
{
	(void)state;
	double u = pattern(ACCESS_UNIFORM, 0, 0);
	double n = pattern(ACCESS_NORMAL, (8u << 20) / 8.0, 0);
	double p = pattern(ACCESS_PARETO, 1.161, 0);
	print_message("reuse after a full flush, 32 GiB, 1536 entries: uniform %.2f normal %.2f "
		      "pareto %.1f\n", u, n, p);
	assert_true(u < 1);
	assert_true(n > u && n < 10);
	assert_true(p > n);
	/* mapped by 2 MiB PMDs, the same memory is 16,384 entries: more reuse */
	assert_true(pattern(ACCESS_UNIFORM, 0, 1) > 10 * u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_grows_with_targets_more_across_sockets),
		cmocka_unit_test(test_round_waits_for_queued_callbacks),
		cmocka_unit_test(test_rounds_in_flight_overlap_and_end),
		cmocka_unit_test_teardown(test_concurrent_initiators_wait_longer, testsim_teardown),
		cmocka_unit_test(test_refill_full_when_it_fits_zero_without_reuse),
		cmocka_unit_test(test_refill_of_a_hot_set_that_fits),
		cmocka_unit_test(test_refill_by_access_pattern),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
