/* sim/timerq.c: pop order by (time, id), re-arming (also of the timer just
 * popped), cancelling, timers armed before the last time popped, and a
 * randomized comparison with a reference (fixed seed). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "sim/timerq.h"

static int setup(void **state)
{
	struct timerq *q = calloc(1, sizeof(*q));
	if (!q || timerq_init(q, 64)) {
		free(q);
		return -1;
	}
	*state = q;
	return 0;
}

static int teardown(void **state)
{
	struct timerq *q = *state;
	timerq_free(q);
	free(q);
	return 0;
}

static void expect_pop(struct timerq *q, uint32_t id, uint64_t when)
{
	uint64_t w = 0;
	assert_false(timerq_empty(q));
	assert_int_equal(timerq_pop(q, &w), id);
	assert_int_equal(w, when);
	assert_false(timerq_armed(q, id));
}

static void test_pop_order_by_time_then_id(void **state)
{
	struct timerq *q = *state;
	timerq_set(q, 5, 100);
	timerq_set(q, 2, 100);
	timerq_set(q, 9, 50);
	timerq_set(q, 0, 200);
	timerq_set(q, 7, 100);
	timerq_set(q, 63, 50);
	timerq_set(q, 1, 100);
	expect_pop(q, 9, 50);
	expect_pop(q, 63, 50);
	expect_pop(q, 1, 100);
	expect_pop(q, 2, 100);
	expect_pop(q, 5, 100);
	expect_pop(q, 7, 100);
	expect_pop(q, 0, 200);
	assert_true(timerq_empty(q));
}

static void test_rearm_moves_timer_earlier(void **state)
{
	struct timerq *q = *state;
	for (uint32_t id = 0; id < 20; id++)
		timerq_set(q, id, 1000 + id * 10);
	timerq_set(q, 17, 5);
	assert_true(timerq_armed(q, 17));
	expect_pop(q, 17, 5);
	expect_pop(q, 0, 1000);
}

static void test_rearm_moves_timer_later(void **state)
{
	struct timerq *q = *state;
	for (uint32_t id = 0; id < 20; id++)
		timerq_set(q, id, 1000 + id * 10);
	timerq_set(q, 0, 1095); /* between 9 (1090) and 10 (1100) */
	for (uint32_t id = 1; id < 10; id++)
		expect_pop(q, id, 1000 + id * 10);
	expect_pop(q, 0, 1095);
	expect_pop(q, 10, 1100);
}

static void test_rearm_same_time_ties_by_id(void **state)
{
	struct timerq *q = *state;
	timerq_set(q, 3, 100);
	timerq_set(q, 8, 200);
	timerq_set(q, 8, 100); /* now ties with 3: 3 first */
	expect_pop(q, 3, 100);
	expect_pop(q, 8, 100);
}

static void test_cancel_removes_timer(void **state)
{
	struct timerq *q = *state;
	for (uint32_t id = 0; id < 10; id++)
		timerq_set(q, id, 100 - id);
	timerq_cancel(q, 4);
	timerq_cancel(q, 9); /* the earliest */
	timerq_cancel(q, 4); /* cancelling an idle timer is a no-op */
	assert_false(timerq_armed(q, 4));
	assert_false(timerq_armed(q, 9));
	assert_int_equal(timerq_count(q), 8);
	for (uint32_t id = 8; id != UINT32_MAX; id--)
		if (id != 4)
			expect_pop(q, id, 100 - id);
	assert_true(timerq_empty(q));
	/* a cancelled timer can be armed again */
	timerq_set(q, 4, 7);
	expect_pop(q, 4, 7);
}

/* xorshift64*, fixed seed */
static uint64_t rnd(uint64_t *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 0x2545F4914F6CDD1Dull;
}

#define NIDS 64

/* The reference: the armed (when, id) with the smallest key, by scan. */
static int ref_min(const bool *armed, const uint64_t *when)
{
	int best = -1;
	for (int i = 0; i < NIDS; i++)
		if (armed[i] && (best < 0 || when[i] < when[best]))
			best = i; /* ascending ids: ties keep the smaller id */
	return best;
}

