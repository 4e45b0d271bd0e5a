/* TLB rules: pte_accessible, the x86 flush range ceiling, IPI receivers,
 * broadcast engines (INVLPGB, arm64) and the nested mmu_gather. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "asm/tlbflush.h"
#include "kernel/sched/sched.h"
#include "linux/mm.h"
#include "unit/helpers/testsim.h"


#define mk testsim_mk

static unsigned long long ev(struct sim *s, int cpu, enum vm_event_item item)
{
	return vm_event_cpu(s, cpu, item);
}

/* ---- rule 1: pte_accessible --------------------------------------------- */

static void check_protnone_needs_pending(struct sim *s)
{
	struct mm_struct *mm = &s->mms[0];
	pte_t protnone = PTE_PROTNONE | PTE_YOUNG | PTE_DIRTY;

	testsim_enter(s, 0, 0);
	assert_int_equal(mm->tlb_flush_pending, 0);
	assert_false(pte_accessible(mm, protnone));
	inc_tlb_flush_pending(mm);
	assert_true(pte_accessible(mm, protnone));
	inc_tlb_flush_pending(mm);
	assert_true(pte_accessible(mm, protnone));
	dec_tlb_flush_pending(mm);
	dec_tlb_flush_pending(mm);
	assert_false(pte_accessible(mm, protnone));
}

static void test_pte_accessible_protnone_only_while_flush_pending_x86(void **state)
{
	check_protnone_needs_pending(mk(state, "v7.3", FLUSH_X86_IPI));
}

static void test_pte_accessible_protnone_only_while_flush_pending_arm64(void **state)
{
	check_protnone_needs_pending(mk(state, "v7.3", FLUSH_ARM64));
}

static void check_present_always_none_never(struct sim *s)
{
	struct mm_struct *mm = &s->mms[0];
	pte_t present = PTE_PRESENT | PTE_WRITE | PTE_YOUNG | PTE_DIRTY;
	pte_t migration = PTE_MIGRATION | PTE_WRITE | PTE_YOUNG | PTE_DIRTY;

	testsim_enter(s, 0, 0);
	for (int pending = 0; pending < 2; pending++) {
		mm->tlb_flush_pending = pending;
		assert_true(pte_accessible(mm, present));
		assert_true(pte_accessible(mm, PTE_PRESENT));
		assert_false(pte_accessible(mm, 0));
		assert_false(pte_accessible(mm, migration));
		assert_false(pte_accessible(mm, PTE_MIGRATION));
	}
	mm->tlb_flush_pending = 0;
}

static void test_pte_accessible_present_always_none_and_migration_never_x86(void **state)
{
	check_present_always_none_never(mk(state, "v7.3", FLUSH_X86_IPI));
}

static void test_pte_accessible_present_always_none_and_migration_never_arm64(void **state)
{
	check_present_always_none_never(mk(state, "v7.3", FLUSH_ARM64));
}

/* ---- rule 6: tlb_single_page_flush_ceiling ------------------------------ */

static void test_flush_over_ceiling_becomes_full_flush(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_X86_IPI);
	struct mm_struct *mm = &s->mms[0];
	uint64_t a = testsim_addr(s, 0);

	assert_int_equal(s->m.tlb_single_page_flush_ceiling, 33);
	testsim_enter(s, 0, NSEC_PER_SEC);
	flush_tlb_mm_range(mm, a, a + 34 * PAGE_SIZE, PAGE_SHIFT, false);
	assert_int_equal(ev(s, 0, NR_TLB_LOCAL_FLUSH_ALL), 1);
	assert_int_equal(ev(s, 0, NR_TLB_LOCAL_FLUSH_ONE), 0);
}

static void test_flush_at_ceiling_stays_per_page(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_X86_IPI);
	struct mm_struct *mm = &s->mms[0];
	uint64_t a = testsim_addr(s, 0);

	testsim_enter(s, 0, NSEC_PER_SEC);
	flush_tlb_mm_range(mm, a, a + 33 * PAGE_SIZE, PAGE_SHIFT, false);
	assert_int_equal(ev(s, 0, NR_TLB_LOCAL_FLUSH_ONE), 33);
	assert_int_equal(ev(s, 0, NR_TLB_LOCAL_FLUSH_ALL), 0);
}

