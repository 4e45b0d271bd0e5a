/* report/mmstat.c: the statistics of `numasim compare` against values
 * worked out by hand, mmtests' edge cases (VMR/Stat.pm), and the loader of
 * numasim result files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <unistd.h>

#include <cmocka.h>

#include "report/mmstat.h"

#define EPS 1e-9

/* 2 4 4 4 5 5 7 9: sum 40, mean 5; squared deviations 9+1+1+1+0+0+4+16 = 32.
 * Sample variance 32/7, so stddev sqrt(32/7) = 2.13808993529939...; the
 * population stddev would be exactly 2. */
static const double v8[] = { 2, 4, 4, 4, 5, 5, 7, 9 };

static void test_mean_min_max(void **state)
{
	(void)state;
	assert_float_equal(mmstat_mean(v8, 8), 5.0, EPS);
	assert_float_equal(mmstat_min(v8, 8), 2.0, EPS);
	assert_float_equal(mmstat_max(v8, 8), 9.0, EPS);
	const double one[] = { -3.5 };
	assert_float_equal(mmstat_mean(one, 1), -3.5, EPS);
	assert_float_equal(mmstat_min(one, 1), -3.5, EPS);
	assert_float_equal(mmstat_max(one, 1), -3.5, EPS);
}

static void test_gmean(void **state)
{
	(void)state;
	const double a[] = { 2, 8 }, b[] = { 1, 10, 100 }, z[] = { 3, 0, 5 }, neg[] = { 4, -1 };
	assert_float_equal(mmstat_gmean(a, 2), 4.0, EPS);
	assert_float_equal(mmstat_gmean(b, 3), 10.0, EPS);
	assert_float_equal(mmstat_gmean(v8, 1), 2.0, EPS);
	assert_float_equal(mmstat_gmean(z, 3), 0.0, EPS);   /* mmtests: the product is 0 */
	assert_true(isnan(mmstat_gmean(neg, 2)));
	assert_true(isnan(mmstat_gmean(a, 0)));
	/* no overflow on many large samples */
	double big[400];
	for (int i = 0; i < 400; i++)
		big[i] = 1e300;
	assert_float_equal(mmstat_gmean(big, 400) / 1e300, 1.0, 1e-9);
}

static void test_sample_stddev_and_coeffvar(void **state)
{
	(void)state;
	assert_float_equal(mmstat_stddev(v8, 8), 2.138089935299395, EPS);
	/* 2.138089935299395 * 100 / 5 */
	assert_float_equal(mmstat_coeffvar(v8, 8), 42.76179870598791, EPS);
	/* {1, 3}: mean 2, deviations 1 and 1, variance 2/1, stddev sqrt(2). */
	const double two[] = { 1, 3 };
	assert_float_equal(mmstat_stddev(two, 2), sqrt(2.0), EPS);
	assert_float_equal(mmstat_coeffvar(two, 2), sqrt(2.0) * 50, EPS);
	/* Constant samples: no spread. */
	const double flat[] = { 7, 7, 7 };
	assert_float_equal(mmstat_stddev(flat, 3), 0.0, EPS);
	assert_float_equal(mmstat_coeffvar(flat, 3), 0.0, EPS);
}

static void test_hmean(void **state)
{
	(void)state;
	/* 3 / (1/1 + 1/2 + 1/4) = 3 / 1.75 */
	const double v[] = { 1, 2, 4 };
	assert_float_equal(mmstat_hmean(v, 3), 1.7142857142857142, EPS);
	const double same[] = { 5, 5 };
	assert_float_equal(mmstat_hmean(same, 2), 5.0, EPS);
	/* Undefined with a zero or negative sample. */
	const double zero[] = { 1, 0, 4 };
	assert_true(isnan(mmstat_hmean(zero, 3)));
	const double neg[] = { 1, -2 };
	assert_true(isnan(mmstat_hmean(neg, 2)));
}

static void test_empty_and_single(void **state)
{
	(void)state;
	const double one[] = { 4 };
	assert_true(isnan(mmstat_mean(one, 0)));
	assert_true(isnan(mmstat_hmean(one, 0)));
	assert_true(isnan(mmstat_min(one, 0)));
	assert_true(isnan(mmstat_max(one, 0)));
	assert_true(isnan(mmstat_stddev(one, 0)));
	/* One sample: no sample stddev, no interval; CoeffVar 0 as in mmtests. */
	assert_true(isnan(mmstat_stddev(one, 1)));
	assert_true(isnan(mmstat_ci_halfwidth(one, 1)));
	assert_float_equal(mmstat_coeffvar(one, 1), 0.0, EPS);
	assert_float_equal(mmstat_coeffvar(one, 0), 0.0, EPS);
	/* Mean 0: CoeffVar 0 rather than a division by zero. */
	const double sym[] = { -1, 1 };
	assert_float_equal(mmstat_coeffvar(sym, 2), 0.0, EPS);
}

