/* mm/migrate.c: whether a MIGRATE_ASYNC migration batches its TLB flush
 * (TTU_BATCH_FLUSH -> set_tlb_ubc_flush_pending, which bumps the mm's
 * pending generation) or flushes per PTE (ptep_clear_flush), on v7.3 and
 * with the single-folio patches; and the result of a migration. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "asm/tlbflush.h"
#include "linux/migrate.h"
#include "linux/mm.h"
#include "unit/helpers/testsim.h"

struct fixture {
	struct sim *s;
	struct migrate_ctx *ctx;
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	if (!fx)
		return -1;
	fx->ctx = calloc(1, sizeof(*fx->ctx));
	if (!fx->ctx) {
		free(fx);
		return -1;
	}
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	if (fx) {
		if (fx->s)
			testsim_free(fx->s);
		free(fx->ctx);
		free(fx);
	}
	*state = NULL;
	return 0;
}

static struct sim *mk(void **state, const char *kernel)
{
	struct fixture *fx = *state;
	fx->s = testsim_new(kernel, FLUSH_X86_IPI);
	return fx->s;
}

static struct migrate_ctx *ctx_of(void **state)
{
	return ((struct fixture *)*state)->ctx;
}

static struct folio folio_at(struct sim *s, uint64_t page)
{
	struct vm_area_struct *vma = testsim_vma(s);
	return page_folio(vma->store, vma_store_idx(vma, testsim_addr(s, page)));
}

static uint32_t pending_gen(const struct mm_struct *mm)
{
	return mm->tlb_flush_batched & TLB_FLUSH_BATCH_PENDING_MASK;
}

/* Make pages [first, first + n) PROT_NONE, as the scanner left them. */
static void make_protnone(struct sim *s, uint64_t first, uint64_t n)
{
	for (uint64_t p = first; p < first + n; p++) {
		pte_t *ptep = testsim_pte(s, p);
		set_pte_at(testsim_vma(s), testsim_addr(s, p), ptep,
			   PTE_PROTNONE | (*ptep & (PTE_YOUNG | PTE_DIRTY | PTE_SIM_HOT)));
	}
}

/* Make the pages at [first, first + 2^order) one folio of @order. */
static void make_large_folio(struct sim *s, uint64_t first, unsigned order)
{
	struct folio_store *fs = testsim_vma(s)->store;
	uint64_t idx = vma_store_idx(testsim_vma(s), testsim_addr(s, first));
	for (uint64_t i = 0; i < (1ull << order); i++)
		fs->pg[idx + i].flags = (uint8_t)(order << FOLIO_ORDER_SHIFT);
}

/* As a hint fault on task 2 (CPU 2, node 1) while a scanner's gather is
 * open (tlb_flush_pending raised): isolate the folios at @pages and
 * migrate them to node 1.  Returns the number not migrated. */
static int migrate_to_node1(struct sim *s, struct migrate_ctx *ctx, const uint64_t *pages,
			    int nr, enum migrate_reason reason)
{
	struct vm_area_struct *vma = testsim_vma(s);
	struct mm_struct *mm = &s->mms[0];

	testsim_enter(s, 2, NSEC_PER_SEC);
	inc_tlb_flush_pending(mm);
	ctx->nr = nr;
	for (int i = 0; i < nr; i++) {
		ctx->folios[i] = folio_at(s, pages[i]);
		assert_int_equal(migrate_misplaced_folio_prepare(s, ctx->folios[i], vma, 1), 0);
	}
	ctx->target_nid = 1;
	ctx->mode = MIGRATE_ASYNC;
	ctx->reason = reason;
	migrate_pages_begin(s, ctx);
	migrate_pages_flush(s, ctx);
	int left = migrate_pages_finish(s, ctx);
	dec_tlb_flush_pending(mm);
	return left;
}

/* ---- rule 10: v7.3 batches a lone folio's flush ------------------------- */

static void test_v7_3_lone_protnone_folio_batches_flush(void **state)
{
	struct sim *s = mk(state, "v7.3");
	struct mm_struct *mm = &s->mms[0];
	uint64_t page = 5;

	make_protnone(s, page, 1);
	assert_int_equal(migrate_to_node1(s, ctx_of(state), &page, 1, MR_NUMA_MISPLACED), 0);
	assert_int_equal(pending_gen(mm), 1);
	assert_int_equal(s->st.batch_flushes, 1);

	/* the recorded batch costs the next PTL walker a full IPI round */
	unsigned long long irqs[4];
	for (int c = 0; c < 4; c++)
		irqs[c] = testsim_irqs(s, c);
	testsim_enter(s, 0, 2 * NSEC_PER_SEC);
	assert_true(flush_tlb_batched_pending(mm));
	assert_int_equal(testsim_irqs(s, 0), irqs[0]);
	for (int c = 1; c < 4; c++)
		assert_int_equal(testsim_irqs(s, c), irqs[c] + 1);
}

