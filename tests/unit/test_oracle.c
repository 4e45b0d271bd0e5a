/* The TLB oracle (linux/tlb_oracle.h): which flushes remove which
 * translations, what a context switch, the tlb_gen catch-up and a lazy CPU
 * do to them, and the check that counts a stale translation. */
#include <setjmp.h>
#include <stdlib.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "asm/mmu_context.h"
#include "asm/tlbflush.h"
#include "linux/migrate.h"
#include "linux/mm.h"
#include "linux/tlb_oracle.h"
#include "unit/helpers/testsim.h"

#define ALL_CPUS 0xfull /* the test world's four CPUs */

static struct sim *mk(void **state, const char *kernel, enum flush_engine engine)
{
	struct sim *s = testsim_new_oracle(kernel, engine);
	*state = s;
	return s;
}

/* Make page @p of the test VMA PROT_NONE, as change_pte_range does. */
static void protnone(struct sim *s, uint64_t p)
{
	pte_t *ptep = testsim_pte(s, p);
	set_pte_at(testsim_vma(s), testsim_addr(s, p), ptep,
		   PTE_PROTNONE | (*ptep & (PTE_YOUNG | PTE_DIRTY)));
}

static uint64_t holders(struct sim *s, uint64_t p)
{
	return oracle_holders(s, testsim_vma(s), testsim_addr(s, p), false);
}

static uint64_t raw_holders(struct sim *s, uint64_t p)
{
	return oracle_holders(s, testsim_vma(s), testsim_addr(s, p), true);
}

/* ---- what becomes cacheable --------------------------------------------- */

static void test_every_cpu_running_the_mm_may_hold_a_page_made_protnone(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_X86_IPI);
	testsim_enter(s, 0, 1000);
	assert_int_equal(holders(s, 5), 0); /* present: nothing stale */
	protnone(s, 5);
	assert_int_equal(holders(s, 5), ALL_CPUS);
	assert_int_equal(holders(s, 6), 0);  /* untouched page */
}

static void test_restored_pte_is_not_stale(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_X86_IPI);
	testsim_enter(s, 0, 1000);
	protnone(s, 5);
	*testsim_pte(s, 5) = PTE_PRESENT | PTE_YOUNG; /* the fault rebuilt it */
	assert_int_equal(holders(s, 5), 0);
}

/* ---- each flush kind drops exactly what it covers ------------------------ */

static void test_x86_full_flush_drops_every_page(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_X86_IPI);
	testsim_enter(s, 0, 1000);
	protnone(s, 5);
	protnone(s, 700);
	flush_tlb_mm(&s->mms[0]);
	assert_int_equal(holders(s, 5), 0);
	assert_int_equal(holders(s, 700), 0);
}

static void test_x86_ranged_flush_drops_only_its_range(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_X86_IPI);
	testsim_enter(s, 0, 1000);
	protnone(s, 5);
	protnone(s, 6);
	protnone(s, 40);
	uint64_t a = testsim_addr(s, 5);
	flush_tlb_mm_range(&s->mms[0], a, a + 2 * PAGE_SIZE, PAGE_SHIFT, false);
	assert_int_equal(holders(s, 5), 0);
	assert_int_equal(holders(s, 6), 0);
	assert_int_equal(holders(s, 40), ALL_CPUS);
}

static void test_x86_single_page_flush_drops_one_page(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_X86_IPI);
	testsim_enter(s, 0, 1000);
	protnone(s, 5);
	protnone(s, 6);
	flush_tlb_page(testsim_vma(s), testsim_addr(s, 6));
	assert_int_equal(holders(s, 5), ALL_CPUS);
	assert_int_equal(holders(s, 6), 0);
}

static void test_x86_batched_unmap_flush_drops_everything(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_X86_IPI);
	testsim_enter(s, 0, 1000);
	struct mm_struct *mm = &s->mms[0];
	pte_t old = *testsim_pte(s, 5);
	set_pte_at(testsim_vma(s), testsim_addr(s, 5), testsim_pte(s, 5), PTE_MIGRATION);
	protnone(s, 9);
	set_tlb_ubc_flush_pending(mm, old, testsim_addr(s, 5), testsim_addr(s, 6));
	/* recorded, not yet flushed: only the CPUs running the mm still use
	 * it (the others are behind tlb_gen and flush before use) */
	assert_int_equal(holders(s, 5), ALL_CPUS);
	try_to_unmap_flush(s);
	assert_int_equal(holders(s, 5), 0);
	assert_int_equal(holders(s, 9), 0);
}

