/* sim/rng.h: rng_log and rng_exp_neg against the C library's log and exp
 * (a few ulps, also next to 1 and at the bottom of the range the draws
 * use), the exponential ziggurat's tables (equal layers, cores inside
 * them), the wedges' acceptance, and the exponential's distribution on
 * fixed seeds: mean, second moment, and the share beyond points from 0.01
 * to past the tail's start.  rng_lnfact against lgamma, and the
 * hypergeometric draw: its support, and its distribution against the
 * exact probabilities (chi-square) on each of its paths. */
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

static void test_log_above_one(void **state)
{
	(void)state;
	for (int k = 2; k < 100000; k += 7)
		expect_close((double)k);
	for (int e = 1; e <= 1000; e++)
		expect_close(ldexp(1.0, e) * 1.37);
}

static void test_lnfact_accuracy(void **state)
{
	(void)state;
	for (uint64_t k = 0; k < 3000000; k = k < 2000 ? k + 1 : k * 11 / 10) {
		double want = lgamma((double)k + 1), got = rng_lnfact(k);
		if (fabs(got - want) > 1e-13 * (1 + want))
			fail_msg("rng_lnfact(%llu) = %.17g, lgamma gives %.17g", (unsigned long long)k,
				 got, want);
	}
}

static void test_hypergeom_support(void **state)
{
	(void)state;
	struct rng r = rng_stream(3, RNG_POOL, 0);
	assert_int_equal(rng_hypergeom(&r, 10, 4, 0), 0);
	assert_int_equal(rng_hypergeom(&r, 10, 0, 6), 0);
	assert_int_equal(rng_hypergeom(&r, 10, 10, 6), 6);
	assert_int_equal(rng_hypergeom(&r, 10, 4, 10), 4);
	for (int i = 0; i < 200000; i++) {
		uint64_t N = 1 + rng_below(&r, 300), K = rng_below(&r, N + 1), n = rng_below(&r, N + 1);
		uint64_t x = rng_hypergeom(&r, N, K, n);
		uint64_t lo = n + K > N ? n + K - N : 0, hi = n < K ? n : K;
		if (x < lo || x > hi)
			fail_msg("hypergeom(%llu, %llu, %llu) = %llu, outside [%llu, %llu]",
				 (unsigned long long)N, (unsigned long long)K, (unsigned long long)n,
				 (unsigned long long)x, (unsigned long long)lo, (unsigned long long)hi);
	}
}

static double hg_pmf(double N, double K, double n, double x)
{
	return exp(lgamma(K + 1) - lgamma(x + 1) - lgamma(K - x + 1) + lgamma(N - K + 1) -
		   lgamma(n - x + 1) - lgamma(N - K - n + x + 1) - lgamma(N + 1) + lgamma(n + 1) +
		   lgamma(N - n + 1));
}

/* Pearson's chi-square over the values expected at least 10 times, less
 * their count (the degrees of freedom, plus one): near 0 when the draws
 * follow the pmf, some standard deviations sqrt(2 dof) above it when
 * they do not. */
static void expect_hypergeom(uint64_t N, uint64_t K, uint64_t n)
{
	enum { DRAWS = 200000, MAXV = 16384 };
	static long seen[MAXV];
	for (int i = 0; i < MAXV; i++)
		seen[i] = 0;
	struct rng r = rng_stream(N * 1000003 + K * 1009 + n, RNG_POOL, 1);
	for (int i = 0; i < DRAWS; i++) {
		uint64_t x = rng_hypergeom(&r, N, K, n);
		assert_true(x < MAXV);
		seen[x]++;
	}
	double chi = 0, mass = 0;
	long counted = 0;
	int cells = 0;
	for (uint64_t x = 0; x < MAXV && x <= n && x <= K; x++) {
		if (n + K > N && x < n + K - N)
			continue;
		double want = DRAWS * hg_pmf((double)N, (double)K, (double)n, (double)x);
		if (want < 10)
			continue;
		chi += (seen[x] - want) * (seen[x] - want) / want;
		mass += want;
		counted += seen[x];
		cells++;
	}
	/* the cells left out, together */
	double rest = DRAWS - mass;
	if (rest >= 10) {
		chi += ((DRAWS - counted) - rest) * ((DRAWS - counted) - rest) / rest;
		cells++;
	}
	double dof = cells - 1;
	if (chi > dof + 6 * sqrt(2 * dof) + 6)
		fail_msg("hypergeom(%llu, %llu, %llu): chi-square %.1f on %g degrees of freedom",
			 (unsigned long long)N, (unsigned long long)K, (unsigned long long)n, chi, dof);
}

