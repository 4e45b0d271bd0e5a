/* mm/rmap.c unmap batching: set_tlb_ubc_flush_pending, the pending/flushed
 * generations of mm->tlb_flush_batched, flush_tlb_batched_pending and
 * try_to_unmap_flush (with and without the flush-side patch). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "asm/tlbflush.h"
#include "linux/mm.h"
#include "unit/helpers/testsim.h"


static struct sim *mk(void **state, const char *kernel)
{
	return testsim_mk(state, kernel, FLUSH_X86_IPI);
}

static uint32_t pending_gen(const struct mm_struct *mm)
{
	return mm->tlb_flush_batched & TLB_FLUSH_BATCH_PENDING_MASK;
}

static uint32_t flushed_gen(const struct mm_struct *mm)
{
	return mm->tlb_flush_batched >> TLB_FLUSH_BATCH_FLUSHED_SHIFT;
}

/* Record a batched unmap of page @page's PTE (value @pteval) as task @task. */
static void ubc_add(struct sim *s, int task, uint64_t page, pte_t pteval)
{
	uint64_t a = testsim_addr(s, page);
	testsim_enter(s, task, NSEC_PER_SEC);
	set_tlb_ubc_flush_pending(&s->mms[0], pteval, a, a + PAGE_SIZE);
}

/* ---- rule 2: set_tlb_ubc_flush_pending ----------------------------------- */

static void check_inaccessible_protnone_not_recorded(struct sim *s)
{
	struct mm_struct *mm = &s->mms[0];
	uint32_t batched = mm->tlb_flush_batched;
	uint64_t gen = mm->tlb_gen;

	assert_int_equal(mm->tlb_flush_pending, 0);
	ubc_add(s, 0, 3, PTE_PROTNONE | PTE_YOUNG | PTE_DIRTY);
	assert_false(s->current->tlb_ubc.flush_required);
	assert_false(s->current->tlb_ubc.writable);
	assert_int_equal(mm->tlb_flush_batched, batched);
	assert_int_equal(mm->tlb_gen, gen); /* arch_tlbbatch_add_pending not called */
}

static void test_ubc_skips_inaccessible_protnone_v6_4(void **state)
{
	check_inaccessible_protnone_not_recorded(mk(state, "v6.4"));
}

static void test_ubc_skips_inaccessible_protnone_v7_3(void **state)
{
	check_inaccessible_protnone_not_recorded(mk(state, "v7.3"));
}

static void test_ubc_records_inaccessible_protnone_v6_3(void **state)
{
	struct sim *s = mk(state, "v6.3");
	struct mm_struct *mm = &s->mms[0];
	uint32_t pending = pending_gen(mm);

	ubc_add(s, 0, 3, PTE_PROTNONE | PTE_YOUNG);
	assert_true(s->current->tlb_ubc.flush_required);
	assert_int_equal(pending_gen(mm), pending + 1);
	assert_int_equal(flushed_gen(mm), 0);
	assert_true(cpumask_test_cpu(2, &s->current->tlb_ubc.arch.cpumask));
}

static void test_ubc_records_present_pte_v7_3(void **state)
{
	struct sim *s = mk(state, "v7.3");
	struct mm_struct *mm = &s->mms[0];
	uint32_t pending = pending_gen(mm);

	ubc_add(s, 0, 3, PTE_PRESENT | PTE_YOUNG | PTE_DIRTY);
	assert_true(s->current->tlb_ubc.flush_required);
	assert_true(s->current->tlb_ubc.writable); /* the PTE was dirty */
	assert_int_equal(pending_gen(mm), pending + 1);
}

static void test_ubc_records_protnone_while_flush_pending_v7_3(void **state)
{
	struct sim *s = mk(state, "v7.3");
	struct mm_struct *mm = &s->mms[0];

	inc_tlb_flush_pending(mm);
	ubc_add(s, 0, 3, PTE_PROTNONE | PTE_YOUNG);
	dec_tlb_flush_pending(mm);
	assert_true(s->current->tlb_ubc.flush_required);
	assert_int_equal(pending_gen(mm), 1);
}

