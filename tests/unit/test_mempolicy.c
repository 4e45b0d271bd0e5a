/* Memory policies at first touch (mm/mempolicy.c): the node each policy
 * asks for, and the page allocator's fallback when that node is full. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "linux/mm.h"
#include "unit/helpers/testsim.h"

#define mk testsim_mk

static struct first_touch_policy pol(enum first_touch mode, uint64_t nodes)
{
	struct first_touch_policy p = { .mode = mode, .nodes = nodes };
	return p;
}

static void test_each_policy_first_touch_node(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_X86_IPI);
	struct first_touch_policy local = pol(FT_LOCAL, 0), remote = pol(FT_REMOTE, 0);
	struct first_touch_policy il = pol(FT_INTERLEAVE, 0), bind1 = pol(FT_BIND, 2);
	struct first_touch_policy bind01 = pol(FT_BIND, 3), pref0 = pol(FT_PREFERRED, 1);
	struct first_touch_policy w = pol(FT_WEIGHTED, 3);
	w.weight[0] = 3;
	w.weight[1] = 1;
	assert_int_equal(mpol_first_touch_node(&s->m, &local, 1, 7), 1);
	assert_int_equal(mpol_first_touch_node(&s->m, &remote, 1, 7), 0);
	assert_int_equal(mpol_first_touch_node(&s->m, &il, 1, 6), 0);
	assert_int_equal(mpol_first_touch_node(&s->m, &il, 1, 7), 1);
	assert_int_equal(mpol_first_touch_node(&s->m, &bind1, 0, 7), 1);
	/* bind to both: the local node first */
	assert_int_equal(mpol_first_touch_node(&s->m, &bind01, 0, 7), 0);
	assert_int_equal(mpol_first_touch_node(&s->m, &bind01, 1, 7), 1);
	assert_int_equal(mpol_first_touch_node(&s->m, &pref0, 1, 7), 0);
	/* weighted 3:1: chunks 0-2 on node 0, chunk 3 on node 1, then again */
	int got[8];
	for (int c = 0; c < 8; c++)
		got[c] = mpol_first_touch_node(&s->m, &w, 0, (uint64_t)c);
	int want[8] = { 0, 0, 0, 1, 0, 0, 0, 1 };
	assert_memory_equal(got, want, sizeof(got));
}

static void test_default_policy_falls_back_to_next_node(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_X86_IPI);
	struct first_touch_policy local = pol(FT_LOCAL, 0);
	s->node_free_pages[0] = 2;
	assert_int_equal(alloc_pages_policy(s, &local, 0, 2), 0);
	assert_int_equal(s->node_free_pages[0], 0);
	uint64_t free1 = s->node_free_pages[1];
	assert_int_equal(alloc_pages_policy(s, &local, 0, 1), 1); /* node 0 full: node 1 */
	assert_int_equal(s->node_free_pages[1], free1 - 1);
}

static void test_bind_does_not_fall_back(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_X86_IPI);
	struct first_touch_policy bind0 = pol(FT_BIND, 1);
	s->node_free_pages[0] = 0;
	uint64_t free1 = s->node_free_pages[1];
	assert_int_equal(alloc_pages_policy(s, &bind0, 0, 1), -1);
	assert_int_equal(s->node_free_pages[1], free1);
}

/* zone_statistics: hit where the allocation preferred, else a miss there
 * and a foreign on the preferred node; local or other by the allocating
 * CPU's node; in pages.  The interleave hit counts allocations. */
static void test_zone_statistics(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_X86_IPI);
	uint64_t before[2][NR_NUMA_STAT_ITEMS];
	for (int n = 0; n < 2; n++)
		for (int i = 0; i < NR_NUMA_STAT_ITEMS; i++)
			before[n][i] = s->node_numa[n * NR_NUMA_STAT_ITEMS + i];
#define D(n, i) (s->node_numa[(n) * NR_NUMA_STAT_ITEMS + (i)] - before[n][i])
	zone_statistics(s, 0, 0, 0, 4);    /* preferred 0, on 0, from node 0 */
	zone_statistics(s, 0, 1, 0, 512);  /* spilled to 1, from node 0 */
	zone_statistics(s, 1, 1, 0, 1);    /* asked for 1, got 1, from node 0 */
	count_numa_interleave_hit(s, 1);
	assert_int_equal(D(0, NUMA_HIT), 4);
	assert_int_equal(D(0, NUMA_LOCAL), 4);
	assert_int_equal(D(0, NUMA_MISS), 0);
	assert_int_equal(D(0, NUMA_FOREIGN), 512);
	assert_int_equal(D(1, NUMA_MISS), 512);
	assert_int_equal(D(1, NUMA_HIT), 1);
	assert_int_equal(D(1, NUMA_OTHER), 513);
	assert_int_equal(D(1, NUMA_LOCAL), 0);
	assert_int_equal(D(1, NUMA_FOREIGN), 0);
	assert_int_equal(D(1, NUMA_INTERLEAVE_HIT), 1);
	assert_int_equal(D(0, NUMA_INTERLEAVE_HIT), 0);
#undef D
	/* the names are the kernel's vmstat_text */
	assert_string_equal(numa_stat_names[NUMA_INTERLEAVE_HIT], "numa_interleave");
	assert_string_equal(numa_stat_names[NUMA_OTHER], "numa_other");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_each_policy_first_touch_node, testsim_teardown),
		cmocka_unit_test_teardown(test_zone_statistics, testsim_teardown),
		cmocka_unit_test_teardown(test_default_policy_falls_back_to_next_node, testsim_teardown),
		cmocka_unit_test_teardown(test_bind_does_not_fall_back, testsim_teardown),
	};
	return cmocka_run_group_tests_name("mempolicy", tests, NULL, NULL);
}