static void test_invlpgb_broadcast_drops_on_every_cpu(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_X86_INVLPGB);
	testsim_enter(s, 0, 1000);
	s->mms[0].global_asid = true;
	protnone(s, 5);
	protnone(s, 40);
	uint64_t a = testsim_addr(s, 5);
	flush_tlb_mm_range(&s->mms[0], a, a + PAGE_SIZE, PAGE_SHIFT, false);
	assert_int_equal(holders(s, 5), 0);
	assert_int_equal(holders(s, 40), ALL_CPUS);
	flush_tlb_mm(&s->mms[0]);
	assert_int_equal(holders(s, 40), 0);
}

static void test_arm64_tlbi_range_and_asid(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_ARM64);
	testsim_enter(s, 0, 1000);
	protnone(s, 5);
	protnone(s, 40);
	uint64_t a = testsim_addr(s, 5);
	flush_tlb_mm_range(&s->mms[0], a, a + PAGE_SIZE, PAGE_SHIFT, false);
	assert_int_equal(holders(s, 5), 0);
	assert_int_equal(holders(s, 40), ALL_CPUS);
	flush_tlb_mm(&s->mms[0]);
	assert_int_equal(holders(s, 40), 0);
}

static void test_riscv_ranged_round_drops_its_range(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_RISCV);
	testsim_enter(s, 0, 1000);
	protnone(s, 5);
	protnone(s, 40);
	uint64_t a = testsim_addr(s, 5);
	flush_tlb_mm_range(&s->mms[0], a, a + PAGE_SIZE, PAGE_SHIFT, false);
	assert_int_equal(holders(s, 5), 0);
	assert_int_equal(holders(s, 40), ALL_CPUS);
}

/* ---- lazy CPUs, the tlb_gen catch-up, context switches --------------------- */

static void test_lazy_cpu_keeps_translations_until_it_flushes(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_X86_IPI);
	struct mm_struct *mm = &s->mms[0];
	int lazy = s->tasks[3].cpu;
	testsim_enter(s, 0, 1000);
	enter_lazy_tlb(s, lazy);
	protnone(s, 5);
	/* nothing flushed yet: the lazy CPU would come back to its entries */
	assert_true(holders(s, 5) >> lazy & 1);
	flush_tlb_mm_range(mm, 0, TLB_FLUSH_ALL, PAGE_SHIFT, false);
	/* the flush skipped it (not freed_tables): it still holds them, but
	 * it is behind tlb_gen, so it flushes before it can use them */
	assert_true(raw_holders(s, 5) >> lazy & 1);
	assert_int_equal(holders(s, 5), 0);
	/* switching back: the tlb_gen catch-up flush drops them */
	switch_mm_irqs_off(s, lazy, mm, 2000);
	assert_int_equal(raw_holders(s, 5), 0);
}

static void test_lazy_cpu_back_without_catch_up_still_holds(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_X86_IPI);
	struct mm_struct *mm = &s->mms[0];
	int lazy = s->tasks[3].cpu;
	testsim_enter(s, 0, 1000);
	enter_lazy_tlb(s, lazy);
	protnone(s, 5); /* and no flush at all: tlb_gen did not move */
	switch_mm_irqs_off(s, lazy, mm, 2000);
	assert_true(holders(s, 5) >> lazy & 1);
}

static void test_switch_back_with_stale_asid_flushes(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_X86_IPI);
	struct mm_struct *mm = &s->mms[0];
	int cpu = s->tasks[2].cpu;
	struct cpu_state *c = &s->cpus[cpu];
	testsim_enter(s, 0, 1000);
	protnone(s, 5);
	/* the CPU leaves for init_mm keeping its ASID's entries, then the mm
	 * is flushed without it */
	c->asid_gen[c->loaded_asid] = c->loaded_gen;
	c->loaded_mm = NULL;
	cpumask_clear_cpu(cpu, &mm->cpumask);
	flush_tlb_mm(mm);
	assert_true(raw_holders(s, 5) >> cpu & 1);
	assert_false(holders(s, 5) >> cpu & 1);
	switch_mm_irqs_off(s, cpu, mm, 2000); /* choose_new_asid: old gen, flush */
	assert_int_equal(raw_holders(s, 5), 0);
}