static void test_flush_two_pages_counts_local_flush_one_per_page(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_X86_IPI);
	struct mm_struct *mm = &s->mms[0];
	uint64_t a = testsim_addr(s, 0);

	testsim_enter(s, 0, NSEC_PER_SEC);
	assert_ptr_equal(s->cpus[0].loaded_mm, mm);
	flush_tlb_mm_range(mm, a, a + 2 * PAGE_SIZE, PAGE_SHIFT, false);
	assert_int_equal(ev(s, 0, NR_TLB_LOCAL_FLUSH_ONE), 2);
	assert_int_equal(ev(s, 0, NR_TLB_LOCAL_FLUSH_ALL), 0);
	/* the receivers do not count local flushes */
	for (int c = 1; c < 4; c++) {
		assert_int_equal(ev(s, c, NR_TLB_LOCAL_FLUSH_ONE), 0);
		assert_int_equal(ev(s, c, NR_TLB_LOCAL_FLUSH_ALL), 0);
	}
}

/* ---- rule 7: the receiver counts the IPI even when up to date ----------- */

static void test_receiver_counts_ipi_even_when_tlb_gen_current(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_X86_IPI);
	struct mm_struct *mm = &s->mms[0];
	double refill[4];

	testsim_enter(s, 0, NSEC_PER_SEC);
	for (int c = 1; c < 4; c++) {
		s->cpus[c].loaded_gen = mm->tlb_gen + 1; /* already up to date */
		refill[c] = engine_cost(&s->e.acct[c], COST_TLB_REFILL);
	}
	flush_tlb_mm(mm);
	assert_int_equal(ev(s, 0, NR_TLB_REMOTE_FLUSH), 1);
	for (int c = 1; c < 4; c++) {
		assert_int_equal(testsim_irqs(s, c), 1);
		assert_int_equal(ev(s, c, NR_TLB_REMOTE_FLUSH_RECEIVED), 1);
		assert_true(engine_cost(&s->e.acct[c], COST_TLB_REFILL) == refill[c]);
	}
	/* the initiator does not count an IPI for itself */
	assert_int_equal(testsim_irqs(s, 0), 0);
	assert_int_equal(ev(s, 0, NR_TLB_REMOTE_FLUSH_RECEIVED), 0);
}

static void test_receiver_behind_tlb_gen_refills(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_X86_IPI);
	struct mm_struct *mm = &s->mms[0];
	double before = engine_cost(&s->e.acct[2], COST_TLB_REFILL);

	testsim_enter(s, 0, NSEC_PER_SEC);
	flush_tlb_mm(mm);
	assert_int_equal(testsim_irqs(s, 2), 1);
	assert_true(engine_cost(&s->e.acct[2], COST_TLB_REFILL) > before);
	assert_int_equal(s->cpus[2].loaded_gen, mm->tlb_gen);
}

/* ---- the round ledger: a round's like receivers are settled later ------- */

/* @n flush rounds from CPU 0 from @t0 on, 5 us and 300 us apart in turn
 * (under and over the refill's cap), now and then one 200 us earlier than
 * the last (rounds of different steps are not in time order): full
 * flushes, ranges of one to three pages, ranges after a generation another
 * flush took (full for the receivers), and batch rounds (mm NULL).
 * Returns the last time. */
static uint64_t ledger_rounds_run(struct sim *s, int n, uint64_t t0)
{
	struct mm_struct *mm = &s->mms[0];
	uint64_t a = testsim_addr(s, 0), t = t0;
	for (int k = 0; k < n; k++) {
		t += k % 2 ? 5000 : 300000;
		if (k % 7 == 6)
			t -= 200000 + 5000;
		testsim_enter(s, 0, t);
		if (k % 5 == 3)
			mm->tlb_gen++; /* as a batched unmap's inc_mm_tlb_gen */
		if (k % 6 == 5) {
			struct arch_tlbflush_unmap_batch b = { 0 };
			arch_tlbbatch_add_pending(&b, mm, a, a + PAGE_SIZE);
			arch_tlbbatch_flush(s, &b);
		} else if (k % 4 == 0) {
			flush_tlb_mm(mm);
		} else {
			flush_tlb_mm_range(mm, a, a + (uint64_t)(k % 4) * PAGE_SIZE, PAGE_SHIFT, false);
		}
	}
	return t;
}

/* The same world with no ledger: every round handles every receiver. */
static struct sim *one_by_one(void)
{
	struct sim *e = testsim_new("v7.3", FLUSH_X86_IPI);
	e->no_ledger = true;
	return e;
}