static void test_ci_uses_sample_stddev(void **state)
{
	(void)state;
	assert_float_equal(MMSTAT_QNORM_975, 1.959963984540054, 1e-12);
	/* qnorm(0.975) * sqrt(32/7), not divided by sqrt(n). */
	assert_float_equal(mmstat_ci_halfwidth(v8, 8), 4.190579268894389, EPS);
}

static void test_cidiff(void **state)
{
	(void)state;
	/* base {10, 12}: mean 11, stddev sqrt(2), half-width 1.96 * 1.414 = 2.7718
	 * new  {14, 16}: mean 15, the same half-width.
	 * cidiff = 4 / 5.5436 = 0.7216: not significant. */
	const double base[] = { 10, 12 }, near[] = { 14, 16 }, far[] = { 20, 22 };
	double cb = mmstat_ci_halfwidth(base, 2), cn = mmstat_ci_halfwidth(near, 2);
	double cf = mmstat_ci_halfwidth(far, 2);
	assert_float_equal(cb, 1.959963984540054 * sqrt(2.0), EPS);
	double d = mmstat_cidiff(mmstat_mean(near, 2), cn, mmstat_mean(base, 2), cb);
	assert_float_equal(d, 0.7215507904881064, EPS);
	assert_false(fabs(d) > 1);
	/* new {20, 22}: mean 21, cidiff = 10 / 5.5436 = 1.8039: significant. */
	d = mmstat_cidiff(mmstat_mean(far, 2), cf, mmstat_mean(base, 2), cb);
	assert_float_equal(d, 1.8038769762202662, EPS);
	assert_true(fabs(d) > 1);
	/* Sign follows new - base. */
	assert_float_equal(mmstat_cidiff(11, cb, 21, cf), -1.8038769762202662, EPS);
	/* No spread at all: mmtests returns the plain difference. */
	assert_float_equal(mmstat_cidiff(7, 0, 5, 0), 2.0, EPS);
	assert_float_equal(mmstat_cidiff(5, 0, 5, 0), 0.0, EPS);
}

/* t(0.975, df) at real df, against quantiles computed to 40 digits (mpmath:
 * bisection of 1 - I_(df/(df+t^2))(df/2, 1/2) / 2 = 0.975): whole rows of
 * the printed tables, fractional Welch df (2 seeds a side give 1 to 2),
 * both sides of the switch to the 1/df expansion at 1000, and the normal's
 * limit.  1e-11 relative. */
static void test_t975(void **state)
{
	(void)state;
	static const struct {
		double df, q;
	} want[] = {
		{ 1, 12.7062047361747 },   { 1.2, 8.64882651074887 },  { 1.5, 6.01666310442793 },
		{ 1.9, 4.52711807710033 }, { 2, 4.30265272974946 },    { 2.5, 3.57465484200368 },
		{ 3, 3.18244630528371 },   { 5, 2.57058183563632 },    { 7.3, 2.3450667365477 },
		{ 10, 2.22813885198627 },  { 30, 2.04227245630124 },   { 30.5, 2.04086944518632 },
		{ 45, 2.01410338888085 },  { 120, 1.97993040508244 },  { 999.9, 1.96233931864278 },
		{ 1000, 1.96233908082641 }, { 1e6, 1.95996635681411 }, { 1e15, 1.95996398454005 },
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		double q = mmstat_t975(want[i].df);
		if (!(fabs(q - want[i].q) < 1e-11 * want[i].q))
			fail_msg("t(0.975, %g) = %.15g, want %.15g", want[i].df, q, want[i].q);
	}
	/* it falls with df */
	for (double df = 1; df < 2000; df *= 1.1)
		assert_true(mmstat_t975(df * 1.1) < mmstat_t975(df));
	assert_true(isnan(mmstat_t975(0.5)));
	assert_true(isnan(mmstat_t975(NAN)));
}

