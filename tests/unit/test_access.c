/* access_table_weight (workload/access.c): the bounded Pareto's table
 * weights stay finite and ordered at the shapes where 1 - set^-alpha
 * loses every digit (alpha below ~1e-16) and over a one-page set, where
 * the release build once divided 0 by 0 (issue 28). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "workload/access.h"
#include "workload/workload.h"

static struct workload_params pareto(double alpha, double set_share)
{
	struct workload_params p;
	workload_defaults(&p);
	p.access = ACCESS_PARETO;
	p.access_shape = alpha;
	p.access_set = set_share;
	return p;
}

/* The first table is the densest: it weighs ACCESS_WEIGHT_MAX; the rest
 * fall off, never to 0 inside the set. */
static void check_decreasing(const struct workload_params *p, uint64_t region)
{
	uint32_t prev = access_table_weight(p, 0, region);
	assert_int_equal(prev, ACCESS_WEIGHT_MAX);
	for (uint64_t j = 1; j < region / 512; j++) {
		uint32_t w = access_table_weight(p, j, region);
		assert_true(w >= 1);
		assert_true(w <= prev);
		prev = w;
	}
}

static void test_pareto_ordinary_alpha(void **state)
{
	(void)state;
	struct workload_params p = pareto(1.161, 1);
	check_decreasing(&p, 64 * 512);
}

/* alpha -> 0 is log-uniform over [1, set]: 1e-300 and 1e-17 give the same
 * weights as each other, and close to 1e-9's (which still has digits). */
static void test_pareto_tiny_alpha_is_the_limit(void **state)
{
	(void)state;
	const uint64_t region = 64 * 512;
	struct workload_params a = pareto(1e-300, 1), b = pareto(1e-17, 1), c = pareto(1e-9, 1);
	check_decreasing(&a, region);
	check_decreasing(&b, region);
	for (uint64_t j = 0; j < region / 512; j++) {
		uint32_t wa = access_table_weight(&a, j, region);
		assert_int_equal(wa, access_table_weight(&b, j, region));
		double wc = access_table_weight(&c, j, region);
		assert_true(fabs(wc - wa) <= 1 + 1e-6 * wa);
	}
	/* log-uniform: table 1 against table 0, ln(1025/513) / ln(513) */
	double want = log(1025.0 / 513.0) / log(513.0) / 512 * ACCESS_WEIGHT_MAX * 512;
	assert_true(fabs(access_table_weight(&a, 1, region) - want) <= 1);
}

/* A set of one page (access_set far below a page): table 0 holds all the
 * mass, every other table none. */
static void test_pareto_one_page_set(void **state)
{
	(void)state;
	const uint64_t region = 8 * 512;
	struct workload_params p = pareto(1, 1e-9);
	assert_int_equal(access_table_weight(&p, 0, region), ACCESS_WEIGHT_MAX);
	for (uint64_t j = 1; j < 8; j++)
		assert_int_equal(access_table_weight(&p, j, region), 0);
	p.access = ACCESS_NORMAL;
	p.access_shape = 1e-300;
	assert_int_equal(access_table_weight(&p, 0, region), ACCESS_WEIGHT_MAX);
	assert_int_equal(access_table_weight(&p, 1, region), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pareto_ordinary_alpha),
		cmocka_unit_test(test_pareto_tiny_alpha_is_the_limit),
		cmocka_unit_test(test_pareto_one_page_set),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
