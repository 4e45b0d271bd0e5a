/* mm/debug.c: the full-state checker finds each broken invariant, says
 * what broke and where, and passes a consistent world -- also in the
 * middle of a migration (migration entries, mapcount 0, a reserved
 * destination page) and of a scanner's mmu_gather. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "asm/tlbflush.h"
#include "linux/migrate.h"
#include "linux/mm.h"
#include "linux/mmdebug.h"
#include "unit/helpers/testsim.h"

static struct sim *mk(void **state)
{
	return testsim_mk(state, "v7.3", FLUSH_X86_IPI);
}

/* The checker's verdict: NULL if the state is consistent, else its message
 * (static storage). */
static const char *verdict(const struct sim *s)
{
	static char msg[1024];
	return mm_check_state(s, msg, sizeof(msg)) ? msg : NULL;
}

static void assert_broken(const struct sim *s, const char *what)
{
	const char *msg = verdict(s);
	if (!msg)
		fail_msg("the checker missed: %s", what);
	if (!strstr(msg, what))
		fail_msg("expected '%s' in: %s", what, msg);
}

static void test_fresh_world_is_consistent(void **state)
{
	struct sim *s = mk(state);
	const char *msg = verdict(s);
	if (msg)
		fail_msg("%s", msg);
}

/* Two flush rounds from CPU 0: the others join the mm's round ledger. */
static struct sim *with_ledger(void **state)
{
	struct sim *s = mk(state);
	for (int k = 0; k < 2; k++) {
		testsim_enter(s, 0, NSEC_PER_SEC + (uint64_t)k * NSEC_PER_MSEC);
		flush_tlb_mm(&s->mms[0]);
	}
	assert_ptr_equal(s->cpus[1].ledger_mm, &s->mms[0]);
	const char *msg = verdict(s);
	if (msg)
		fail_msg("%s", msg);
	return s;
}

static void test_ledger_member_in_the_kernel(void **state)
{
	struct sim *s = with_ledger(state);
	s->e.acct[1].in_kernel = true; /* behind task_set_act's back */
	assert_broken(s, "CPU 1 in mm 0's ledger would not receive its rounds alike");
}

static void test_ledger_member_busy_past_the_mark(void **state)
{
	struct sim *s = with_ledger(state);
	s->e.acct[2].busy_until = s->mms[0].rx_ledger.busy_max + 1; /* no flush_ledger_busy */
	assert_broken(s, "CPU 2 in mm 0's ledger would not receive its rounds alike");
}

static void test_ledger_members_counted(void **state)
{
	struct sim *s = with_ledger(state);
	s->mms[0].rx_ledger.nr_members++;
	assert_broken(s, "round ledger: mm 0 counts 4 members, its mask 3");
}

static void test_ledger_member_settled_out_of_step(void **state)
{
	struct sim *s = with_ledger(state);
	flush_ledger_settle_all(s);
	s->cpus[3].loaded_gen--;
	assert_broken(s, "CPU 3, settled, is not as far behind as mm 0's ledger");
}

static void test_mapcount_against_ptes(void **state)
{
	struct sim *s = mk(state);
	s->stores[0].pg[5].mapcount = 2;
	assert_broken(s, "mapcount: mm 0");
	assert_broken(s, "store page 5): mapcount 2 but 1 present PTE maps it");
}

static void test_protnone_bitmap_against_ptes(void **state)
{
	struct sim *s = mk(state);
	/* a PTE made PROT_NONE behind set_pte_at's back */
	*testsim_pte(s, 7) = PTE_PROTNONE | (*testsim_pte(s, 7) & PTE_SIM_HOT);
	assert_broken(s, "PROT_NONE bitmaps: table at mm 0");
}

static void test_protnone_group_totals(void **state)
{
	struct sim *s = mk(state);
	s->w.touch.pn_cold[s->nr_tasks]++;
	assert_broken(s, "PROT_NONE counts: touch group 4 has 1 cold PROT_NONE pages (weighted), its tables 0");
}

static void test_tlb_flush_pending_against_gathers(void **state)
{
	struct sim *s = mk(state);
	struct mmu_gather tlb;
	testsim_enter(s, 0, NSEC_PER_SEC);
	tlb_gather_mmu(&tlb, &s->mms[0]); /* a gather no scanner owns */
	assert_broken(s, "tlb_flush_pending: mm 0's count is 1 but 0 mmu_gathers are open (outside a gather)");
	s->tasks[0].walk.in_gather = true; /* as task_numa_work's chunk */
	assert_null(verdict(s));
	s->tasks[0].walk.in_gather = false;
	s->mms[0].tlb_flush_pending = -1;
	assert_broken(s, "below zero");
}

static void test_loaded_gen_never_ahead(void **state)
{
	struct sim *s = mk(state);
	s->cpus[2].loaded_gen = s->cpus[2].loaded_mm->tlb_gen + 1;
	assert_broken(s, "TLB generation: CPU 2's loaded_gen");
}

static void test_node_pages_conserved(void **state)
{
	struct sim *s = mk(state);
	s->node_free_pages[1]--;
	assert_broken(s, "node 1: pages not conserved");
	s->node_free_pages[1] = (s->m.mem_per_node_mib << 8) + 1;
	assert_broken(s, "above its capacity");
}

