/* The tasks' user-mode work: a touch group's timer fired (workload/touch.h
 * drew when), so one of its touchers touches one of its PROT_NONE pages --
 * unless it cannot: a slice's owner in a kernel path touches nothing until
 * it leaves (and off its CPU nothing at all); a shared region's toucher
 * that is off its CPU, in a kernel path, or in an interrupt handler
 * (thinning by the share of time interrupts leave it) loses the touch.  Otherwise the touch is a hint fault on its CPU. */
#include "kernel/sched/sched.h"
#include "linux/bitops.h"
#include "workload/touch.h"

void user_touch(struct sim *s, uint32_t g, uint64_t now)
{
	struct touch_model *tm = &s->w.touch;
	bool slice = g < tm->nr_slices;

	sim_enter(s, NULL, now);
	if (slice) {
		uint64_t busy = task_busy_end(s, &s->tasks[s->w.toucher[g]], now);
		if (busy) {
			/* in the kernel: its touches resume when it leaves, and
			 * by memorylessness the next one is a fresh draw from then */
			touch_rearm(tm, g, busy);
			return;
		}
	}
	struct touch_pick pick;
	touch_pick(tm, g, slice ? 0 : (uint64_t)s->w.p.threads, &pick);
	int who = slice ? s->w.toucher[g] : (int)(g - tm->nr_slices) * s->w.p.threads + (int)pick.toucher;
	/* Thinning: the draw used the threads' full rate; a thread touches
	 * memory only for the share of time interrupt handlers leave it, and
	 * not at all while it is inside a kernel path. */
	bool stolen = pick.thin >= s->w.user_frac[who];
	struct task_struct *p = &s->tasks[who];
	if (!pick.count || stolen ||
	    (!slice && (p->state != TASK_ON_CPU || task_busy_end(s, p, now)))) {
		s->st.hint_faults_lost += pick.count > 0;
		touch_rearm(tm, g, now);
		return;
	}
	uint64_t rem;
	uint32_t id = touch_find(tm, g, pick.hot, pick.k, &rem);
	struct vm_area_struct *vma = s->table_vma[id];
	uint32_t ti = id - vma->first_table_id;
	struct pte_table *t = &vma->tables[ti];
	if (t->ptl_free_at > now) {
		/* a step still holds this table's PTL: the scanner changing it
		 * now, whose PROT_NONE PTEs are not visible before it is done --
		 * the touch finds the old PTE and does not fault */
		touch_rearm(tm, g, now);
		return;
	}
	if (tm->pool && tm->pool[id].on) {
		if (s->cpus[p->cpu].node == tm->pool[id].nid) {
			/* aggregated: a pooled table's fault (docs/model.md 3.3a) */
			task_fault_pooled(s, p, vma, t, pick.hot, now);
			if (!timerq_armed(&s->e.q, tm->timer[g]))
				touch_changed(tm, g);
			return;
		}
		/* its toucher moved to another node: the pages are remote now,
		 * and this fault is an exact one */
		workload_pool_settle(vma, t);
	}
	unsigned bit = find_nth_bit(pick.hot ? t->protnone_hot : t->protnone_cold, PTRS_PER_PTE,
				    (unsigned)(rem / t->weight));
	uint64_t addr = vma->vm_start + ((uint64_t)ti * PTRS_PER_PTE + bit) * PAGE_SIZE;
	task_fault_protnone(s, p, vma, addr, now);
	/* a migration in flight keeps its PTE PROT_NONE and re-arms nothing */
	if (!timerq_armed(&s->e.q, tm->timer[g]))
		touch_changed(tm, g);
}