static void test_ubc_pending_overflow_resets_word_to_one(void **state)
{
	struct sim *s = mk(state, "v7.3");
	struct mm_struct *mm = &s->mms[0];

	mm->tlb_flush_batched = 0x4000u | (0x3ff0u << TLB_FLUSH_BATCH_FLUSHED_SHIFT);
	ubc_add(s, 0, 3, PTE_PRESENT);
	assert_int_equal(mm->tlb_flush_batched, 1); /* pending 1, flushed 0 */
}

static void test_ubc_pending_at_large_still_increments(void **state)
{
	struct sim *s = mk(state, "v7.3");
	struct mm_struct *mm = &s->mms[0];
	uint32_t w = TLB_FLUSH_BATCH_PENDING_LARGE | (0x3ff0u << TLB_FLUSH_BATCH_FLUSHED_SHIFT);

	assert_int_equal(TLB_FLUSH_BATCH_PENDING_LARGE, 0x3fff);
	mm->tlb_flush_batched = w;
	ubc_add(s, 0, 3, PTE_PRESENT);
	assert_int_equal(mm->tlb_flush_batched, w + 1);
}

/* ---- rule 3: flush_tlb_batched_pending ----------------------------------- */

static void test_flush_batched_pending_flushes_once_per_generation(void **state)
{
	struct sim *s = mk(state, "v7.3");
	struct mm_struct *mm = &s->mms[0];

	ubc_add(s, 0, 3, PTE_PRESENT);
	testsim_enter(s, 1, NSEC_PER_SEC);
	assert_true(flush_tlb_batched_pending(mm));
	assert_int_equal(testsim_event(s, NR_TLB_REMOTE_FLUSH), 1);
	assert_int_equal(flushed_gen(mm), pending_gen(mm));
	assert_int_equal(mm->tlb_flush_batched, 1u | (1u << TLB_FLUSH_BATCH_FLUSHED_SHIFT));

	/* nothing new: no second flush */
	assert_false(flush_tlb_batched_pending(mm));
	assert_int_equal(testsim_event(s, NR_TLB_REMOTE_FLUSH), 1);

	/* a new batch: flush again */
	ubc_add(s, 0, 4, PTE_PRESENT);
	testsim_enter(s, 1, NSEC_PER_SEC);
	assert_true(flush_tlb_batched_pending(mm));
	assert_int_equal(testsim_event(s, NR_TLB_REMOTE_FLUSH), 2);
	assert_int_equal(mm->tlb_flush_batched, 2u | (2u << TLB_FLUSH_BATCH_FLUSHED_SHIFT));
}

static void test_flush_batched_pending_nothing_recorded_no_flush(void **state)
{
	struct sim *s = mk(state, "v7.3");
	struct mm_struct *mm = &s->mms[0];

	testsim_enter(s, 0, NSEC_PER_SEC);
	assert_false(flush_tlb_batched_pending(mm));
	assert_int_equal(testsim_event(s, NR_TLB_REMOTE_FLUSH), 0);
	assert_int_equal(testsim_tlb_irqs(s), 0);
}

/* ---- rule 4: try_to_unmap_flush and the flushed generation ------------- */

static void test_try_to_unmap_flush_keeps_flushed_gen_v7_3(void **state)
{
	struct sim *s = mk(state, "v7.3");
	struct mm_struct *mm = &s->mms[0];

	ubc_add(s, 0, 3, PTE_PRESENT);
	try_to_unmap_flush(s);
	assert_false(s->current->tlb_ubc.flush_required);
	assert_int_equal(s->st.batch_flushes, 1);
	assert_int_equal(pending_gen(mm), 1);
	assert_int_equal(flushed_gen(mm), 0);
	/* the batch costs a second flush under the next PTL walker */
	assert_true(flush_tlb_batched_pending(mm));
}

static void test_try_to_unmap_flush_advances_flushed_gen_flush_side(void **state)
{
	struct sim *s = mk(state, "v7.3+flush-side");
	struct mm_struct *mm = &s->mms[0];

	ubc_add(s, 0, 3, PTE_PRESENT);
	try_to_unmap_flush(s);
	assert_false(s->current->tlb_ubc.flush_required);
	assert_int_equal(s->st.batch_flushes, 1);
	assert_int_equal(mm->tlb_flush_batched, 1u | (1u << TLB_FLUSH_BATCH_FLUSHED_SHIFT));
	unsigned long long flushes = testsim_event(s, NR_TLB_REMOTE_FLUSH);
	assert_false(flush_tlb_batched_pending(mm));
	assert_int_equal(testsim_event(s, NR_TLB_REMOTE_FLUSH), flushes);
}