/* ---- the check ---------------------------------------------------------- */

/* A hint fault's migration of page 5 while a gather that made it PROT_NONE
 * is still open: the copy check counts a stale translation unless the
 * unmap flushed. */
static uint64_t migrate_inside_gather(struct sim *s)
{
	struct mm_struct *mm = &s->mms[0];
	struct mmu_gather tlb;
	testsim_enter(s, 0, 1000);
	tlb_gather_mmu(&tlb, mm);
	uint64_t a = testsim_addr(s, 5);
	assert_int_equal(change_pte_range(&tlb, testsim_vma(s), a, a + PAGE_SIZE, MM_CP_PROT_NUMA), 1);
	testsim_enter(s, 1, 2000);
	struct folio f = page_folio(testsim_vma(s)->store, vma_store_idx(testsim_vma(s),
								      testsim_addr(s, 5)));
	try_to_migrate(s, f, TTU_BATCH_FLUSH);
	try_to_unmap_flush(s);
	oracle_check_folio(s, f, "before the copy");
	struct oracle_counts n;
	oracle_counts(s, &n);
	assert_int_equal(n.migrations, 1);
	assert_int_equal(n.checks, 1);
	tlb_finish_mmu(&tlb);
	return n.violations;
}

static void test_check_passes_when_pending_gather_makes_unmap_flush(void **state)
{
	assert_int_equal(migrate_inside_gather(mk(state, "v7.3", FLUSH_X86_IPI)), 0);
}

static void test_check_counts_stale_translation_without_pending_check(void **state)
{
	struct sim *s = mk(state, "v7.3+no-pending-check", FLUSH_X86_IPI);
	assert_int_equal(migrate_inside_gather(s), 1);
	assert_int_equal(oracle_nr_reports(s), 1);
	assert_non_null(strstr(oracle_report(s, 0), "change_pte_range"));
	assert_non_null(strstr(oracle_report(s, 0), "set_tlb_ubc_flush_pending"));
}

static void test_check_counts_stale_translation_without_pending_check_arm64(void **state)
{
	assert_int_equal(migrate_inside_gather(mk(state, "v7.3+no-pending-check", FLUSH_ARM64)), 1);
}

/* ---- the migration's unmap and flush are apart in time -------------------- */

/* migrate_pages_begin unmaps and records the batch; until
 * migrate_pages_flush (a later step) every CPU that ran the mm may still
 * translate the page; the copy check then runs after the flush. */
static void test_migration_batch_outstanding_until_its_flush_step(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_X86_IPI);
	struct migrate_ctx *ctx = calloc(1, sizeof(*ctx));
	assert_non_null(ctx);
	testsim_enter(s, 1, 1000);
	struct folio f = page_folio(testsim_vma(s)->store,
				    vma_store_idx(testsim_vma(s), testsim_addr(s, 5)));
	assert_int_equal(migrate_misplaced_folio_prepare(s, f, testsim_vma(s), 1), 0);
	ctx->folios[0] = f;
	ctx->nr = 1;
	ctx->target_nid = 1;
	ctx->mode = MIGRATE_ASYNC;
	ctx->reason = MR_SYSCALL; /* a present PTE: the unmap records a batch */
	migrate_pages_begin(s, ctx);
	struct oracle_counts n;
	oracle_counts(s, &n);
	assert_true(is_migration_entry(*testsim_pte(s, 5)));
	assert_true(s->tasks[1].tlb_ubc.flush_required);
	assert_int_equal(s->st.batch_flushes, 0);
	assert_int_equal(n.migrations, 0); /* no copy yet, so no check */
	assert_int_equal(holders(s, 5), ALL_CPUS);
	/* another CPU's step falls in between: the batch is still pending */
	testsim_enter(s, 2, 2000);
	assert_int_equal(holders(s, 5), ALL_CPUS);
	testsim_enter(s, 1, 3000);
	migrate_pages_flush(s, ctx);
	oracle_counts(s, &n);
	assert_false(s->tasks[1].tlb_ubc.flush_required);
	assert_int_equal(s->st.batch_flushes, 1);
	assert_int_equal(holders(s, 5), 0);
	assert_int_equal(n.migrations, 1);
	assert_int_equal(n.violations, 0);
	assert_int_equal(migrate_pages_finish(s, ctx), 0);
	assert_true(*testsim_pte(s, 5) & PTE_PRESENT);
	free(ctx);
}