static void test_hypergeom_distribution(void **state)
{
	(void)state;
	expect_hypergeom(10, 3, 4);         /* the draws one by one */
	expect_hypergeom(1000, 1, 400);     /* K = 1 */
	expect_hypergeom(1000, 300, 1);     /* n = 1 */
	expect_hypergeom(500, 200, 16);     /* the last one by one */
	expect_hypergeom(500, 16, 200);     /* the same, roles swapped */
	expect_hypergeom(500, 200, 17);     /* the first by inversion */
	expect_hypergeom(100, 70, 30);      /* more marked than not */
	expect_hypergeom(100, 30, 80);      /* more drawn than left */
	expect_hypergeom(100, 60, 90);      /* both */
	expect_hypergeom(80000, 40000, 250); /* a root split of a slice */
	expect_hypergeom(77824, 1000, 5000);
	expect_hypergeom(60000, 20000, 30000); /* wide: a standard deviation of 58 */
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

/* rng_exp_neg against the C library's exp over the range the ziggurat
 * reads it in (0 .. R) and beyond, a few ulps. */
static void test_exp_neg_accuracy(void **state)
{
	(void)state;
	struct rng g = rng_stream(5, RNG_THREAD, 2);
	assert_true(rng_exp_neg(0.0) == 1.0);
	for (int i = 0; i < 200000; i++) {
		double x = i < 100000 ? rng_unit(&g) * RNG_ZIG_R : rng_unit(&g) * 700;
		double want = exp(-x), got = rng_exp_neg(x);
		if (fabs(got - want) > 4 * want * 0x1p-52)
			fail_msg("rng_exp_neg(%a) = %a, exp gives %a", x, got, want);
	}
}

/* The ziggurat's layers: equal areas, from R down to a top at 0, each
 * core inside its layer's rectangle (k[i] / 2^53 = x[i-1] / x[i] < 1). */
static void test_ziggurat_tables(void **state)
{
	(void)state;
	double top = rng_zig.w[1] * 0x1p53; /* x[1] */
	/* the top layer: x[1] (1 - e^-x[1]) = V, so the recursion lands on 0 */
	assert_true(fabs(top * (1 - exp(-top)) - RNG_ZIG_V) < 1e-12);
	assert_true(rng_zig.w[255] * 0x1p53 == RNG_ZIG_R);
	assert_true(rng_zig.k[1] == 0);
	for (int i = 2; i < 256; i++) {
		double xi = rng_zig.w[i] * 0x1p53, xp = rng_zig.w[i - 1] * 0x1p53;
		assert_true(xp < xi);
		assert_true(fabs(xi * (exp(-xp) - exp(-xi)) - RNG_ZIG_V) < 1e-12);
		assert_true(rng_zig.k[i] < (1ull << 53));
		assert_true(fabs((double)rng_zig.k[i] * 0x1p-53 - xp / xi) < 1e-15);
		assert_true(rng_zig.f[i] == rng_exp_neg(xi));
	}
	/* the cores take 97.8% of draws (the share docs/model.md gives) */
	double core = 0;
	for (int i = 0; i < 256; i++)
		core += (double)rng_zig.k[i] * 0x1p-53 / 256;
	assert_true(core > 0.977 && core < 0.979);
	/* the base: its rectangle's area is V, its core ends at R */
	double base = rng_zig.w[0] * 0x1p53;
	assert_true(fabs(base * exp(-RNG_ZIG_R) - RNG_ZIG_V) < 1e-15);
	assert_true(fabs((double)rng_zig.k[0] * 0x1p-53 * base - RNG_ZIG_R) < 1e-12);
}

/* The exponential's shape, not only its mean: the share beyond each of
 * several points (the tail beyond R and a wedge-heavy point included)
 * against e^-x, and a second moment of 2. */
static void test_exp_tail_and_moments(void **state)
{
	(void)state;
	struct rng g = rng_stream(43, RNG_THREAD, 4);
	const int n = 2000000;
	const double at[] = { 0.01, 0.5, 1, 2, 4, 6, RNG_ZIG_R, 9 };
	int above[8] = { 0 };
	double sum2 = 0;
	for (int i = 0; i < n; i++) {
		double x = rng_exp1(&g);
		sum2 += x * x;
		for (int j = 0; j < 8; j++)
			above[j] += x > at[j];
	}
	for (int j = 0; j < 8; j++) {
		double p = exp(-at[j]), se = sqrt(p * (1 - p) / n);
		if (fabs((double)above[j] / n - p) > 5 * se + 1e-7)
			fail_msg("P(X > %g) = %g, want %g (se %g)", at[j], (double)above[j] / n, p, se);
	}
	assert_true(fabs(sum2 / n - 2) < 0.02); /* se: sqrt(20 / n) = 0.003 */
}

/* A draw that lands in a wedge is kept with the chance that a height
 * uniform across its layer falls under e^-x: (e^-x - f[i]) / (f[i-1] -
 * f[i]).  Many streams, the same landing point in layer 128's wedge: the
 * share that returns that point is that chance. */
static void test_wedge_acceptance(void **state)
{
	(void)state;
	const unsigned i = 128;
	uint64_t m = rng_zig.k[i] + ((1ull << 53) - rng_zig.k[i]) / 3; /* in the wedge */
	uint64_t u = (m << 11) | i;
	double x = (double)(int64_t)m * rng_zig.w[i];
	double p = (exp(-x) - rng_zig.f[i]) / (rng_zig.f[i - 1] - rng_zig.f[i]);
	const int n = 40000;
	int kept = 0;
	for (int s = 0; s < n; s++) {
		struct rng g = rng_stream(1000 + (uint64_t)s, RNG_THREAD, 9);
		kept += rng_exp1_slow(&g, u) == x;
	}
	double se = sqrt(p * (1 - p) / n);
	assert_true(p > 0.05 && p < 0.95); /* a point where the answer is not near-certain */
	if (fabs((double)kept / n - p) > 5 * se)
		fail_msg("wedge kept %g of draws, want %g (se %g)", (double)kept / n, p, se);
}

/* rng_unit_below gives rng_unit's verdict !(u >= p) from the integer draw:
 * at the edges (p 0, -0, 1, above 1, NaN, the smallest step), at p on a
 * draw's exact value and one ulp either side, and for random p and draws. */
static void test_unit_below_same_verdict(void **state)
{
	(void)state;
	const double step = 1.0 / 9007199254740992.0;
	const double ps[] = { 0.0, -0.0, -1.0, 1.0, 1.5, step, 2 * step, 0.5, 0.999, 1 - step,
			      NAN };
	const uint64_t ks[] = { 0, 1, 2, 1ull << 52, (1ull << 53) - 2, (1ull << 53) - 1 };
	unsigned checked = 0;
	for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++)
		for (size_t j = 0; j < sizeof(ks) / sizeof(ks[0]); j++, checked++)
			assert_int_equal(ks[j] < rng_unit_below(ps[i]), !((double)ks[j] * step >= ps[i]));
	struct rng r = rng_stream(7, RNG_WORKLOAD, 1);
	for (int n = 0; n < 200000; n++, checked++) {
		uint64_t k = rng_unit_bits(&r);
		double p = rng_unit(&r);
		if (n % 3 == 0) /* p on k's value, or one ulp off it */
			p = nextafter((double)k * step, n % 2 ? 2.0 : -1.0);
		if (n % 3 == 1)
			p = (double)k * step;
		assert_int_equal(k < rng_unit_below(p), !((double)k * step >= p));
	}
	assert_int_equal(checked, 11 * 6 + 200000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_log_accuracy),
		cmocka_unit_test(test_unit_below_same_verdict),
		cmocka_unit_test(test_exp_distribution),
		cmocka_unit_test(test_exp_neg_accuracy),
		cmocka_unit_test(test_ziggurat_tables),
		cmocka_unit_test(test_exp_tail_and_moments),
		cmocka_unit_test(test_wedge_acceptance),
		cmocka_unit_test(test_log_above_one),
		cmocka_unit_test(test_lnfact_accuracy),
		cmocka_unit_test(test_hypergeom_support),
		cmocka_unit_test(test_hypergeom_distribution),
	};
	return cmocka_run_group_tests_name("rng", tests, NULL, NULL);
}