static void test_migration_moves_folio_and_restores_pte(void **state)
{
	struct sim *s = mk(state, "v7.3");
	struct migrate_ctx *ctx = ctx_of(state);
	uint64_t page = 5;

	make_protnone(s, page, 1);
	assert_int_equal(migrate_to_node1(s, ctx, &page, 1, MR_NUMA_MISPLACED), 0);
	struct folio f = folio_at(s, page);
	pte_t pte = *testsim_pte(s, page);
	assert_int_equal(folio_nid(f), 1);
	assert_true(pte & PTE_PRESENT);
	assert_false(pte_protnone(pte));
	assert_false(is_migration_entry(pte));
	assert_int_equal(f.fs->pg[f.idx].mapcount, 1);
	assert_int_equal(f.fs->pg[f.idx].flags & (FOLIO_ISOLATED | FOLIO_LOCKED), 0);
	assert_int_equal(ctx->nr_succeeded, 1);
	assert_int_equal(testsim_event(s, PGMIGRATE_SUCCESS), 1);
	assert_int_equal(testsim_event(s, PGMIGRATE_FAIL), 0);
}

/* ---- single-folio-v2 ------------------------------------------------------ */

static void test_v2_lone_small_folio_does_not_batch(void **state)
{
	struct sim *s = mk(state, "v7.3+single-folio-v2");
	struct mm_struct *mm = &s->mms[0];
	uint64_t page = 5;

	make_protnone(s, page, 1);
	uint32_t batched = mm->tlb_flush_batched;
	assert_int_equal(migrate_to_node1(s, ctx_of(state), &page, 1, MR_NUMA_MISPLACED), 0);
	assert_int_equal(mm->tlb_flush_batched, batched);
	assert_int_equal(s->st.batch_flushes, 0);
	/* ptep_clear_flush flushed the accessible PROT_NONE PTE at once */
	assert_true(testsim_event(s, NR_TLB_REMOTE_FLUSH) >= 1);
	testsim_enter(s, 0, 2 * NSEC_PER_SEC);
	assert_false(flush_tlb_batched_pending(mm));
	assert_int_equal(folio_nid(folio_at(s, page)), 1);
	assert_int_equal(testsim_event(s, PGMIGRATE_SUCCESS), 1);
}

static void test_v2_two_folios_batch(void **state)
{
	struct sim *s = mk(state, "v7.3+single-folio-v2");
	struct mm_struct *mm = &s->mms[0];
	uint64_t pages[2] = { 5, 6 };

	make_protnone(s, 5, 2);
	assert_int_equal(migrate_to_node1(s, ctx_of(state), pages, 2, MR_NUMA_MISPLACED), 0);
	assert_int_equal(pending_gen(mm), 2);
	assert_int_equal(s->st.batch_flushes, 1);
	assert_int_equal(testsim_event(s, PGMIGRATE_SUCCESS), 2);
}

static void test_v2_large_folio_batches(void **state)
{
	struct sim *s = mk(state, "v7.3+single-folio-v2");
	struct mm_struct *mm = &s->mms[0];
	uint64_t page = 8;

	make_large_folio(s, 8, 2);
	make_protnone(s, 8, 4);
	assert_true(folio_test_large(folio_at(s, 9)));
	assert_int_equal(migrate_to_node1(s, ctx_of(state), &page, 1, MR_NUMA_MISPLACED), 0);
	assert_true(pending_gen(mm) >= 1);
	assert_int_equal(s->st.batch_flushes, 1);
	for (uint64_t p = 8; p < 12; p++) {
		assert_int_equal(folio_at(s, p).fs->pg[vma_store_idx(testsim_vma(s), testsim_addr(s, p))].nid, 1);
		assert_true(*testsim_pte(s, p) & PTE_PRESENT);
	}
	assert_int_equal(testsim_event(s, PGMIGRATE_SUCCESS), 4);
}

static void test_v2_shared_folio_batches(void **state)
{
	struct sim *s = mk(state, "v7.3+single-folio-v2");
	struct mm_struct *mm = &s->mms[0];
	uint64_t page = 5;
	struct folio f = folio_at(s, page);

	make_protnone(s, page, 1);
	f.fs->pg[f.idx].mapcount = 2; /* mapped by another process too */
	assert_true(folio_maybe_mapped_shared(f));
	assert_int_equal(migrate_to_node1(s, ctx_of(state), &page, 1, MR_NUMA_MISPLACED), 0);
	assert_int_equal(pending_gen(mm), 1);
	assert_int_equal(s->st.batch_flushes, 1);
	assert_int_equal(f.fs->pg[f.idx].mapcount, 2);
}

/* ---- single-folio-v1 ------------------------------------------------------ */

static void test_v1_numa_misplaced_never_batches(void **state)
{
	struct sim *s = mk(state, "v7.3+single-folio-v1");
	struct mm_struct *mm = &s->mms[0];
	uint64_t pages[2] = { 5, 6 };

	make_protnone(s, 5, 2);
	assert_int_equal(migrate_to_node1(s, ctx_of(state), pages, 2, MR_NUMA_MISPLACED), 0);
	assert_int_equal(mm->tlb_flush_batched, 0);
	assert_int_equal(s->st.batch_flushes, 0);
	assert_int_equal(testsim_event(s, PGMIGRATE_SUCCESS), 2);
}

