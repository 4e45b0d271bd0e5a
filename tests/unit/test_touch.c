/* workload/touch.h: the Fenwick trees that find a touch's table, and the
 * faults drawn without a table (docs/model.md 3.3c) -- conserved, split
 * as a draw without replacement would place them (each table's share
 * hypergeometric), never on pages added after them or on a table hidden
 * while they were drawn, and the last one placed on demand. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "sim/engine.h"
#include "workload/touch.h"

enum { MAXT = 64 };

struct world {
	struct engine e;
	struct touch_model tm;
	uint32_t nr;                /* tables, all of slice 0 */
	uint32_t w;                 /* their pages' one weight */
	uint64_t cold[MAXT];        /* each table's cold PROT_NONE pages, as counted */
};

/* One slice of @nr tables of weight @weight with @cold[i] cold PROT_NONE
 * pages each, all pooled; and a shared group of one table, so the slice
 * is not the last group. */
static struct world *mk_w(uint32_t nr, const uint64_t *cold, uint64_t seed, uint32_t weight)
{
	struct world *w = calloc(1, sizeof(*w));
	uint32_t group[MAXT + 1], rank[MAXT + 1];
	assert_non_null(w);
	assert_true(nr <= MAXT);
	for (uint32_t i = 0; i < nr; i++)
		group[i] = 0;
	group[nr] = 1;
	assert_int_equal(touch_init(&w->tm, &w->e, 2, 1, nr + 1, group, rank, seed), 0);
	assert_int_equal(touch_pool_init(&w->tm, nr + 1, seed), 0);
	w->tm.lazy_w[0] = weight;
	w->nr = nr;
	w->w = weight;
	for (uint32_t i = 0; i < nr; i++) {
		assert_int_equal(rank[i], i + 1);
		w->cold[i] = cold[i];
		w->tm.pool[i].on = 1;
		if (cold[i])
			touch_count(&w->tm, 0, i + 1, weight, false, (int)cold[i]);
		w->tm.pool_w[0] += cold[i] * weight;
	}
	return w;
}

static struct world *mk(uint32_t nr, const uint64_t *cold, uint64_t seed)
{
	return mk_w(nr, cold, seed, 1);
}

static void drop(struct world *w)
{
	touch_free(&w->tm);
	free(w);
}

/* Every fault placed: each table's faults and pages add up to its count,
 * the tree's entries and the total to the tables' pages left. */
static void unpend_all(struct world *w)
{
	for (uint32_t i = 0; i < w->nr; i++)
		touch_unpend_table(&w->tm, 0, i + 1);
	assert_int_equal(w->tm.nr_pend[0], 0);
	uint64_t left[MAXT + 1] = { 0 }, total = 0;
	for (uint32_t i = 0; i < w->nr; i++) {
		assert_true(w->tm.pool[i].done[0] <= w->cold[i]);
		left[i + 1] = (w->cold[i] - w->tm.pool[i].done[0]) * w->w;
		total += left[i + 1];
	}
	for (uint32_t r = 1; r <= w->nr; r++) { /* a Fenwick tree of what is left */
		uint32_t up = r + (r & (~r + 1));
		if (up <= w->nr)
			left[up] += left[r];
	}
	const uint64_t *tree = touch_tree(&w->tm, 0, false);
	for (uint32_t r = 1; r <= w->nr; r++)
		assert_int_equal(tree[r], left[r]);
	assert_int_equal(w->tm.pn_cold[0], total);
}

/* touch_find is the prefix-sum search, for groups of every shape of tree:
 * one table, powers of two and their neighbours (steps past the tables
 * read the pads, which are never taken), with empty tables among them. */
static void test_find_is_the_prefix_sum_search(void **state)
{
	(void)state;
	const uint32_t sizes[] = { 1, 2, 3, 7, 8, 9, 37, 63, 64 };
	for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
		uint32_t nr = sizes[z];
		uint64_t cold[MAXT];
		struct rng r = rng_stream(5, RNG_WORKLOAD, z);
		for (uint32_t i = 0; i < nr; i++)
			cold[i] = i % 5 == 3 ? 0 : 1 + rng_below(&r, 512);
		struct world *w = mk(nr, cold, 1);
		const uint64_t *tree = touch_tree(&w->tm, 0, false);
		for (uint64_t i = (uint64_t)nr + 1; i < touch_fen_size(nr); i++)
			assert_true(tree[i] == TOUCH_FEN_PAD);
		uint64_t k = 0;
		for (uint32_t i = 0; i < nr; i++)
			for (uint64_t j = 0; j < cold[i]; j++, k++) {
				uint64_t rem;
				assert_int_equal(touch_find(&w->tm, 0, false, k, &rem), i);
				assert_int_equal(rem, j);
			}
		assert_int_equal(w->tm.pn_cold[0], k);
		drop(w);
	}
}