/* ---- the zap's return ----------------------------------------------------- */

/* madvise(MADV_DONTNEED) of a present page: gathered, flushed by
 * tlb_finish_mmu, freed; nobody may translate it at the return. */
static void test_zap_flushes_what_it_clears(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_X86_IPI);
	struct vm_area_struct *vma = testsim_vma(s);
	struct folio f = page_folio(vma->store, vma_store_idx(vma, testsim_addr(s, 5)));
	int nid = folio_nid(f);
	uint64_t free_before = s->node_free_pages[nid];
	testsim_enter(s, 2, 1000);
	madvise_dontneed(s, vma, testsim_addr(s, 5), testsim_addr(s, 7));
	struct oracle_counts n;
	oracle_counts(s, &n);
	assert_int_equal(*testsim_pte(s, 5), 0);
	assert_int_equal(*testsim_pte(s, 6), 0);
	assert_true(f.fs->pg[f.idx].flags2 & FOLIO2_FREED);
	assert_int_equal(s->node_free_pages[nid], free_before + 1 +
			 (folio_nid(page_folio(vma->store, f.idx + 1)) == nid));
	assert_int_equal(n.zaps, 1);
	assert_int_equal(n.checks, 2);
	assert_int_equal(n.violations, 0);
	assert_int_equal(holders(s, 5), 0);
}

/* The race the seed's review feared: task A records a batch (page 5);
 * CPU X, off the mm at A's record, comes back to it; task B records a
 * batch (page 9, now a migration entry) that X's TLB may still translate;
 * A's try_to_unmap_flush flushes A's CPUs only.  flush-side-naive then
 * marks the mm's batches flushed, so task C's zap of page 9 finds
 * flush_tlb_batched_pending with nothing to do and returns with X still
 * able to translate the page.  flush-side does not mark (a batch was
 * recorded after A's), and the base never marks. */
static uint64_t two_batches_then_zap(struct sim *s, int *x)
{
	struct mm_struct *mm = &s->mms[0];
	struct vm_area_struct *vma = testsim_vma(s);
	int cpu = *x = s->tasks[3].cpu;
	struct cpu_state *c = &s->cpus[cpu];
	testsim_enter(s, 0, 1000);
	/* X leaves the mm for init_mm, keeping its ASID's entries */
	c->asid_gen[c->loaded_asid] = c->loaded_gen;
	c->loaded_mm = NULL;
	cpumask_clear_cpu(cpu, &mm->cpumask);
	pte_t old = *testsim_pte(s, 5);
	set_pte_at(vma, testsim_addr(s, 5), testsim_pte(s, 5), PTE_MIGRATION);
	set_tlb_ubc_flush_pending(mm, old, testsim_addr(s, 5), testsim_addr(s, 6));
	switch_mm_irqs_off(s, cpu, mm, 1500); /* X back on the mm */
	testsim_enter(s, 1, 2000);
	old = *testsim_pte(s, 9);
	set_pte_at(vma, testsim_addr(s, 9), testsim_pte(s, 9), PTE_MIGRATION);
	set_tlb_ubc_flush_pending(mm, old, testsim_addr(s, 9), testsim_addr(s, 10));
	testsim_enter(s, 0, 3000);
	try_to_unmap_flush(s); /* A's batch: the CPUs of A's record, not X */
	assert_true(holders(s, 9) >> cpu & 1);
	testsim_enter(s, 2, 4000);
	madvise_dontneed(s, vma, testsim_addr(s, 9), testsim_addr(s, 10));
	assert_int_equal(*testsim_pte(s, 9), 0);
	struct oracle_counts n;
	oracle_counts(s, &n);
	assert_int_equal(n.zaps, 1);
	return n.violations;
}