static void test_welch(void **state)
{
	(void)state;
	double t, df;
	/* {1..5} vs {6..10}: t = 5 / sqrt(0.5 + 0.5) = 5, df = 8 > t(0.975, 8) = 2.306 */
	double sd = mmstat_stddev((double[]){ 1, 2, 3, 4, 5 }, 5);
	assert_int_equal(mmstat_welch(3, sd, 5, 8, sd, 5, &t, &df), 1);
	assert_true(fabs(t - 5) < 1e-9 && fabs(df - 8) < 1e-9);
	/* {1, 3} vs {2, 4}: t = 1 / sqrt(2) at df 2, far from 4.30 */
	sd = sqrt(2);
	assert_int_equal(mmstat_welch(2, sd, 2, 3, sd, 2, &t, &df), 0);
	assert_true(fabs(t - 1 / sqrt(2)) < 1e-9 && fabs(df - 2) < 1e-9);
	/* unequal spreads: df between min(n) - 1 and n_a + n_b - 2 */
	assert_int_equal(mmstat_welch(10, 1, 4, 12, 0.1, 4, &t, &df), 1); /* t 3.98, df 3.06: t(3.06) 3.16 */
	assert_true(df >= 3 && df < 6);
	/* fewer than 2 samples: no test */
	assert_int_equal(mmstat_welch(1, NAN, 1, 5, 1, 3, &t, &df), -1);
	assert_int_equal(mmstat_welch(1, 0, 1, 5, 1, 3, &t, &df), -1);
	/* 2 seeds a side, stddevs 3 and 1: variances of the means 4.5 and 0.5,
	 * df = 25 / 20.5 = 1.22, t(0.975, 1.22) = 8.4 -- a t of 9 is
	 * significant, where a table rounded down to df 1 (12.71) would not
	 * have it */
	assert_int_equal(mmstat_welch(0, 3, 2, 9 * sqrt(5), 1, 2, &t, &df), 1);
	assert_true(fabs(t - 9) < 1e-9 && fabs(df - 25 / 20.5) < 1e-12);
	assert_true(mmstat_t975(df) > 8 && mmstat_t975(df) < 9);
	/* no spread: equal means are not different, different ones are */
	assert_int_equal(mmstat_welch(7, 0, 2, 7, 0, 2, &t, &df), 0);
	assert_int_equal(mmstat_welch(7, 0, 2, 7.5, 0, 2, &t, &df), 1);
}

static void test_pdiff_higher_is_better(void **state)
{
	(void)state;
	assert_float_equal(mmstat_pdiff(110, 100), 10.0, EPS);
	assert_float_equal(mmstat_pdiff(90, 100), -10.0, EPS);
	assert_float_equal(mmstat_pdiff(150, 120), 25.0, EPS);
	assert_float_equal(mmstat_pdiff(100, 100), 0.0, EPS);
	/* mmtests' edge cases */
	assert_float_equal(mmstat_pdiff(0, 100), 0.0, EPS);
	assert_float_equal(mmstat_pdiff(5, 0), 100.0, EPS);
}

static void test_pndiff_lower_is_better(void **state)
{
	(void)state;
	assert_float_equal(mmstat_pndiff(90, 100), 10.0, EPS);
	assert_float_equal(mmstat_pndiff(110, 100), -10.0, EPS);
	/* 100 - 2345.67 * 100 / 12345.67 = 81.0000...  */
	assert_float_equal(mmstat_pndiff(2345.67, 12345.67), 100 - 234567.0 / 12345.67, EPS);
	assert_float_equal(mmstat_pndiff(100, 100), 0.0, EPS);
	assert_float_equal(mmstat_pndiff(0, 100), 100.0, EPS);
	assert_float_equal(mmstat_pndiff(5, 0), -99.0, EPS);
}

/* ---- result files -------------------------------------------------------- */