/* The world in *state and its twin with no ledger (w[0], w[1]), both after
 * @n rounds of ledger_rounds_run; returns the last round's time. */
static uint64_t ledger_pair(void **state, int n, struct sim *w[2])
{
	w[0] = mk(state, "v7.3", FLUSH_X86_IPI);
	w[1] = one_by_one();
	uint64_t t = ledger_rounds_run(w[0], n, NSEC_PER_SEC);
	ledger_rounds_run(w[1], n, NSEC_PER_SEC);
	return t;
}

static void assert_receivers_equal(struct sim *a, struct sim *b)
{
	flush_ledger_settle_all(a);
	flush_ledger_settle_all(b);
	for (int c = 1; c < 4; c++) {
		assert_int_equal(a->cpus[c].irq_tlb_count, b->cpus[c].irq_tlb_count);
		assert_true(a->e.acct[c].rx_ipi == b->e.acct[c].rx_ipi);
		assert_true(a->e.acct[c].rx_refill == b->e.acct[c].rx_refill);
		assert_int_equal(a->cpus[c].loaded_gen, b->cpus[c].loaded_gen);
		assert_int_equal(a->cpus[c].last_full_flush, b->cpus[c].last_full_flush);
		assert_int_equal(a->e.acct[c].busy_until, b->e.acct[c].busy_until);
	}
}

static void test_ledger_members_settle_to_the_one_by_one_state(void **state)
{
	struct sim *w[2];
	ledger_pair(state, 40, w);
	struct sim *s = w[0], *e = w[1];
	assert_null(e->cpus[1].ledger_mm);
	/* the receivers joined after the first round: the ledger did the rest */
	for (int c = 1; c < 4; c++)
		assert_ptr_equal(s->cpus[c].ledger_mm, &s->mms[0]);
	assert_int_equal(s->mms[0].rx_ledger.rounds, 39);
	assert_true(s->e.acct[1].rx_refill > 0);
	assert_receivers_equal(s, e);
	assert_int_equal(testsim_irqs(s, 1), 40);
	testsim_free(e);
}

static void test_ledger_member_entering_the_kernel_leaves_settled(void **state)
{
	struct sim *w[2];
	uint64_t t = ledger_pair(state, 6, w);
	struct sim *s = w[0], *e = w[1];
	struct task_struct *p = &s->tasks[2];
	testsim_enter(s, 2, t);
	task_set_act(s, p, ACT_FAULT);
	assert_null(s->cpus[p->cpu].ledger_mm);
	assert_int_equal(testsim_irqs(s, p->cpu), 6); /* what it missed, settled */
	/* in the kernel, it gets the next round itself, which delays its path */
	testsim_enter(s, 0, t + 1000);
	flush_tlb_mm(&s->mms[0]);
	assert_null(s->cpus[p->cpu].ledger_mm);
	assert_int_equal(testsim_irqs(s, p->cpu), 7);
	assert_ptr_equal(s->cpus[3].ledger_mm, &s->mms[0]);
	task_set_act(s, p, ACT_USER);
	testsim_enter(e, 2, t);
	task_set_act(e, &e->tasks[2], ACT_FAULT);
	testsim_enter(e, 0, t + 1000);
	flush_tlb_mm(&e->mms[0]);
	task_set_act(e, &e->tasks[2], ACT_USER);
	assert_receivers_equal(s, e);
	testsim_free(e);
}

static void test_ledger_member_busy_leaves_for_a_round_that_delays_it(void **state)
{
	struct sim *w[2];
	uint64_t t = ledger_pair(state, 6, w);
	struct sim *s = w[0], *e = w[1];
	int cpu = s->tasks[3].cpu;
	for (int i = 0; i < 2; i++) { /* a step of its own without a timer, to t + 50 us */
		w[i]->e.acct[cpu].busy_until = t + 50000;
		flush_ledger_busy(w[i], cpu, t + 50000);
	}
	assert_ptr_equal(s->cpus[cpu].ledger_mm, &s->mms[0]);
	for (int i = 0; i < 2; i++) {
		testsim_enter(w[i], 0, t + 10000);
		flush_tlb_mm(&w[i]->mms[0]);
	}
	assert_true(s->e.acct[cpu].busy_until > t + 50000); /* the interrupt delayed it */
	assert_int_equal(testsim_irqs(s, cpu), 7);
	assert_ptr_equal(s->cpus[1].ledger_mm, &s->mms[0]); /* the others stay */
	assert_receivers_equal(s, e);
	testsim_free(e);
}