static void test_zap_after_naive_mark_leaves_stale_translation(void **state)
{
	struct sim *s = mk(state, "v7.3+flush-side-naive", FLUSH_X86_IPI);
	int x;
	assert_int_equal(two_batches_then_zap(s, &x), 1);
	assert_int_equal(oracle_nr_reports(s), 1);
	const char *r = oracle_report(s, 0);
	char want[64];
	snprintf(want, sizeof(want), "may still translate it: cpu%d ", x);
	assert_non_null(strstr(r, "stale translation after the zap returned"));
	assert_non_null(strstr(r, want));
	assert_non_null(strstr(r, "marked the mm's unmap batches flushed up to generation 2 "
				  "(its own batch: generation 1"));
	assert_non_null(strstr(r, "flush_tlb_batched_pending: pending == flushed, no flush"));
	assert_non_null(strstr(r, "set_tlb_ubc_flush_pending recorded a batch at 0x"));
}

static void test_zap_after_flush_side_is_safe(void **state)
{
	int x;
	assert_int_equal(two_batches_then_zap(mk(state, "v7.3+flush-side", FLUSH_X86_IPI), &x), 0);
}

static void test_zap_on_base_is_safe(void **state)
{
	int x;
	assert_int_equal(two_batches_then_zap(mk(state, "v7.3", FLUSH_X86_IPI), &x), 0);
}

/* ---- arm64: a batched TLBI completes at its issuer's DSB ----------------- */

/* Task @i unmaps page @p into its batch (a migration entry; the batched
 * TLBI issued on its CPU, not waited for). */
static void record_unmap(struct sim *s, int i, uint64_t p, uint64_t now)
{
	testsim_enter(s, i, now);
	pte_t old = *testsim_pte(s, p);
	set_pte_at(testsim_vma(s), testsim_addr(s, p), testsim_pte(s, p), PTE_MIGRATION);
	set_tlb_ubc_flush_pending(&s->mms[0], old, testsim_addr(s, p), testsim_addr(s, p + 1));
}

static void test_arm64_batched_tlbi_held_until_its_issuers_dsb(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_ARM64);
	record_unmap(s, 1, 9, 1000);
	assert_int_equal(holders(s, 9), ALL_CPUS); /* issued, not complete */
	testsim_enter(s, 0, 2000);
	arm64_dsb(&s->mms[0]); /* another CPU's DSB waits for its own TLBIs only */
	assert_int_equal(holders(s, 9), ALL_CPUS);
	testsim_enter(s, 1, 3000);
	try_to_unmap_flush(s); /* the issuer's DSB */
	assert_int_equal(holders(s, 9), 0);
}

static void test_arm64_tlbi_and_dsb_of_a_flush_completes_the_issuers_batch(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_ARM64);
	record_unmap(s, 1, 9, 1000);
	/* a ranged flush elsewhere on the same CPU ends with DSB ISH */
	testsim_enter(s, 1, 2000);
	flush_tlb_range(testsim_vma(s), testsim_addr(s, 100), testsim_addr(s, 101));
	assert_int_equal(holders(s, 9), 0);
}

/* Task B records page 9, then task A records page 5 and flushes: A's DSB
 * completes A's TLBIs, not B's.  flush-side marks the mm's batches
 * flushed (no batch was recorded after A's), so task C's zap of page 9
 * skips flush_tlb_batched_pending and returns while every CPU may still
 * translate it.  The base does not mark, and C's flush_tlb_mm covers it. */
static uint64_t earlier_batch_then_zap(struct sim *s)
{
	record_unmap(s, 1, 9, 1000);
	record_unmap(s, 0, 5, 2000);
	try_to_unmap_flush(s);
	testsim_enter(s, 2, 3000);
	madvise_dontneed(s, testsim_vma(s), testsim_addr(s, 9), testsim_addr(s, 10));
	struct oracle_counts n;
	oracle_counts(s, &n);
	return n.violations;
}

static void test_arm64_flush_side_marks_another_tasks_incomplete_batch(void **state)
{
	struct sim *s = mk(state, "v7.3+flush-side", FLUSH_ARM64);
	assert_int_equal(earlier_batch_then_zap(s), 1);
	const char *r = oracle_report(s, 0);
	assert_non_null(strstr(r, "may still translate it: cpu0 "));
	assert_non_null(strstr(r, "(its own batch: generation 2)"));
	assert_non_null(strstr(r, "flush_tlb_batched_pending: pending == flushed, no flush"));
}