static char *write_tmp(const char *name, const char *text)
{
	const char *dir = getenv("TMPDIR");
	char *path = malloc(4096);
	assert_non_null(path);
	snprintf(path, 4096, "%s/mmstat-%ld-%s", dir && *dir ? dir : "/tmp", (long)getpid(), name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static int load(const char *name, const char *text, char *err, size_t errlen)
{
	char *path = write_tmp(name, text);
	json_t *o = NULL;
	int kind = mmstat_load_result(path, &o, err, errlen);
	assert_true(kind ? o != NULL : o == NULL);
	json_decref(o);
	unlink(path);
	free(path);
	return kind;
}

static void test_load_result_kinds(void **state)
{
	(void)state;
	char err[512] = "";
	assert_int_equal(load("run.json",
			      "{\"scenario\": \"small\", \"kernel\": \"v7.3\", \"seed\": 1,"
			      " \"vmstat\": {\"numa_pte_updates\": 5},"
			      " \"timeseries\": {\"t_s\": [1], \"tlb_irqs_per_s\": [3.0]}}",
			      err, sizeof(err)),
			 MMSTAT_RESULT_RUN);
	assert_int_equal(load("ab.json",
			      "{\"scenario\": \"small\", \"pairs\": 2,"
			      " \"kernels\": {\"v7.3\": {\"throughput_loss\": [0.1, 0.2]}}}",
			      err, sizeof(err)),
			 MMSTAT_RESULT_AB);

	assert_int_equal(load("other.json", "{\"kernel\": \"v7.3\"}", err, sizeof(err)), 0);
	assert_non_null(strstr(err, "not a numasim result"));
	assert_int_equal(load("array.json", "[1, 2]", err, sizeof(err)), 0);
	assert_non_null(strstr(err, "not a numasim result"));
	assert_int_equal(load("ab-empty.json", "{\"pairs\": 2, \"kernels\": {}}", err, sizeof(err)), 0);
	assert_int_equal(load("bad.json", "{\"kernel\": ", err, sizeof(err)), 0);
	assert_non_null(strstr(err, "not JSON"));

	json_t *o = (json_t *)1;
	assert_int_equal(mmstat_load_result("/nonexistent/x.json", &o, err, sizeof(err)), 0);
	assert_null(o);
	assert_non_null(strstr(err, "/nonexistent/x.json"));
}

/* The schema check: a field of the wrong type, range or length is refused
 * with the file and the field's path; null where numasim writes it passes. */
static void test_load_result_schema(void **state)
{
	(void)state;
	char err[512] = "";
	static const char head[] = "{\"scenario\": \"small\", \"kernel\": \"v7.3\", \"vmstat\": {},";
	char text[512];
	snprintf(text, sizeof(text), "%s \"timeseries\": {\"t_s\": [1, 2], \"pass_ms\": [null, 3]}}", head);
	assert_int_equal(load("ok.json", text, err, sizeof(err)), MMSTAT_RESULT_RUN);
	snprintf(text, sizeof(text), "%s \"timeseries\": {\"t_s\": [1, 2], \"pass_ms\": [3]}}", head);
	assert_int_equal(load("short.json", text, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "short.json: timeseries.pass_ms: 1 values, expected 2"));
	snprintf(text, sizeof(text), "%s \"timeseries\": {\"t_s\": [1]}, \"seed\": -1}", head);
	assert_int_equal(load("seed.json", text, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "seed.json: seed: -1 is out of range"));
	snprintf(text, sizeof(text), "%s \"timeseries\": {\"t_s\": [1], \"x\": [1e308]}}", head);
	assert_int_equal(load("huge.json", text, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "huge.json: timeseries.x[0]: 1e+308 is out of range"));
	assert_int_equal(load("ab.json",
			      "{\"pairs\": 2, \"kernels\": {\"v7.3\": {\"throughput_loss\": [0.1, \"x\"]}}}",
			      err, sizeof(err)),
			 0);
	assert_non_null(strstr(err, "kernels.v7.3.throughput_loss[1]: expected a number or null, got a string"));
}

static void test_json_samples(void **state)
{
	(void)state;
	json_t *a = json_loads("[0, 1.5, null, 2, \"x\", 0.0, 3]", 0, NULL);
	double v[8];
	assert_non_null(a);
	size_t n = mmstat_json_samples(a, v, 8, false);
	assert_int_equal(n, 5);
	assert_float_equal(v[0], 0, EPS);
	assert_float_equal(v[1], 1.5, EPS);
	assert_float_equal(v[2], 2, EPS);
	assert_float_equal(v[3], 0, EPS);
	assert_float_equal(v[4], 3, EPS);
	n = mmstat_json_samples(a, v, 8, true);
	assert_int_equal(n, 3);
	assert_float_equal(v[0], 1.5, EPS);
	assert_float_equal(v[2], 3, EPS);
	assert_int_equal(mmstat_json_samples(a, v, 2, false), 2);
	assert_int_equal(mmstat_json_samples(NULL, v, 8, false), 0);
	json_decref(a);
}

static void test_file_stem(void **state)
{
	(void)state;
	char b[64];
	mmstat_file_stem("dir/sub/run-a.json", b, sizeof(b));
	assert_string_equal(b, "run-a");
	mmstat_file_stem("plain", b, sizeof(b));
	assert_string_equal(b, "plain");
	mmstat_file_stem("x.JSON.txt", b, sizeof(b));
	assert_string_equal(b, "x.JSON.txt");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mean_min_max),
		cmocka_unit_test(test_sample_stddev_and_coeffvar),
		cmocka_unit_test(test_hmean),
		cmocka_unit_test(test_empty_and_single),
		cmocka_unit_test(test_ci_uses_sample_stddev),
		cmocka_unit_test(test_cidiff),
		cmocka_unit_test(test_gmean),
		cmocka_unit_test(test_t975),
		cmocka_unit_test(test_welch),
		cmocka_unit_test(test_pdiff_higher_is_better),
		cmocka_unit_test(test_pndiff_lower_is_better),
		cmocka_unit_test(test_load_result_kinds),
		cmocka_unit_test(test_load_result_schema),
		cmocka_unit_test(test_json_samples),
		cmocka_unit_test(test_file_stem),
	};
	return cmocka_run_group_tests_name("mmstat", tests, NULL, NULL);
}