static void test_flush_side_keeps_flushed_gen_if_a_later_batch_raced(void **state)
{
	struct sim *s = mk(state, "v7.3+flush-side");
	struct mm_struct *mm = &s->mms[0];

	ubc_add(s, 0, 3, PTE_PRESENT); /* task 0: generation 1 */
	ubc_add(s, 1, 4, PTE_PRESENT); /* task 1: generation 2, not yet flushed */
	testsim_enter(s, 0, NSEC_PER_SEC);
	try_to_unmap_flush(s);
	assert_int_equal(pending_gen(mm), 2);
	assert_int_equal(flushed_gen(mm), 0);
	assert_true(flush_tlb_batched_pending(mm));
}

/* ---- the migration-to-flush delay histogram and the trace's flow marks --- */

static int delay_bucket(uint64_t d)
{
	int b = d ? 64 - __builtin_clzll(d) : 0;
	return b < NR_DELAY_HIST ? b : NR_DELAY_HIST - 1;
}

static uint64_t delay_total(const struct sim *s)
{
	uint64_t n = 0;
	for (int b = 0; b < NR_DELAY_HIST; b++)
		n += s->delay_hist[b];
	return n;
}

/* Each batched PTE counts once, from its own recording to the end of the
 * batch's flush; the next batch starts afresh. */
static void test_delay_per_pte_to_flush_end(void **state)
{
	struct sim *s = mk(state, "v7.3");
	struct mm_struct *mm = &s->mms[0];
	uint64_t t0 = NSEC_PER_SEC;

	testsim_enter(s, 0, t0);
	set_tlb_ubc_flush_pending(mm, PTE_PRESENT, testsim_addr(s, 3), testsim_addr(s, 4));
	set_tlb_ubc_flush_pending(mm, PTE_PRESENT, testsim_addr(s, 4), testsim_addr(s, 5));
	engine_charge(&s->e, COST_MIGRATE_COPY, 5000);
	set_tlb_ubc_flush_pending(mm, PTE_PRESENT, testsim_addr(s, 5), testsim_addr(s, 6));
	assert_int_equal(s->current->tlb_ubc.nr_marks, 2); /* two times, three PTEs */
	try_to_unmap_flush(s);
	uint64_t end = sim_now(s);
	assert_true(end > t0 + 5000); /* the IPI round took time */
	assert_int_equal(delay_total(s), 3);
	assert_int_equal(s->delay_hist[delay_bucket(end - t0)], 2 + (delay_bucket(end - t0) ==
								      delay_bucket(end - t0 - 5000)));
	assert_true(s->delay_hist[delay_bucket(end - t0 - 5000)] >= 1);
	assert_int_equal(s->current->tlb_ubc.nr_marks, 0);

	/* an inaccessible PTE is not recorded (v6.4+), so it has no delay */
	set_tlb_ubc_flush_pending(mm, PTE_PROTNONE, testsim_addr(s, 6), testsim_addr(s, 7));
	try_to_unmap_flush(s);
	assert_int_equal(delay_total(s), 3);
	/* a second batch: only its own PTE */
	set_tlb_ubc_flush_pending(mm, PTE_PRESENT, testsim_addr(s, 7), testsim_addr(s, 8));
	try_to_unmap_flush(s);
	assert_int_equal(delay_total(s), 4);
}

/* While tracing, a batch's records carry its id (c >> 2), the first one
 * marked (c & 1), and the flush marks them all (c & 2) with when it ended
 * (d): its IPI round's end less 1 ns, inside the round's slice, so that the
 * trace's arrow points somewhere; untraced, nothing of this is kept. */