static void test_v1_syscall_migration_batches(void **state)
{
	struct sim *s = mk(state, "v7.3+single-folio-v1");
	struct mm_struct *mm = &s->mms[0];
	uint64_t page = 5;

	make_protnone(s, page, 1);
	assert_int_equal(migrate_to_node1(s, ctx_of(state), &page, 1, MR_SYSCALL), 0);
	assert_int_equal(pending_gen(mm), 1);
	assert_int_equal(s->st.batch_flushes, 1);
}

/* ---- before 7e12beb8ca2a (v6.3): no batched migration flush -------------- */

static void test_v5_15_migration_never_batches(void **state)
{
	struct sim *s = mk(state, "v5.15");
	struct mm_struct *mm = &s->mms[0];
	uint64_t pages[2] = { 5, 6 };

	make_protnone(s, 5, 2);
	assert_int_equal(migrate_to_node1(s, ctx_of(state), pages, 2, MR_SYSCALL), 0);
	assert_int_equal(mm->tlb_flush_batched, 0);
	assert_int_equal(s->st.batch_flushes, 0);
}

/* ---- migrate_pages(2): batches of at most 512, one flush a batch -------- */

/* Run a migrate_pages(2) call moving the process's pages from node 0 to
 * node 1, batch by batch as the caller's steps would; check that no batch
 * passes NR_MAX_BATCHED_MIGRATION pages and that each batch's TLB flushes
 * (flush_tlb_multi rounds) number @rounds_per_batch, or one per folio when
 * that is 0.  Returns the number of batches. */
static int syscall_call(struct sim *s, struct migrate_ctx *ctx, int rounds_per_batch)
{
	struct migrate_call *call = calloc(1, sizeof(*call));
	int batches = 0;
	assert_non_null(call);
	*call = (struct migrate_call){ .mm_id = 0, .from = 0, .to = 1, .reason = MR_SYSCALL };
	testsim_enter(s, 0, NSEC_PER_SEC);
	assert_int_equal(migrate_call_step(s, call, ctx), CALL_QUEUED); /* the whole list first */
	for (;;) {
		uint64_t rounds = s->st.flush_rounds;
		if (migrate_call_step(s, call, ctx) == CALL_DONE)
			break;
		batches++;
		assert_in_range(ctx->nr, 1, NR_MAX_BATCHED_MIGRATION);
		migrate_pages_flush(s, ctx);
		migrate_call_batch_finish(s, call, ctx);
		uint64_t want = rounds_per_batch ? (uint64_t)rounds_per_batch : (uint64_t)ctx->nr;
		assert_int_equal(s->st.flush_rounds - rounds, want);
	}
	assert_int_equal(call->moved, 2048);
	assert_int_equal(call->failed, 0);
	for (uint64_t p = 0; p < 2048; p++)
		assert_int_equal(folio_nid(folio_at(s, p)), 1);
	assert_int_equal(testsim_event(s, PGMIGRATE_SUCCESS), 2048);
	migrate_call_free(call);
	return batches;
}

static void test_migrate_pages_syscall_v6_3_one_flush_per_batch(void **state)
{
	struct sim *s = mk(state, "v6.3");
	assert_int_equal(syscall_call(s, ctx_of(state), 1), 4); /* 2048 pages, 512 a batch */
	assert_int_equal(s->st.batch_flushes, 4);
}

static void test_migrate_pages_syscall_v5_15_flushes_per_folio(void **state)
{
	struct sim *s = mk(state, "v5.15");
	assert_int_equal(syscall_call(s, ctx_of(state), 0), 4);
	assert_int_equal(s->st.batch_flushes, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_v7_3_lone_protnone_folio_batches_flush, setup, teardown),
		cmocka_unit_test_setup_teardown(test_migration_moves_folio_and_restores_pte, setup, teardown),
		cmocka_unit_test_setup_teardown(test_v2_lone_small_folio_does_not_batch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_v2_two_folios_batch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_v2_large_folio_batches, setup, teardown),
		cmocka_unit_test_setup_teardown(test_v2_shared_folio_batches, setup, teardown),
		cmocka_unit_test_setup_teardown(test_v1_numa_misplaced_never_batches, setup, teardown),
		cmocka_unit_test_setup_teardown(test_v1_syscall_migration_batches, setup, teardown),
		cmocka_unit_test_setup_teardown(test_v5_15_migration_never_batches, setup, teardown),
		cmocka_unit_test_setup_teardown(test_migrate_pages_syscall_v6_3_one_flush_per_batch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_migrate_pages_syscall_v5_15_flushes_per_folio, setup, teardown),
	};
	return cmocka_run_group_tests_name("migrate", tests, NULL, NULL);
}