static void test_pending_faults_are_conserved(void **state)
{
	(void)state;
	const uint64_t cold[7] = { 3, 10, 0, 7, 20, 1, 512 };
	struct world *w = mk(7, cold, 2);
	touch_pend_faults(&w->tm, 0, false, 200);
	assert_int_equal(w->tm.nr_pend[0], 200);
	assert_int_equal(w->tm.pn_cold[0], 553 - 200);
	assert_int_equal(w->tm.pool_w[0], 553 - 200);
	touch_unpend_table(&w->tm, 0, 3); /* part of the way */
	touch_pend_faults(&w->tm, 0, false, 353); /* every page */
	unpend_all(w);
	for (uint32_t i = 0; i < 7; i++)
		assert_int_equal(w->tm.pool[i].done[0], cold[i]);
	drop(w);
}

static double hg_mean_sd(double N, double K, double n, double *sd)
{
	*sd = sqrt(n * (K / N) * (1 - K / N) * (N - n) / (N - 1));
	return n * K / N;
}

/* The five tables' shares of 15 faults on their 40 pages, each of
 * weight @weight, over 4,000 runs of @place (which pends and splits them
 * in its own order): each share's mean and standard deviation those of
 * hypergeometric(40, its pages, 15). */
static void expect_shares_hypergeometric(uint32_t weight, uint64_t seed,
					 void (*place)(struct world *w))
{
	const uint64_t cold[5] = { 3, 10, 0, 7, 20 };
	enum { RUNS = 4000 };
	double sum[5] = { 0 }, sq[5] = { 0 };
	for (int run = 0; run < RUNS; run++) {
		struct world *w = mk_w(5, cold, seed + (uint64_t)run, weight);
		place(w);
		assert_int_equal(w->tm.pn_cold[0], (40 - 15) * weight);
		unpend_all(w);
		for (int i = 0; i < 5; i++) {
			double x = w->tm.pool[i].done[0];
			sum[i] += x;
			sq[i] += x * x;
		}
		drop(w);
	}
	for (int i = 0; i < 5; i++) {
		double sd, mean = hg_mean_sd(40, (double)cold[i], 15, &sd);
		double got = sum[i] / RUNS, got_sd = sqrt(sq[i] / RUNS - got * got);
		if (fabs(got - mean) > 5 * sd / sqrt(RUNS) + 1e-9)
			fail_msg("table %d: %g faults on average, want %g", i, got, mean);
		if (fabs(got_sd - sd) > 0.05 * sd + 1e-9)
			fail_msg("table %d: standard deviation %g, want %g", i, got_sd, sd);
	}
}

/* One batch, looked at through table 4 first. */
static void one_batch(struct world *w)
{
	touch_pend_faults(&w->tm, 0, false, 15);
	touch_unpend_table(&w->tm, 0, 4);
}

/* Batches pending at several levels at once: older faults already split
 * part of the way when newer ones arrive at the root. */
static void mixed_batches(struct world *w)
{
	touch_pend_faults(&w->tm, 0, false, 6);
	touch_unpend_table(&w->tm, 0, 4);
	touch_pend_faults(&w->tm, 0, false, 5);
	touch_unpend_table(&w->tm, 0, 1);
	touch_pend_faults(&w->tm, 0, false, 4);
}

static void test_a_tables_share_is_hypergeometric(void **state)
{
	(void)state;
	expect_shares_hypergeometric(1, 100, one_batch);
}

/* ... also for mixed batches, on pages that weigh 3 each. */
static void test_mixed_batches_of_weighted_pages_split_alike(void **state)
{
	(void)state;
	expect_shares_hypergeometric(3, 30000, mixed_batches);
}

static void test_faults_never_land_on_pages_added_after_them(void **state)
{
	(void)state;
	const uint64_t cold[6] = { 30, 10, 0, 7, 20, 5 };
	for (int run = 0; run < 200; run++) {
		struct world *w = mk(6, cold, 500 + (uint64_t)run);
		touch_pend_faults(&w->tm, 0, false, 50);
		/* the scanner protects 100 pages of table 3 */
		touch_count(&w->tm, 0, 3, 1, false, 100);
		w->tm.pool_w[0] += 100;
		touch_pend_faults(&w->tm, 0, false, 20); /* these may land there */
		touch_unpend_table(&w->tm, 0, 3);
		assert_true(w->tm.pool[2].done[0] <= 20);
		w->cold[2] = 100;
		unpend_all(w);
		drop(w);
	}
}