static void test_trace_marks_batch_records_with_their_flush(void **state)
{
	struct sim *s = mk(state, "v7.3");
	struct mm_struct *mm = &s->mms[0];

	s->e.trace = trace_new(0, UINT64_MAX, TRACE_ALL, 1000);
	assert_non_null(s->e.trace);
	testsim_enter(s, 0, NSEC_PER_SEC);
	set_tlb_ubc_flush_pending(mm, PTE_PRESENT, testsim_addr(s, 3), testsim_addr(s, 4));
	engine_charge(&s->e, COST_MIGRATE_COPY, 100);
	set_tlb_ubc_flush_pending(mm, PTE_PRESENT, testsim_addr(s, 4), testsim_addr(s, 5));
	uint64_t start = sim_now(s);
	try_to_unmap_flush(s);
	set_tlb_ubc_flush_pending(mm, PTE_PRESENT, testsim_addr(s, 5), testsim_addr(s, 6));
	int recs = 0;
	for (size_t i = 0; i < s->e.trace->n; i++) {
		const struct trace_event *e = &s->e.trace->ev[i];
		if (e->type != TR_BATCH_RECORDED)
			continue;
		recs++;
		if (recs <= 2) {
			assert_int_equal((uint64_t)e->c >> 2, 1);
			assert_int_equal(e->c & 1, recs == 1);
			assert_int_equal(e->c & 2, 2);
			assert_int_equal(e->d, (int64_t)s->last_round_end - 1);
			assert_true(s->last_round_end > start); /* the round took time */
		} else {  /* the next batch, not flushed yet */
			assert_int_equal((uint64_t)e->c >> 2, 2);
			assert_int_equal(e->c & 3, 1);
			assert_int_equal(e->d, 0);
		}
	}
	assert_int_equal(recs, 3);
	try_to_unmap_flush(s);
	trace_free(s->e.trace);
	s->e.trace = NULL;
	/* untraced: no id */
	set_tlb_ubc_flush_pending(mm, PTE_PRESENT, testsim_addr(s, 6), testsim_addr(s, 7));
	assert_int_equal(s->current->tlb_ubc.trace_id, 0);
	try_to_unmap_flush(s);
}

/* flush-side-naive (broken on purpose): the same race, and the later
 * batch's generation is marked flushed although task 1 has not flushed */
static void test_flush_side_naive_marks_a_raced_batch_flushed(void **state)
{
	struct sim *s = mk(state, "v7.3+flush-side-naive");
	struct mm_struct *mm = &s->mms[0];

	ubc_add(s, 0, 3, PTE_PRESENT);
	ubc_add(s, 1, 4, PTE_PRESENT);
	testsim_enter(s, 0, NSEC_PER_SEC);
	try_to_unmap_flush(s);
	assert_true(s->tasks[1].tlb_ubc.flush_required);
	assert_int_equal(pending_gen(mm), 2);
	assert_int_equal(flushed_gen(mm), 2);
	assert_false(flush_tlb_batched_pending(mm));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_delay_per_pte_to_flush_end, testsim_teardown),
		cmocka_unit_test_teardown(test_trace_marks_batch_records_with_their_flush, testsim_teardown),
		cmocka_unit_test_teardown(test_ubc_skips_inaccessible_protnone_v6_4, testsim_teardown),
		cmocka_unit_test_teardown(test_ubc_skips_inaccessible_protnone_v7_3, testsim_teardown),
		cmocka_unit_test_teardown(test_ubc_records_inaccessible_protnone_v6_3, testsim_teardown),
		cmocka_unit_test_teardown(test_ubc_records_present_pte_v7_3, testsim_teardown),
		cmocka_unit_test_teardown(test_ubc_records_protnone_while_flush_pending_v7_3, testsim_teardown),
		cmocka_unit_test_teardown(test_ubc_pending_overflow_resets_word_to_one, testsim_teardown),
		cmocka_unit_test_teardown(test_ubc_pending_at_large_still_increments, testsim_teardown),
		cmocka_unit_test_teardown(test_flush_batched_pending_flushes_once_per_generation, testsim_teardown),
		cmocka_unit_test_teardown(test_flush_batched_pending_nothing_recorded_no_flush, testsim_teardown),
		cmocka_unit_test_teardown(test_try_to_unmap_flush_keeps_flushed_gen_v7_3, testsim_teardown),
		cmocka_unit_test_teardown(test_try_to_unmap_flush_advances_flushed_gen_flush_side, testsim_teardown),
		cmocka_unit_test_teardown(test_flush_side_keeps_flushed_gen_if_a_later_batch_raced, testsim_teardown),
		cmocka_unit_test_teardown(test_flush_side_naive_marks_a_raced_batch_flushed, testsim_teardown),
	};
	return cmocka_run_group_tests_name("rmap", tests, NULL, NULL);
}
