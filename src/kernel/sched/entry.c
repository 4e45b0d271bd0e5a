/* Entering and leaving the kernel, and the kernel paths that take
 * simulated time, run as steps (after kernel/entry/common.c's
 * exit_to_user_mode_loop for task_work).  A task's activity says which
 * path it is in; each step ends by arming the task's activity timer at the
 * step's end, so the thread is busy for the time the step charged:
 *
 *   user --tick, work queued--> SCAN (one PMD a step) ... --> RETURN --> user
 *   user --touch of a PROT_NONE page--> FAULT (do_numa_page to the PTL drop)
 *        |-- no migration, no work queued: user again, busy until the
 *        |   step's end (no event)
 *        |-- no migration, work queued --> RETURN
 *        '-- migration --> MIGRATE_UNMAP (unmap; the flush recorded)
 *                          --> MIGRATE_FLUSH (try_to_unmap_flush, copy)
 *                          --> MIGRATE_MOVE (move, remap, counters) --> RETURN
 *   The unmap's batch is outstanding between MIGRATE_UNMAP and
 *   MIGRATE_FLUSH, for the unmap step's charged time, as in the kernel
 *   (migrate_pages_batch unmaps the whole batch before it flushes): other
 *   CPUs' steps fall in between.
 *   RETURN: back to user; queued task_numa_work runs first. */
#include <stdlib.h>

#include "kernel/sched/sched.h"
#include "linux/huge_mm.h"
#include "linux/migrate.h"
#include "linux/mm.h"
#include "linux/sched/numa_balancing.h"
#include "workload/touch.h"

static void act_at(struct sim *s, struct task_struct *p, enum task_activity act)
{
	task_set_act(s, p, act);
	timerq_set(&s->e.q, act_timer_id(s, p->idx), sim_now(s));
}

void task_work_run_numa(struct sim *s, struct task_struct *p, uint64_t now)
{
	sim_enter(s, p, now);
	if (task_numa_work(s, p)) {
		task_set_act(s, p, ACT_SCAN);
		bool more = task_numa_work_step(s, p);
		act_at(s, p, more ? ACT_SCAN : ACT_RETURN);
	}
	schedule_tick(s, p, now);
}

void task_fault_protnone(struct sim *s, struct task_struct *p, struct vm_area_struct *vma,
			 uint64_t addr, uint64_t now)
{
	struct vm_fault vmf = { .vma = vma, .address = addr, .pmd = pte_table_of(vma, addr),
				.orig_pte = vma->ptes[pte_index(vma, addr)] };
	sim_enter(s, p, now);
	task_set_act(s, p, ACT_FAULT);
	p->fault.overlapped_pass = p->mm->scan_pass_running;
	/* __handle_mm_fault: a PROT_NONE huge PMD, or a PTE */
	bool migrating = vmf.pmd->pmd_huge ? do_huge_pmd_numa_page(&vmf) : do_numa_page(&vmf);
	if (migrating) {
		/* migrate_misplaced_folio -> migrate_pages: isolate, allocate,
		 * lock, anon_vma; the unmap follows after that time */
		charge(s, COST_MIGRATE, s->m.cost.migrate_setup_ns);
		p->fault.overlapped_pass |= p->mm->scan_pass_running;
		act_at(s, p, ACT_MIGRATE_UNMAP);
	} else if (p->numa_work_queued || sched_exit_work(s, p)) {
		act_at(s, p, ACT_RETURN); /* task_work, or the scheduler, on the way out */
	} else {
		/* nothing happens on the way out: no event, just busy until then */
		task_set_act(s, p, ACT_USER);
		s->e.acct[p->cpu].busy_until = sim_now(s);
		flush_ledger_busy(s, p->cpu, sim_now(s));
	}
}

/* A pooled table's fault (docs/model.md 3.3a): task_fault_protnone and
 * do_numa_page as they run for an order-0 page already on this node whose
 * last fault was this task's -- numa_migrate_check's counters and flags,
 * mpol_misplaced keeping it here, the PTE restored, task_numa_fault with a
 * private local fault -- except that which PROT_NONE page of @hot's kind
 * it was is drawn when a path next looks at the table
 * (workload_pool_settle), and the trace names the table's address. */
void task_fault_pooled(struct sim *s, struct task_struct *p, struct vm_area_struct *vma,
		       struct pte_table *t, bool hot, uint64_t now)
{
	struct touch_model *tm = &s->w.touch;
	uint32_t ti = (uint32_t)(t - vma->tables), id = vma->first_table_id + ti;
	int nid = tm->pool[id].nid;
	int flags = (vma->vm_flags & VM_WRITE) ? 0 : TNF_NO_GROUP; /* pte_writable_after_fault */

