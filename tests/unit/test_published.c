/* The published figures and their verdict rule (report/published.h): a
 * model min-max is "in" when it overlaps the published range widened by
 * 10% of its ends (headline) or 25% (instrumentation). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "report/published.h"

static const struct published headline = { "v7.3", FIG_IRQ_PER_MIGRATED, 202, 210, NULL, PUB_HEADLINE, "s" };
static const struct published instrument = { "v7.3", FIG_PASS_WALL_SHARE, 0.09, 0.12, "9-12%", PUB_INSTRUMENT, "s" };
static const struct published point = { "v7.3", FIG_GATHER_MS, 90, 90, "~90 ms", PUB_INSTRUMENT, "s" };

/* Overlap, not containment: a model range that straddles an end is in. */
static void test_overlap(void **state)
{
	(void)state;
	assert_true(published_in(&headline, 205, 206));  /* inside */
	assert_true(published_in(&headline, 150, 190));  /* reaches in from below */
	assert_true(published_in(&headline, 225, 300));  /* from above */
	assert_true(published_in(&headline, 100, 400));  /* around it */
	assert_false(published_in(&headline, 150, 181)); /* below */
	assert_false(published_in(&headline, 232, 300)); /* above */
	assert_false(published_in(&headline, NAN, NAN)); /* no model value */
}

/* Headline: each end moves out by 10% of itself (calibration.sh: 181.8-231). */
static void test_headline_widening(void **state)
{
	(void)state;
	double lo, hi;
	published_tolerated(&headline, &lo, &hi);
	assert_float_equal(lo, 181.8, 1e-9);
	assert_float_equal(hi, 231.0, 1e-9);
	assert_true(published_in(&headline, 181.8, 181.8));
	assert_false(published_in(&headline, 181.7, 181.79));
	assert_true(published_in(&headline, 231, 231));
	assert_false(published_in(&headline, 231.01, 232));
	/* a negative end (a gain) widens outwards too */
	struct published neg = headline;
	neg.lo = -0.02;
	neg.hi = 0.01;
	published_tolerated(&neg, &lo, &hi);
	assert_float_equal(lo, -0.022, 1e-12);
	assert_float_equal(hi, 0.011, 1e-12);
	assert_string_equal(published_tolerance_name(&headline), "10%");
}

/* Instrumentation: 25% of the range's ends (9-12% -> 6.75-15%). */
static void test_quarter_rule(void **state)
{
	(void)state;
	double lo, hi;
	published_tolerated(&instrument, &lo, &hi);
	assert_float_equal(lo, 0.0675, 1e-12);
	assert_float_equal(hi, 0.15, 1e-12);
	assert_true(published_in(&instrument, 0.068, 0.07));
	assert_false(published_in(&instrument, 0.05, 0.067));
	assert_false(published_in(&instrument, 0.151, 0.2));
	assert_string_equal(published_tolerance_name(&instrument), "25%");
}

/* One published value ("~90 ms"): lo = hi, within 25% of it either way. */
static void test_single_value(void **state)
{
	(void)state;
	assert_true(published_in(&point, 67.5, 67.5));
	assert_true(published_in(&point, 112.5, 120));
	assert_false(published_in(&point, 60, 67.4));
	assert_false(published_in(&point, 112.6, 120));
	char buf[32];
	published_format(&point, buf, sizeof(buf));
	assert_string_equal(buf, "~90 ms");
	published_format(&headline, buf, sizeof(buf)); /* no text: the range as the figure */
	assert_string_equal(buf, "202-210");
}

/* A value published for one kernel only ("- | ~96%"): that kernel has a
 * row, the other none, in any spelling of the kernel. */
static void test_one_sided(void **state)
{
	(void)state;
	const struct published *p = published_find(FIG_PROTNONE_SHARE, "v7.3+single-folio-v2");
	assert_non_null(p);
	assert_float_equal(p->lo, 0.96, 1e-12);
	assert_true(published_in(p, 1.0, 1.0));
	assert_null(published_find(FIG_PROTNONE_SHARE, "v7.3"));
	assert_non_null(published_find(FIG_SCANNER_FLUSHES_55S, "v7.3"));
	assert_null(published_find(FIG_SCANNER_FLUSHES_55S, "v7.3+single-folio-v2"));
}

/* No published value: a figure the series never gave, a kernel it never
 * ran, a name that is no kernel. */
static void test_none(void **state)
{
	(void)state;
	assert_null(published_find(FIG_REFILL_CYCLES, "v7.3"));
	assert_null(published_find(FIG_LOSS, "v5.15"));
	assert_null(published_find(FIG_LOSS, "no-such-kernel"));
	assert_non_null(published_find(FIG_LOSS, "v7.3"));
}

/* The data as the seed table prints it: lo <= hi, units of the JSON
 * (shares as fractions), a text for every instrumentation row. */
static void test_rows(void **state)
{
	(void)state;
	assert_int_equal(nr_published_rows, 18);
	for (size_t i = 0; i < nr_published_rows; i++) {
		const struct published *p = &published_rows[i];
		assert_true(p->lo <= p->hi);
		assert_true((p->tol == PUB_HEADLINE) == (p->text == NULL));
		assert_non_null(strstr(p->source, "nothing to batch"));
		assert_ptr_equal(published_find(p->fig, p->kernel), p);
		if (!strcmp(ab_figures[p->fig].unit, "%"))
			assert_true(p->hi <= 1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_overlap),
		cmocka_unit_test(test_headline_widening),
		cmocka_unit_test(test_quarter_rule),
		cmocka_unit_test(test_single_value),
		cmocka_unit_test(test_one_sided),
		cmocka_unit_test(test_none),
		cmocka_unit_test(test_rows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