static void test_workload_classes_against_pages(void **state)
{
	struct sim *s = mk(state);
	s->stores[0].pg[9].nid ^= 1; /* moved without telling the workload */
	assert_broken(s, "node ");
}

/* Half a migration: after migrate_misplaced_folio_begin the folio's PTE is
 * a migration entry, its mapcount 0 and a page is reserved on the target;
 * all consistent while the task is in ACT_MIGRATE_FLUSH or _MOVE, and an entry left
 * behind once the migration is over is reported. */
static void test_migration_entry_needs_its_migration(void **state)
{
	struct sim *s = mk(state);
	struct task_struct *p = &s->tasks[2]; /* on node 1; the memory is on node 0 */
	struct folio f = page_folio(&s->stores[0], 11);
	testsim_enter(s, 2, NSEC_PER_SEC);
	assert_non_null(task_mctx(s, p)); /* its slot of the sim's array: freed with it */
	assert_int_equal(migrate_misplaced_folio_prepare(s, f, testsim_vma(s), 1), 0);
	migrate_misplaced_folio_begin(s, p->mctx, f, 1);
	assert_true(is_migration_entry(*testsim_pte(s, 11)));
	assert_int_equal(s->stores[0].pg[11].mapcount, 0);
	p->act = ACT_MIGRATE_FLUSH; /* unmapped, its flush not yet run */
	const char *msg = verdict(s);
	if (msg)
		fail_msg("mid-migration state reported before the flush: %s", msg);
	migrate_pages_flush(s, p->mctx);
	p->act = ACT_MIGRATE_MOVE;
	msg = verdict(s);
	if (msg)
		fail_msg("mid-migration state reported: %s", msg);
	p->act = ACT_RETURN; /* the migration is over, its entry is not */
	assert_broken(s, "migration entry: mm 0");
	assert_broken(s, "outlived its migration");
	p->act = ACT_MIGRATE_MOVE;
	migrate_misplaced_folio_end(s, p->mctx);
	p->act = ACT_RETURN;
	msg = verdict(s);
	if (msg)
		fail_msg("after the migration: %s", msg);
	assert_int_equal(s->stores[0].pg[11].nid, 1);
}

static void cfg_caller(struct sim *s)
{
	s->w.p.migrate_call = MCALL_MIGRATE_PAGES;
	s->w.p.migrate_at_s = 5;
}

/* A migration call's list (mm/mempolicy.c): consistent once isolated, and
 * a listed folio that lost its isolation, or a wrong page count, is
 * reported. */
static void test_call_list_holds_isolated_folios(void **state)
{
	struct sim *s = testsim_new_cfg("v7.3", FLUSH_X86_IPI, cfg_caller);
	*state = s;
	struct task_struct *caller = &s->tasks[s->nr_tasks - 1];
	struct migrate_ctx *ctx = calloc(1, sizeof(*ctx));
	caller->call = calloc(1, sizeof(*caller->call));
	assert_non_null(ctx);
	assert_non_null(caller->call);
	*caller->call = (struct migrate_call){ .mm_id = 0, .from = 0, .to = 1, .reason = MR_SYSCALL,
					       .move_all = true };
	testsim_enter(s, s->nr_tasks - 1, NSEC_PER_SEC);
	assert_int_equal(migrate_call_step(s, caller->call, ctx), CALL_QUEUED);
	const char *msg = verdict(s);
	if (msg)
		fail_msg("a fresh list reported: %s", msg);
	s->stores[0].pg[11].flags &= (uint8_t)~FOLIO_ISOLATED;
	assert_broken(s, "store page 11 on its list is not isolated");
	s->stores[0].pg[11].flags |= FOLIO_ISOLATED;
	caller->call->nr_listed--;
	assert_broken(s, "pages on its list");
	caller->call->nr_listed++;
	migrate_call_putback(s, caller->call);
	msg = verdict(s);
	if (msg)
		fail_msg("after the putback: %s", msg);
	free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_fresh_world_is_consistent, testsim_teardown),
		cmocka_unit_test_teardown(test_ledger_member_in_the_kernel, testsim_teardown),
		cmocka_unit_test_teardown(test_ledger_member_busy_past_the_mark, testsim_teardown),
		cmocka_unit_test_teardown(test_ledger_members_counted, testsim_teardown),
		cmocka_unit_test_teardown(test_ledger_member_settled_out_of_step, testsim_teardown),
		cmocka_unit_test_teardown(test_mapcount_against_ptes, testsim_teardown),
		cmocka_unit_test_teardown(test_protnone_bitmap_against_ptes, testsim_teardown),
		cmocka_unit_test_teardown(test_protnone_group_totals, testsim_teardown),
		cmocka_unit_test_teardown(test_tlb_flush_pending_against_gathers, testsim_teardown),
		cmocka_unit_test_teardown(test_loaded_gen_never_ahead, testsim_teardown),
		cmocka_unit_test_teardown(test_node_pages_conserved, testsim_teardown),
		cmocka_unit_test_teardown(test_workload_classes_against_pages, testsim_teardown),
		cmocka_unit_test_teardown(test_migration_entry_needs_its_migration, testsim_teardown),
		cmocka_unit_test_teardown(test_call_list_holds_isolated_folios, testsim_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