/* One flush round from CPU 0 at @t: a one-page range, or the whole mm. */
static void round_at(struct sim *s, uint64_t t, bool range)
{
	uint64_t a = testsim_addr(s, 0);
	testsim_enter(s, 0, t);
	if (range)
		flush_tlb_mm_range(&s->mms[0], a, a + PAGE_SIZE, PAGE_SHIFT, false);
	else
		flush_tlb_mm(&s->mms[0]);
}

/* CPU 3 refilled on its own (its last full flush later than the members'):
 * after a range round it is as far behind in generation but not in time,
 * so it stays out, and the full round after charges its own refill. */
static void test_ledger_joins_only_as_far_behind(void **state)
{
	struct sim *w[2];
	uint64_t t = ledger_pair(state, 6, w);
	struct sim *s = w[0], *e = w[1];
	for (int i = 0; i < 2; i++) {
		testsim_enter(w[i], 3, t + 1000);
		tlb_full_flush_refill(w[i], 3);
		round_at(w[i], t + 2000, true);
	}
	assert_null(s->cpus[3].ledger_mm);
	assert_ptr_equal(s->cpus[1].ledger_mm, &s->mms[0]);
	for (int i = 0; i < 2; i++)
		round_at(w[i], t + 3000, false);
	assert_ptr_equal(s->cpus[3].ledger_mm, &s->mms[0]); /* in step again */
	assert_receivers_equal(s, e);
	testsim_free(e);
}

/* A CPU joins with its last step's end behind the round's time but ahead
 * of a later round's (rounds of different steps are not in time order):
 * that round delays it, one by one. */
static void test_ledger_join_keeps_a_busy_end_for_earlier_rounds(void **state)
{
	struct sim *w[2];
	uint64_t t = ledger_pair(state, 6, w);
	struct sim *s = w[0], *e = w[1];
	for (int i = 0; i < 2; i++) {
		struct task_struct *p = &w[i]->tasks[3];
		testsim_enter(w[i], 3, t + 1000);
		task_set_act(w[i], p, ACT_FAULT);
		task_set_act(w[i], p, ACT_USER);
		w[i]->e.acct[p->cpu].busy_until = t + 1800;
		round_at(w[i], t + 2000, true);
		round_at(w[i], t + 1500, true);
	}
	assert_true(s->e.acct[s->tasks[3].cpu].busy_until > t + 1800); /* delayed */
	assert_receivers_equal(s, e);
	testsim_free(e);
}

/* Time stolen from a member busy until later (a softirq's, by steal())
 * delays it further: a round in that extra time delays it too. */
static void test_ledger_member_delayed_by_a_steal_stays_busy(void **state)
{
	struct sim *w[2];
	uint64_t t = ledger_pair(state, 6, w);
	struct sim *s = w[0], *e = w[1];
	int cpu = s->tasks[3].cpu;
	for (int i = 0; i < 2; i++) {
		w[i]->e.acct[cpu].busy_until = t + 2000;
		flush_ledger_busy(w[i], cpu, t + 2000);
		testsim_enter(w[i], 0, t + 1000);
		steal(w[i], cpu, COST_SCHED, 5000);
	}
	assert_ptr_equal(s->cpus[cpu].ledger_mm, &s->mms[0]);
	for (int i = 0; i < 2; i++)
		round_at(w[i], t + 4000, true);
	assert_true(s->e.acct[cpu].busy_until > t + 7000); /* the round delayed it too */
	assert_receivers_equal(s, e);
	testsim_free(e);
}

/* ---- rule 8: broadcast engines send no IPIs ----------------------------- */

static void test_x86_ipi_flush_interrupts_other_cpus(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_X86_IPI);
	struct mm_struct *mm = &s->mms[0];
	uint64_t a = testsim_addr(s, 0);

	testsim_enter(s, 0, NSEC_PER_SEC);
	flush_tlb_mm_range(mm, a, a + 2 * PAGE_SIZE, PAGE_SHIFT, false);
	assert_int_equal(testsim_tlb_irqs(s), 3);
	assert_int_equal(testsim_event(s, NR_TLB_REMOTE_FLUSH), 1);
}