static int cmp_key(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;
	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

static void randomized(struct timerq *q)
{
	bool armed[NIDS] = { false };
	uint64_t when[NIDS] = { 0 };
	uint64_t x = 0x9e3779b97f4a7c15ull;
	int pops = 0;

	for (int op = 0; op < 20000; op++) {
		uint64_t r = rnd(&x);
		uint32_t id = (uint32_t)(r % NIDS);
		uint64_t t = (r >> 8) % 50; /* a small range: many ties */
		switch ((r >> 32) % 4) {
		case 0:
		case 1:
			timerq_set(q, id, t);
			armed[id] = true;
			when[id] = t;
			break;
		case 2:
			timerq_cancel(q, id);
			armed[id] = false;
			break;
		default: {
			int want = ref_min(armed, when);
			if (want < 0) {
				assert_true(timerq_empty(q));
				break;
			}
			expect_pop(q, (uint32_t)want, when[want]);
			armed[want] = false;
			pops++;
			if ((r >> 40) % 2) { /* the handler re-arms the timer that fired */
				when[want] += (r >> 44) % 20;
				timerq_set(q, (uint32_t)want, when[want]);
				armed[want] = true;
			}
		}
		}
		for (uint32_t i = 0; i < NIDS; i++)
			assert_int_equal(timerq_armed(q, i), armed[i]);
	}
	assert_true(pops > 1000);

	/* drain: the remaining timers come out in sorted (when, id) order */
	uint64_t keys[NIDS][2];
	int n = 0;
	for (int i = 0; i < NIDS; i++)
		if (armed[i]) {
			keys[n][0] = when[i];
			keys[n][1] = (uint64_t)i;
			n++;
		}
	qsort(keys, (size_t)n, sizeof(keys[0]), cmp_key);
	assert_int_equal(timerq_count(q), n);
	for (int i = 0; i < n; i++)
		expect_pop(q, (uint32_t)keys[i][1], keys[i][0]);
	assert_true(timerq_empty(q));
}

static void test_randomized_against_reference(void **state)
{
	randomized(*state);
}

/* Timers armed before the last time popped (the randomized test's times
 * go back and forth) and far apart, across the buckets: one queue's
 * order. */
static void test_armed_in_the_past_and_far(void **state)
{
	struct timerq *q = *state;
	timerq_set(q, 3, 1000);
	timerq_set(q, 4, 1ull << 40);
	timerq_set(q, 5, UINT64_MAX);
	timerq_set(q, 6, 1001);
	expect_pop(q, 3, 1000);
	timerq_set(q, 7, 10);    /* before the last popped */
	timerq_set(q, 8, 1000);  /* at it */
	timerq_set(q, 2, 1000);
	timerq_set(q, 9, 1001);
	expect_pop(q, 7, 10);
	expect_pop(q, 2, 1000);
	expect_pop(q, 8, 1000);
	expect_pop(q, 6, 1001);
	timerq_set(q, 6, 999);   /* the last popped is 1001 now */
	expect_pop(q, 6, 999);
	expect_pop(q, 9, 1001);
	timerq_set(q, 4, (1ull << 40) - 1); /* re-armed to another bucket */
	timerq_set(q, 1, (1ull << 40) - 1);
	expect_pop(q, 1, (1ull << 40) - 1);
	expect_pop(q, 4, (1ull << 40) - 1);
	expect_pop(q, 5, UINT64_MAX);
	assert_true(timerq_empty(q));
}

/* Re-arming inside one bucket keeps the new time; re-arming inside bucket
 * 0 keeps it sorted; popping a timer armed before the last time popped
 * does not move that time back. */
static void test_rearm_in_place_and_last_never_back(void **state)
{
	struct timerq *q = *state;
	const uint64_t t40 = 1ull << 40;
	timerq_set(q, 3, 1000);
	expect_pop(q, 3, 1000);
	timerq_set(q, 4, t40 + 5);
	timerq_set(q, 1, t40 + 3);
	timerq_set(q, 4, t40 + 1); /* the same bucket as before */
	expect_pop(q, 4, t40 + 1);
	expect_pop(q, 1, t40 + 3);

	for (uint32_t id = 10; id < 20; id++)
		timerq_set(q, id, t40 + 5000);
	timerq_set(q, 0, t40 + 4000);
	expect_pop(q, 0, t40 + 4000);
	expect_pop(q, 10, t40 + 5000); /* the batch is in bucket 0 now */
	timerq_set(q, 19, t40 + 4999); /* from bucket 0 to bucket 0 */
	expect_pop(q, 19, t40 + 4999);
	for (uint32_t id = 11; id < 19; id++)
		expect_pop(q, id, t40 + 5000);

	timerq_set(q, 9, t40 + 6001);
	timerq_set(q, 8, t40 + 6001);
	expect_pop(q, 8, t40 + 6001);
	timerq_set(q, 6, t40 + 5999); /* before the last popped */
	expect_pop(q, 6, t40 + 5999);
	timerq_set(q, 2, t40 + 6000); /* still before it: bucket 0 */
	expect_pop(q, 2, t40 + 6000);
	expect_pop(q, 9, t40 + 6001);
	assert_true(timerq_empty(q));
}

/* A batch of timers due at one time (the tasks' ticks) comes out in id
 * order, also when some of it is re-armed to that time or cancelled while
 * it waits in bucket 0. */
static void test_batch_due_at_one_time(void **state)
{
	struct timerq *q = *state;
	for (uint32_t i = 0; i < 54; i++) /* ids 10..63, scrambled */
		timerq_set(q, 10 + i * 17 % 54, 5000);
	timerq_set(q, 0, 4000);
	expect_pop(q, 0, 4000);
	expect_pop(q, 10, 5000); /* the batch is bucket 0 now */
	timerq_cancel(q, 12);
	timerq_set(q, 11, 5000); /* re-armed to the same time */
	timerq_set(q, 20, 6000); /* out of the batch */
	timerq_set(q, 1, 5000);  /* a new one joins it */
	timerq_set(q, 2, 4500);  /* and one before it */
	expect_pop(q, 2, 4500);
	expect_pop(q, 1, 5000);
	expect_pop(q, 11, 5000);
	for (uint32_t id = 13; id <= 63; id++)
		if (id != 20)
			expect_pop(q, id, 5000);
	expect_pop(q, 20, 6000);
	assert_true(timerq_empty(q));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_pop_order_by_time_then_id, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rearm_moves_timer_earlier, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rearm_moves_timer_later, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rearm_same_time_ties_by_id, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cancel_removes_timer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_randomized_against_reference, setup, teardown),
		cmocka_unit_test_setup_teardown(test_armed_in_the_past_and_far, setup, teardown),
		cmocka_unit_test_setup_teardown(test_batch_due_at_one_time, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rearm_in_place_and_last_never_back, setup, teardown),
	};
	return cmocka_run_group_tests_name("timerq", tests, NULL, NULL);
}
