/* "Did you mean" (lib/suggest.h): the distance, the threshold, the ties. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "lib/suggest.h"

static void test_distance(void **state)
{
	(void)state;
	assert_int_equal(suggest_distance("small", "small"), 0);
	assert_int_equal(suggest_distance("smal", "small"), 1);     /* a letter left out */
	assert_int_equal(suggest_distance("smalll", "small"), 1);   /* one too many */
	assert_int_equal(suggest_distance("smoll", "small"), 1);    /* one replaced */
	assert_int_equal(suggest_distance("smlal", "small"), 1);    /* two swapped */
	assert_int_equal(suggest_distance("", "abc"), 3);
	char longer[80];
	for (int i = 0; i < 79; i++)
		longer[i] = 'a';
	longer[79] = 0;
	assert_true(suggest_distance(longer, "a") > 100); /* beyond the table: never close */
}

static const char *best(const char *word, const char *const *names)
{
	struct suggest sg;
	suggest_init(&sg, word);
	for (; *names; names++)
		suggest_offer(&sg, *names);
	return suggest_result(&sg);
}

static void test_threshold_and_ties(void **state)
{
	(void)state;
	const char *const cmds[] = { "run", "ab", "validate", "verify", "sweep", NULL };
	assert_string_equal(best("rn", cmds), "run");
	assert_string_equal(best("valdiate", cmds), "validate");
	assert_null(best("xyzzy", cmds));
	assert_null(best("ab", cmds)); /* the word itself is no suggestion */
	const char *const keys[] = { "numa_balancing.scan_size_mb", "numa_balancing.scan_delay_ms", NULL };
	assert_string_equal(best("numa_balancing.scan_sizemb", keys), "numa_balancing.scan_size_mb");
	/* two at one distance: the later one (a newer version) */
	const char *const patches[] = { "single-folio-v1", "single-folio-v2", NULL };
	assert_string_equal(best("single-folio-v3", patches), "single-folio-v2");
	/* a third of the longer word at most: 2 edits in 4 letters is too far */
	const char *const small[] = { "seed", NULL };
	assert_null(best("sexy", small));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_distance),
		cmocka_unit_test(test_threshold_and_ties),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