static void test_invlpgb_global_asid_flush_sends_no_ipis(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_X86_INVLPGB);
	struct mm_struct *mm = &s->mms[0];
	uint64_t a = testsim_addr(s, 0);

	mm->global_asid = true;
	testsim_enter(s, 0, NSEC_PER_SEC);
	flush_tlb_mm_range(mm, a, a + 2 * PAGE_SIZE, PAGE_SHIFT, false);
	flush_tlb_mm(mm);
	assert_int_equal(s->st.broadcasts, 2);
	assert_int_equal(testsim_tlb_irqs(s), 0);
	assert_int_equal(testsim_event(s, NR_TLB_REMOTE_FLUSH), 0);
	assert_int_equal(testsim_event(s, NR_TLB_REMOTE_FLUSH_RECEIVED), 0);
}

static void test_invlpgb_batch_flush_sends_no_ipis(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_X86_INVLPGB);
	struct mm_struct *mm = &s->mms[0];
	struct arch_tlbflush_unmap_batch *b;
	uint64_t a = testsim_addr(s, 0);

	testsim_enter(s, 0, NSEC_PER_SEC);
	b = &s->current->tlb_ubc.arch;
	arch_tlbbatch_add_pending(b, mm, a, a + PAGE_SIZE);
	assert_true(b->unmapped_pages);
	arch_tlbbatch_flush(s, b);
	assert_int_equal(s->st.broadcasts, 1);
	assert_int_equal(testsim_tlb_irqs(s), 0);
	assert_int_equal(testsim_event(s, NR_TLB_REMOTE_FLUSH), 0);
}

static void test_arm64_flushes_send_no_ipis(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_ARM64);
	struct mm_struct *mm = &s->mms[0];
	struct arch_tlbflush_unmap_batch *b;
	uint64_t a = testsim_addr(s, 0);

	testsim_enter(s, 0, NSEC_PER_SEC);
	flush_tlb_mm_range(mm, a, a + 2 * PAGE_SIZE, PAGE_SHIFT, false);
	flush_tlb_mm(mm);
	b = &s->current->tlb_ubc.arch;
	arch_tlbbatch_add_pending(b, mm, a, a + PAGE_SIZE);
	arch_tlbbatch_flush(s, b);
	assert_int_equal(s->st.broadcasts, 2);
	assert_int_equal(s->st.batch_flushes, 1);
	assert_int_equal(testsim_tlb_irqs(s), 0);
	assert_int_equal(testsim_event(s, NR_TLB_REMOTE_FLUSH), 0);
	assert_int_equal(testsim_event(s, NR_TLB_REMOTE_FLUSH_RECEIVED), 0);
}

/* ---- base switches of the architectures --------------------------------- */

/* A base before v6.15 has no INVLPGB support: on an INVLPGB machine its
 * batch flush is an IPI round like any x86. */
static void test_invlpgb_machine_flushes_with_ipis_before_v6_15(void **state)
{
	struct sim *s = mk(state, "v6.8", FLUSH_X86_INVLPGB);
	struct mm_struct *mm = &s->mms[0];
	struct arch_tlbflush_unmap_batch *b;
	uint64_t a = testsim_addr(s, 0);

	testsim_enter(s, 0, NSEC_PER_SEC);
	b = &s->current->tlb_ubc.arch;
	arch_tlbbatch_add_pending(b, mm, a, a + PAGE_SIZE);
	arch_tlbbatch_flush(s, b);
	assert_int_equal(s->st.broadcasts, 0);
	assert_int_equal(testsim_tlb_irqs(s), 3);
	assert_int_equal(testsim_event(s, NR_TLB_REMOTE_FLUSH), 1);
	/* and no global ASID is ever handed out */
	for (int i = 0; i < 64; i++) {
		testsim_enter(s, i % 4, NSEC_PER_SEC + (uint64_t)i * 4000000);
		flush_tlb_mm(mm);
	}
	assert_false(mm->global_asid);
	assert_int_equal(s->st.broadcasts, 0);
}

/* riscv before v6.8 does not batch unmap flushes, and before v6.11 its
 * pte_accessible is the generic "always": a PROT_NONE PTE counts as cached. */
