/* sim/rng.h: rng_log against the C library's log (a few ulps, also next to
 * 1 and at the bottom of the range rng_exp uses), and rng_exp's
 * distribution on a fixed seed: mean, and the share above the mean
 * (e^-1). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>

#include "sim/rng.h"

static void expect_close(double x)
{
	double want = log(x), got = rng_log(x);
	double tol = 4 * 0x1p-52 * fabs(want);
	if (fabs(got - want) > tol)
		fail_msg("rng_log(%a) = %a, log gives %a", x, got, want);
}

static void test_log_accuracy(void **state)
{
	(void)state;
	expect_close(1.0);
	assert_true(rng_log(1.0) == 0.0);
	for (int k = 1; k < 2000; k++) {
		expect_close(1.0 - k * 0x1p-53);   /* 1 - a small draw */
		expect_close(k * 0x1p-53);         /* 1 - a draw near 1 */
		expect_close(ldexp(1.0, -k % 54)); /* powers of two */
	}
	double r = 0x1.6a09e667f3bcdp-1; /* sqrt(1/2), where k changes */
	for (int d = -50; d <= 50; d++) {
		expect_close(r + d * 0x1p-53);
		expect_close(2 * r + d * 0x1p-52);
	}
	struct rng g = rng_stream(7, RNG_THREAD, 1);
	for (int i = 0; i < 200000; i++)
		expect_close(1.0 - rng_unit(&g));
}

static void test_exp_distribution(void **state)
{
	(void)state;
	struct rng g = rng_stream(42, RNG_THREAD, 3);
	const int n = 400000;
	double sum = 0;
	int above = 0;
	for (int i = 0; i < n; i++) {
		double x = rng_exp(&g, 2.5);
		assert_true(x >= 0);
		sum += x;
		above += x > 2.5;
	}
	/* standard errors: 2.5 / sqrt(n) = 0.004 and sqrt(p(1-p)/n) = 0.0008 */
	assert_true(fabs(sum / n - 2.5) < 0.02);
	assert_true(fabs((double)above / n - exp(-1.0)) < 0.004);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_log_accuracy),
		cmocka_unit_test(test_exp_distribution),
	};
	return cmocka_run_group_tests_name("rng", tests, NULL, NULL);
}