static void test_arm64_base_flushes_the_incomplete_batch(void **state)
{
	assert_int_equal(earlier_batch_then_zap(mk(state, "v7.3", FLUSH_ARM64)), 0);
}

/* Before 4b634918384c, arm64's flush_tlb_batched_pending was a DSB on the
 * caller's CPU, which does not complete another CPU's batched TLBIs. */
static void test_arm64_pending_dsb_only_leaves_another_cpus_batch(void **state)
{
	struct sim *s = mk(state, "v6.12", FLUSH_ARM64);
	record_unmap(s, 1, 9, 1000);
	testsim_enter(s, 2, 2000);
	madvise_dontneed(s, testsim_vma(s), testsim_addr(s, 9), testsim_addr(s, 10));
	struct oracle_counts n;
	oracle_counts(s, &n);
	assert_int_equal(n.violations, 1);
	assert_non_null(strstr(oracle_report(s, 0), "arch_flush_tlb_batched_pending, a DSB only"));
}

/* ---- the broken variants do what they claim ----------------------------- */

static void test_no_pending_check_ignores_an_open_gather(void **state)
{
	struct sim *s = mk(state, "v7.3+no-pending-check", FLUSH_X86_IPI);
	struct mm_struct *mm = &s->mms[0];
	testsim_enter(s, 0, 1000);
	inc_tlb_flush_pending(mm);
	assert_false(pte_accessible(mm, PTE_PROTNONE | PTE_YOUNG));
	assert_true(pte_accessible(mm, PTE_PRESENT));
	dec_tlb_flush_pending(mm);
}

static void test_pending_flag_loses_an_overlapping_gather(void **state)
{
	struct sim *s = mk(state, "v7.3+pending-flag", FLUSH_X86_IPI);
	struct mm_struct *mm = &s->mms[0];
	struct mmu_gather a, b;
	testsim_enter(s, 0, 1000);
	tlb_gather_mmu(&a, mm);
	tlb_gather_mmu(&b, mm);
	assert_false(mm_tlb_flush_nested(mm));
	tlb_finish_mmu(&b);
	/* gather a is still open, but nothing says so any more */
	assert_false(mm_tlb_flush_pending(mm));
	assert_false(pte_accessible(mm, PTE_PROTNONE | PTE_YOUNG));
	tlb_finish_mmu(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_teardown(f, testsim_teardown)
		T(test_every_cpu_running_the_mm_may_hold_a_page_made_protnone),
		T(test_restored_pte_is_not_stale),
		T(test_x86_full_flush_drops_every_page),
		T(test_x86_ranged_flush_drops_only_its_range),
		T(test_x86_single_page_flush_drops_one_page),
		T(test_x86_batched_unmap_flush_drops_everything),
		T(test_invlpgb_broadcast_drops_on_every_cpu),
		T(test_arm64_tlbi_range_and_asid),
		T(test_riscv_ranged_round_drops_its_range),
		T(test_lazy_cpu_keeps_translations_until_it_flushes),
		T(test_lazy_cpu_back_without_catch_up_still_holds),
		T(test_switch_back_with_stale_asid_flushes),
		T(test_check_passes_when_pending_gather_makes_unmap_flush),
		T(test_check_counts_stale_translation_without_pending_check),
		T(test_check_counts_stale_translation_without_pending_check_arm64),
		T(test_migration_batch_outstanding_until_its_flush_step),
		T(test_zap_flushes_what_it_clears),
		T(test_zap_after_naive_mark_leaves_stale_translation),
		T(test_zap_after_flush_side_is_safe),
		T(test_zap_on_base_is_safe),
		T(test_arm64_batched_tlbi_held_until_its_issuers_dsb),
		T(test_arm64_tlbi_and_dsb_of_a_flush_completes_the_issuers_batch),
		T(test_arm64_flush_side_marks_another_tasks_incomplete_batch),
		T(test_arm64_base_flushes_the_incomplete_batch),
		T(test_arm64_pending_dsb_only_leaves_another_cpus_batch),
		T(test_no_pending_check_ignores_an_open_gather),
		T(test_pending_flag_loses_an_overlapping_gather),
#undef T
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
