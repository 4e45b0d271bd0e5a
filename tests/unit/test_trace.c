/* trace/trace.c: the sched NUMA tracepoints' ten fields packed into one
 * event record and back, at the edges of their ranges, and the
 * --trace-events names (the new ones among "kernel" or not, and listed
 * when a name is unknown). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "trace/trace.h"

static void assert_same_task(struct trace_numa_task a, struct trace_numa_task b)
{
	assert_int_equal(a.pid, b.pid);
	assert_int_equal(a.tgid, b.tgid);
	assert_int_equal(a.ngid, b.ngid);
	assert_int_equal(a.cpu, b.cpu);
	assert_int_equal(a.nid, b.nid);
}

static void test_numa_pair_round_trips(void **state)
{
	(void)state;
	const struct trace_numa_pair in[] = {
		/* a stick without a partner: dst zeros, cpu and nid -1 */
		{ { 1001, 1000, 1003, 7, 1 }, { 0, 0, 0, -1, -1 } },
		/* the largest ids; CPUs up to NR_CPUS_MAX - 1, nodes to 63 */
		{ { INT32_MAX, INT32_MAX - 1, INT32_MAX - 2, 4095, 63 }, { INT32_MAX, 1, INT32_MAX, 4094, 62 } },
		{ { 1, 2, 0, 0, 0 }, { 4, 5, 6, 32767, -32768 } },
	};
	struct trace_buf *t = trace_new(0, UINT64_MAX, TRACE_ALL, 16);
	assert_non_null(t);
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++)
		trace_emit_numa(t, TR_SWAP_NUMA, 100 + i, &in[i]);
	assert_int_equal(t->n, sizeof(in) / sizeof(in[0]));
	for (size_t i = 0; i < t->n; i++) {
		const struct trace_event *e = &t->ev[i];
		assert_int_equal(e->type, TR_SWAP_NUMA);
		assert_int_equal(e->cpu, in[i].src.cpu); /* recorded on the source CPU */
		assert_int_equal(e->pid, in[i].src.pid);
		assert_int_equal(e->ts, 100 + i);
		struct trace_numa_pair out = trace_numa_fields(e);
		assert_same_task(out.src, in[i].src);
		assert_same_task(out.dst, in[i].dst);
	}
	trace_free(t);
}

static void test_event_names_of_the_sched_numa_tracepoints(void **state)
{
	(void)state;
	uint32_t mask;
	char err[1024];
	assert_int_equal(trace_parse_events("sched_move_numa,sched_swap_numa,sched_stick_numa,"
					    "numa_migrate_result", &mask, err, sizeof(err)), 0);
	assert_int_equal(mask, 1u << TR_MOVE_NUMA | 1u << TR_SWAP_NUMA | 1u << TR_STICK_NUMA |
				       1u << TR_NUMA_MIGRATE_RESULT);
	/* the kernel's are kernel tracepoints; numasim's own is not */
	assert_int_equal(trace_parse_events("kernel", &mask, err, sizeof(err)), 0);
	assert_true(mask & 1u << TR_STICK_NUMA);
	assert_false(mask & 1u << TR_NUMA_MIGRATE_RESULT);
	assert_false(mask & 1u << TR_SCAN_PASS);
	/* an unknown name: every name listed */
	assert_int_equal(trace_parse_events("tlb_flush,nosuch", &mask, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'nosuch'"));
	for (int i = 0; i < NR_TRACE_TYPES; i++)
		assert_non_null(strstr(err, trace_type_names[i]));
	assert_int_equal(err[strlen(err) - 1], ')');
	/* a short buffer: cut, still a string */
	char small[48];
	memset(small, 'x', sizeof(small));
	assert_int_equal(trace_parse_events("nosuch", &mask, small, sizeof(small)), -1);
	assert_int_equal(strlen(small), sizeof(small) - 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numa_pair_round_trips),
		cmocka_unit_test(test_event_names_of_the_sched_numa_tracepoints),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