static void test_riscv_switches_by_base(void **state)
{
	struct sim *s = mk(state, "v6.4", FLUSH_RISCV);
	struct mm_struct *mm = &s->mms[0];
	pte_t protnone = PTE_PROTNONE | PTE_YOUNG;

	testsim_enter(s, 0, NSEC_PER_SEC);
	assert_false(arch_tlbbatch_should_defer(mm));
	assert_true(pte_accessible(mm, protnone));
	testsim_teardown(state);
	s = mk(state, "v6.8", FLUSH_RISCV);
	mm = &s->mms[0];
	testsim_enter(s, 0, NSEC_PER_SEC);
	assert_true(arch_tlbbatch_should_defer(mm));
	assert_true(pte_accessible(mm, protnone));
	testsim_teardown(state);
	s = mk(state, "v7.3", FLUSH_RISCV);
	mm = &s->mms[0];
	testsim_enter(s, 0, NSEC_PER_SEC);
	assert_true(arch_tlbbatch_should_defer(mm));
	assert_false(pte_accessible(mm, protnone));
	inc_tlb_flush_pending(mm);
	assert_true(pte_accessible(mm, protnone));
	dec_tlb_flush_pending(mm);
}

/* arm64 __flush_tlb_range: without FEAT_TLBIRANGE a range of 512 pages or
 * more is a whole-ASID flush (every CPU running the mm refills); with it,
 * a 256 MiB range is a few range TLBIs and nobody refills. */
static void test_arm64_range_tlbi_machine_key(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_ARM64);
	struct mm_struct *mm = &s->mms[0];
	uint64_t a = testsim_addr(s, 0);

	testsim_enter(s, 0, NSEC_PER_SEC);
	double refill0 = engine_cost(&s->e.acct[1], COST_TLB_REFILL);
	flush_tlb_mm_range(mm, a, a + (256ul << 20), PAGE_SHIFT, false);
	assert_true(engine_cost(&s->e.acct[1], COST_TLB_REFILL) > refill0);

	s->m.arm64_tlbi_range = true;
	testsim_enter(s, 0, 2 * NSEC_PER_SEC);
	refill0 = engine_cost(&s->e.acct[1], COST_TLB_REFILL);
	double wait0 = s->e.acct[0].cost[COST_FLUSH_WAIT];
	flush_tlb_mm_range(mm, a, a + (256ul << 20), PAGE_SHIFT, false);
	assert_true(engine_cost(&s->e.acct[1], COST_TLB_REFILL) == refill0);
	/* 65536 pages: 65536 / 2 = 32768 = 1 << 15, one scale-3 range TLBI */
	assert_true(s->e.acct[0].cost[COST_FLUSH_WAIT] - wait0 ==
		    s->m.cost.tlbi_ns + s->m.cost.dsb_ns);
	/* above MAX_TLBI_RANGE_PAGES (8 GiB) the whole ASID again */
	testsim_enter(s, 0, 3 * NSEC_PER_SEC);
	flush_tlb_mm_range(mm, a, a + (9ull << 30), PAGE_SHIFT, false);
	assert_true(engine_cost(&s->e.acct[1], COST_TLB_REFILL) > refill0);
}

/* ---- rule 11: a nested gather finishes with a full flush ---------------- */

static void change_one_pte(struct sim *s, struct mmu_gather *tlb, uint64_t page)
{
	uint64_t a = testsim_addr(s, page);
	pte_t *ptep = testsim_pte(s, page);
	set_pte_at(testsim_vma(s), a, ptep, PTE_PROTNONE | (*ptep & (PTE_YOUNG | PTE_DIRTY | PTE_SIM_HOT)));
	tlb_flush_pte_range(tlb, a, PAGE_SIZE);
}

static void test_nested_gather_finishes_with_full_flush(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_X86_IPI);
	struct mm_struct *mm = &s->mms[0];
	struct mmu_gather outer, inner;

	testsim_enter(s, 0, NSEC_PER_SEC);
	s->cpus[3].is_lazy = true; /* only a freed_tables flush reaches it */
	tlb_gather_mmu(&outer, mm);
	tlb_gather_mmu(&inner, mm);
	assert_int_equal(mm->tlb_flush_pending, 2);
	change_one_pte(s, &outer, 7);
	tlb_finish_mmu(&outer);

	assert_int_equal(ev(s, 0, NR_TLB_LOCAL_FLUSH_ALL), 1);
	assert_int_equal(ev(s, 0, NR_TLB_LOCAL_FLUSH_ONE), 0);
	assert_int_equal(ev(s, 0, NR_TLB_REMOTE_FLUSH), 1);
	for (int c = 1; c < 4; c++)
		assert_int_equal(testsim_irqs(s, c), 1); /* the lazy CPU 3 too */
	assert_null(s->cpus[3].loaded_mm);                 /* it switched to init_mm */
	assert_int_equal(mm->tlb_flush_pending, 1);

	/* the other gather changed nothing and is no longer nested */
	tlb_finish_mmu(&inner);
	assert_int_equal(ev(s, 0, NR_TLB_REMOTE_FLUSH), 1);
	assert_int_equal(mm->tlb_flush_pending, 0);
}

