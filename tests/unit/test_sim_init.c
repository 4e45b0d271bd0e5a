/* sim_init's failure path: whatever it built is freed (it leaked ~20 KiB
 * when the workload did not fit), and sim_free after it is harmless. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kernel/sim.h"

static void test_failed_init_frees_everything(void **state)
{
	(void)state;
	struct sim *s = calloc(1, sizeof(*s));
	char err[256];
	assert_non_null(s);
	machine_defaults(&s->m);
	s->m.nr_sockets = 2;
	s->m.nodes_per_socket = 1;
	s->m.cores_per_node = 2;
	s->m.threads_per_core = 1;
	s->m.mem_per_node_mib = 1; /* 2 x 256 pages for a 2048-page workload */
	assert_null(machine_finish(&s->m));
	assert_int_equal(kernel_config_parse("v7.3", &s->k, err, sizeof(err)), 0);
	s->t.numa_balancing = 1;
	s->t.scan_size_mb = 256;
	workload_defaults(&s->w.p);
	s->w.p.threads = 4;
	s->w.p.memory_gib = 8.0 / 1024;
	s->seed = 1;
	s->duration_ns = NSEC_PER_SEC;
	assert_int_equal(sim_init(s, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "memory"));
	assert_null(s->cpus);
	assert_null(s->tasks);
	assert_null(s->mms);
	assert_null(s->stores);
	assert_null(s->node_free_pages);
	assert_null(s->node_numa);
	assert_null(s->ts);
	sim_free(s); /* callers may still call it */
	free(s);
}

/* The migration calls' records grow with the calls made (a float-to-int
 * cast of the schedule once sized them up front: 41 GB for
 * migrate_every_s = 1e-4 over a day); a count past what an int can double
 * stops the run as out of memory, never overflows. */
static void test_call_records_grow(void **state)
{
	(void)state;
	struct sim *s = calloc(1, sizeof(*s));
	assert_non_null(s);
	for (int i = 0; i < 1000; i++)
		sim_record_call(s, &(struct call_record){ .start_ns = (uint64_t)i, .moved = (uint64_t)i * 2 });
	assert_false(s->calls_oom);
	assert_int_equal(s->nr_calls, 1000);
	assert_int_equal(s->max_calls, 1024);
	for (int i = 0; i < 1000; i++) {
		assert_int_equal(s->calls[i].start_ns, (uint64_t)i);
		assert_int_equal(s->calls[i].moved, (uint64_t)i * 2);
	}
	free(s->calls);
	s->calls = NULL;
	s->nr_calls = s->max_calls = INT_MAX / 2 + 1;
	sim_record_call(s, &(struct call_record){ 0 });
	assert_true(s->calls_oom);
	assert_true(s->stop);
	assert_int_equal(s->nr_calls, INT_MAX / 2 + 1);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_failed_init_frees_everything),
		cmocka_unit_test(test_call_records_grow),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