static void test_no_fault_lands_on_a_hidden_table(void **state)
{
	(void)state;
	const uint64_t cold[4] = { 40, 10, 60, 7 };
	int landed_after = 0;
	for (int run = 0; run < 200; run++) {
		struct world *w = mk(4, cold, 900 + (uint64_t)run);
		uint64_t hidden[2];
		touch_pend_faults(&w->tm, 0, false, 30); /* before the hold: anywhere */
		touch_hide_table(&w->tm, 0, 3, hidden);
		uint32_t before = w->tm.pool[2].done[0];
		assert_int_equal(hidden[0], 60 - before);
		assert_int_equal(w->tm.pn_cold[0], 117 - 30 - hidden[0]);
		/* during it: not on table 3 (the others keep at least 27 pages) */
		touch_pend_faults(&w->tm, 0, false, 20);
		touch_show_table(&w->tm, 0, 3, hidden);
		assert_int_equal(w->tm.pool[2].done[0], before);
		touch_pend_faults(&w->tm, 0, false, 5); /* after it: anywhere */
		unpend_all(w);
		landed_after += w->tm.pool[2].done[0] > before;
		drop(w);
	}
	assert_true(landed_after > 100); /* the table counts again after the hold */
}

/* The last of two faults on four pages: each page alike, 1/4 -- with 3
 * tables, 4 (a power of two: the root's right half is empty) and 1. */
static void expect_last_fault_uniform(uint32_t nr, const uint64_t *cold)
{
	int hits[4] = { 0 };
	for (int run = 0; run < 3000; run++) {
		struct world *w = mk(nr, cold, 7000 + (uint64_t)run);
		touch_pend_faults(&w->tm, 0, false, 2);
		uint32_t id = touch_place_last(&w->tm, 0, false);
		assert_true(id < nr);
		assert_true(w->tm.pool[id].done[0] >= 1);
		assert_true(w->tm.nr_pend[0] <= 1); /* the other: above, or placed on the way */
		hits[id]++;
		unpend_all(w);
		drop(w);
	}
	for (uint32_t i = 0; i < nr; i++) {
		double want = 3000.0 * (double)cold[i] / 4, sd = sqrt(want * (1 - (double)cold[i] / 4));
		if (fabs(hits[i] - want) > 5 * sd)
			fail_msg("table %u of %u held the last fault %d times, want %g", i, nr, hits[i],
				 want);
	}
}

static void test_the_last_fault_is_placed_among_what_is_left(void **state)
{
	(void)state;
	const uint64_t three[3] = { 1, 1, 2 }, four[4] = { 1, 1, 1, 1 }, one[1] = { 4 };
	expect_last_fault_uniform(3, three);
	expect_last_fault_uniform(4, four);
	expect_last_fault_uniform(1, one);
}

/* touch_pick_from without a rate on the hot pages: the kind's draw is
 * skipped, not its counter -- the page, the toucher and the thinning
 * variate are the draws a full pick would make; with a hot rate the kind
 * is drawn from the same variate. */
static void test_pick_without_hot_rate_keeps_the_draws(void **state)
{
	(void)state;
	for (uint64_t ctr = 0; ctr < 1000; ctr++) {
		struct rng r = { 0x1234567887654321ull, ctr }, ref = r;
		struct touch_pick p;
		touch_pick_from(&r, 0.0, 2.5, 0, 300, 7, &p);
		(void)rng_unit(&ref); /* the kind's variate */
		assert_false(p.hot);
		assert_int_equal(p.count, 300);
		assert_int_equal(p.k, rng_below(&ref, 300));
		assert_int_equal(p.toucher, rng_below(&ref, 7));
		assert_true(p.thin == rng_unit(&ref));
		assert_int_equal(r.ctr, ref.ctr);
		/* with both rates: the kind from the first variate */
		struct rng r2 = { 0x1234567887654321ull, ctr }, ref2 = r2;
		touch_pick_from(&r2, 1.0, 3.0, 40, 300, 0, &p);
		bool hot = rng_unit(&ref2) * 4.0 < 1.0;
		assert_int_equal(p.hot, hot);
		assert_int_equal(p.k, rng_below(&ref2, hot ? 40 : 300));
		assert_true(p.thin == rng_unit(&ref2));
		assert_int_equal(r2.ctr, ref2.ctr);
	}
}

/* An exact-mode group (no pool, picks drawn ahead) of @nr tables with
 * @cold[i] cold and @hot[i] hot PROT_NONE pages, touched at both rates. */
static struct touch_model *mk_exact(uint32_t nr, const uint64_t *cold, const uint64_t *hot)
{
	struct touch_model *tm = calloc(1, sizeof(*tm));
	static struct engine e;
	uint32_t group[MAXT], rank[MAXT];
	assert_non_null(tm);
	for (uint32_t i = 0; i < nr; i++)
		group[i] = 0;
	assert_int_equal(touch_init(tm, &e, 1, 1, nr, group, rank, 7), 0);
	assert_int_equal(touch_ahead_init(tm), 0);
	tm->rate[0] = 3e-6; /* hot */
	tm->rate[1] = 1e-6;
	for (uint32_t i = 0; i < nr; i++) {
		if (cold[i])
			touch_count(tm, 0, i + 1, 1, false, (int)cold[i]);
		if (hot[i])
			touch_count(tm, 0, i + 1, 1, true, (int)hot[i]);
	}
	return tm;
}