static void test_lone_gather_flushes_one_page(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_X86_IPI);
	struct mm_struct *mm = &s->mms[0];
	struct mmu_gather tlb;

	testsim_enter(s, 0, NSEC_PER_SEC);
	s->cpus[3].is_lazy = true;
	tlb_gather_mmu(&tlb, mm);
	change_one_pte(s, &tlb, 7);
	tlb_finish_mmu(&tlb);

	assert_int_equal(ev(s, 0, NR_TLB_LOCAL_FLUSH_ONE), 1);
	assert_int_equal(ev(s, 0, NR_TLB_LOCAL_FLUSH_ALL), 0);
	assert_int_equal(testsim_irqs(s, 1), 1);
	assert_int_equal(testsim_irqs(s, 2), 1);
	assert_int_equal(testsim_irqs(s, 3), 0); /* lazy: skipped */
	assert_ptr_equal(s->cpus[3].loaded_mm, mm);
	assert_int_equal(mm->tlb_flush_pending, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_pte_accessible_protnone_only_while_flush_pending_x86, testsim_teardown),
		cmocka_unit_test_teardown(test_pte_accessible_protnone_only_while_flush_pending_arm64, testsim_teardown),
		cmocka_unit_test_teardown(test_pte_accessible_present_always_none_and_migration_never_x86, testsim_teardown),
		cmocka_unit_test_teardown(test_pte_accessible_present_always_none_and_migration_never_arm64, testsim_teardown),
		cmocka_unit_test_teardown(test_flush_over_ceiling_becomes_full_flush, testsim_teardown),
		cmocka_unit_test_teardown(test_flush_at_ceiling_stays_per_page, testsim_teardown),
		cmocka_unit_test_teardown(test_flush_two_pages_counts_local_flush_one_per_page, testsim_teardown),
		cmocka_unit_test_teardown(test_receiver_counts_ipi_even_when_tlb_gen_current, testsim_teardown),
		cmocka_unit_test_teardown(test_receiver_behind_tlb_gen_refills, testsim_teardown),
		cmocka_unit_test_teardown(test_ledger_members_settle_to_the_one_by_one_state, testsim_teardown),
		cmocka_unit_test_teardown(test_ledger_member_entering_the_kernel_leaves_settled, testsim_teardown),
		cmocka_unit_test_teardown(test_ledger_member_busy_leaves_for_a_round_that_delays_it, testsim_teardown),
		cmocka_unit_test_teardown(test_ledger_joins_only_as_far_behind, testsim_teardown),
		cmocka_unit_test_teardown(test_ledger_join_keeps_a_busy_end_for_earlier_rounds, testsim_teardown),
		cmocka_unit_test_teardown(test_ledger_member_delayed_by_a_steal_stays_busy, testsim_teardown),
		cmocka_unit_test_teardown(test_x86_ipi_flush_interrupts_other_cpus, testsim_teardown),
		cmocka_unit_test_teardown(test_invlpgb_global_asid_flush_sends_no_ipis, testsim_teardown),
		cmocka_unit_test_teardown(test_invlpgb_batch_flush_sends_no_ipis, testsim_teardown),
		cmocka_unit_test_teardown(test_arm64_flushes_send_no_ipis, testsim_teardown),
		cmocka_unit_test_teardown(test_invlpgb_machine_flushes_with_ipis_before_v6_15, testsim_teardown),
		cmocka_unit_test_teardown(test_riscv_switches_by_base, testsim_teardown),
		cmocka_unit_test_teardown(test_arm64_range_tlbi_machine_key, testsim_teardown),
		cmocka_unit_test_teardown(test_nested_gather_finishes_with_full_flush, testsim_teardown),
		cmocka_unit_test_teardown(test_lone_gather_flushes_one_page, testsim_teardown),
	};
	return cmocka_run_group_tests_name("tlb", tests, NULL, NULL);
}