	sim_enter(s, p, now);
	task_set_act(s, p, ACT_FAULT);
	p->fault.overlapped_pass = p->mm->scan_pass_running;
	if (t->ptl_free_at > sim_now(s)) /* ptl_lock */
		charge(s, COST_LOCK_WAIT, (double)(t->ptl_free_at - sim_now(s)));
	charge(s, COST_HINT_FAULT, s->m.cost.hint_fault_ns);
	vma_set_access_pid_bit(s, vma);
	count_vm_event(s, NUMA_HINT_FAULTS);
	count_vm_event(s, NUMA_HINT_FAULTS_LOCAL);
	p->mm->hint_faults++;
	p->mm->hint_faults_local++;
	flags |= TNF_FAULT_LOCAL;
	touch_pool_fault(tm, id, t->group, t->rank, t->weight, hot);
	s->st.hint_faults_pooled++;
	t->ptl_free_at = sim_now(s); /* ptl_unlock */
	touch_ptl_held(tm, t->group, t->rank, t->ptl_free_at);
	trace(s, TR_HINT_FAULT, s->e.cpu, p->pid, s->e.t0, sim_now(s) - s->e.t0,
	      (int64_t)(vma->vm_start + (uint64_t)ti * PMD_SIZE), nid, NUMA_NO_NODE, flags);
	touch_changed(tm, t->group);
	task_numa_fault(s, (int)LAST_CPUPID_UNSET, nid, 1, flags);
	if (p->numa_work_queued || sched_exit_work(s, p)) {
		act_at(s, p, ACT_RETURN);
	} else {
		task_set_act(s, p, ACT_USER);
		s->e.acct[p->cpu].busy_until = sim_now(s);
		flush_ledger_busy(s, p->cpu, sim_now(s));
	}
}

/* Instrumentation of the seed's bpftrace figures, at the moment
 * try_to_migrate_one runs. */
static void record_migration(struct sim *s, struct task_struct *p)
{
	struct numa_fault_ctx *f = &p->fault;
	struct mm_struct *mm = p->mm;
	s->st.migrations++;
	f->saw_pending = mm->tlb_flush_pending > 0;
	s->st.migr_saw_pending += f->saw_pending;
	if (f->overlapped_pass || mm->scan_pass_running) {
		s->st.migr_overlap_pass++;
		if (mm->scan_vma == f->vma && f->addr >= mm->scan_chunk_start &&
		    f->addr < mm->scan_chunk_end)
			s->st.migr_in_chunk++;
	}
	if (pte_protnone(f->vma->ptes[pte_index(f->vma, f->addr)]))
		s->st.migr_pte_protnone++;
}

/* The migration call returns: record it; the caller sleeps until its next
 * one. */
static void syscall_done(struct sim *s, struct task_struct *p)
{
	struct migrate_call *c = p->call;
	sim_record_call(s, &(struct call_record){
		.start_ns = c->started, .end_ns = sim_now(s), .from = c->from, .to = c->to,
		.moved = c->moved, .failed = c->failed, .hint_fails = c->hint_fails,
	});
	migrate_call_free(p->call);
	p->call = NULL;
	p->want_sleep = true;
}

void task_step(struct sim *s, struct task_struct *p, uint64_t now)
{
	sim_enter(s, p, now);
	switch ((int)p->act) {
	case ACT_SCAN:
		act_at(s, p, task_numa_work_step(s, p) ? ACT_SCAN : ACT_RETURN);
		break;
	case ACT_MIGRATE_UNMAP:
		task_mctx(s, p);
		record_migration(s, p);
		p->fault.unmap_time = now;
		migrate_misplaced_folio_begin(s, p->mctx, p->fault.folio, p->fault.target_nid);
		act_at(s, p, ACT_MIGRATE_FLUSH);
		break;
	case ACT_MIGRATE_FLUSH:
		migrate_pages_flush(s, p->mctx);
		act_at(s, p, ACT_MIGRATE_MOVE);
		break;
	case ACT_MIGRATE_MOVE:
		do_numa_page_migrated(s, migrate_misplaced_folio_end(s, p->mctx) == 0);
		trace(s, TR_MIGRATION, p->cpu, p->pid, p->fault.unmap_time, sim_now(s) - p->fault.unmap_time,
		      (int64_t)p->fault.addr, p->fault.folio_nid_at_fault, p->fault.target_nid,
		      p->fault.saw_pending);
		act_at(s, p, ACT_RETURN);
		break;
	case ACT_SYSCALL:
		switch (migrate_call_step(s, p->call, p->mctx)) {
		case CALL_QUEUED: /* the list is isolated: its batches follow */
			act_at(s, p, ACT_SYSCALL);
			break;
		case CALL_BATCH:
			act_at(s, p, ACT_SYSCALL_FLUSH);
			break;
		case CALL_DONE:
			syscall_done(s, p);
			act_at(s, p, ACT_RETURN);
			break;
		}
		break;
	case ACT_SYSCALL_FLUSH:
		migrate_pages_flush(s, p->mctx);
		act_at(s, p, ACT_SYSCALL_MOVE);
		break;
	case ACT_SYSCALL_MOVE:
		migrate_call_batch_finish(s, p->call, p->mctx);
		act_at(s, p, ACT_SYSCALL);
		break;
	case ACT_RETURN:
		task_set_act(s, p, ACT_USER);
		if (p->numa_work_queued) {
			task_work_run_numa(s, p, now);
			if (p->act != ACT_USER)
				break; /* a scan pass started */
		}
		sched_return_to_user(s, p, now);
		break;
	default:
		break;
	}
}