/* A pick drawn ahead is the pick touch_pick and touch_find would make when
 * it is taken -- the same draws, the stream left at the same place --
 * and it is used up by being taken. */
static void test_a_pick_drawn_ahead_is_the_pick_then(void **state)
{
	(void)state;
	const uint64_t cold[9] = { 3, 0, 511, 40, 7, 0, 100, 1, 64 };
	const uint64_t hot[9] = { 0, 2, 1, 10, 0, 0, 33, 0, 5 };
	struct touch_model *tm = mk_exact(9, cold, hot);
	for (int i = 0; i < 500; i++) {
		tm->ctr[0] += (uint64_t)i % 3; /* a re-arm's draws */
		uint64_t from = tm->ctr[0];
		struct touch_ahead *a = touch_ahead_draw(tm, 0, 5);
		assert_non_null(a);
		assert_int_equal(tm->ctr[0], from); /* the stream has not moved */
		struct touch_pick p;
		uint64_t rem;
		touch_pick(tm, 0, 5, &p);
		uint64_t after = tm->ctr[0];
		uint32_t id = touch_find(tm, 0, p.hot, p.k, &rem);
		tm->ctr[0] = from;
		const struct touch_ahead *t = touch_ahead_take(tm, 0);
		assert_ptr_equal(t, a);
		assert_int_equal(tm->ctr[0], after);
		assert_int_equal(t->pick.hot, p.hot);
		assert_int_equal(t->pick.count, p.count);
		assert_int_equal(t->pick.k, p.k);
		assert_int_equal(t->pick.toucher, p.toucher);
		assert_true(t->pick.thin == p.thin);
		assert_int_equal(t->id, id);
		assert_int_equal(t->rem, rem);
		tm->ctr[0] = from;
		assert_null(touch_ahead_take(tm, 0)); /* used up */
	}
	touch_free(tm);
	free(tm);
}

/* A pick drawn ahead stands only while nothing it depends on moves: a
 * count of any of the group's tables, its stream, the rates; and a group
 * without a PROT_NONE page draws nothing ahead. */
static void test_a_pick_drawn_ahead_falls_with_any_change(void **state)
{
	(void)state;
	const uint64_t cold[4] = { 10, 20, 0, 5 };
	const uint64_t none[4] = { 0 };
	struct touch_model *tm = mk_exact(4, cold, none);
	for (uint32_t r = 1; r <= 4; r++) { /* any table, not only the pick's */
		assert_non_null(touch_ahead_draw(tm, 0, 0));
		touch_count(tm, 0, r, 1, false, +1);
		assert_null(touch_ahead_take(tm, 0));
		touch_count(tm, 0, r, 1, false, -1);
	}
	assert_non_null(touch_ahead_draw(tm, 0, 0));
	tm->ctr[0]++; /* re-armed meanwhile */
	assert_null(touch_ahead_take(tm, 0));
	assert_non_null(touch_ahead_draw(tm, 0, 0));
	touch_rates_changed(tm);
	assert_null(touch_ahead_take(tm, 0));
	assert_non_null(touch_ahead_draw(tm, 0, 0));
	assert_non_null(touch_ahead_take(tm, 0)); /* untouched, it stands */
	touch_free(tm);
	free(tm);
	tm = mk_exact(4, none, none);
	assert_null(touch_ahead_draw(tm, 0, 0));
	assert_null(touch_ahead_take(tm, 0));
	touch_free(tm);
	free(tm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_find_is_the_prefix_sum_search),
		cmocka_unit_test(test_pick_without_hot_rate_keeps_the_draws),
		cmocka_unit_test(test_pending_faults_are_conserved),
		cmocka_unit_test(test_a_tables_share_is_hypergeometric),
		cmocka_unit_test(test_mixed_batches_of_weighted_pages_split_alike),
		cmocka_unit_test(test_faults_never_land_on_pages_added_after_them),
		cmocka_unit_test(test_no_fault_lands_on_a_hidden_table),
		cmocka_unit_test(test_the_last_fault_is_placed_among_what_is_left),
		cmocka_unit_test(test_a_pick_drawn_ahead_is_the_pick_then),
		cmocka_unit_test(test_a_pick_drawn_ahead_falls_with_any_change),
	};
	return cmocka_run_group_tests_name("touch", tests, NULL, NULL);
}
