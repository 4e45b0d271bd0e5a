/* The scheduler core, after kernel/sched/core.c: the tick.
 *
 * Ticks are not simulated one by one: a task's tick timer is armed for the
 * first tick boundary, on a global grid of 1/HZ, at which its CPU time
 * passes node_stamp + numa_scan_period -- the only tick at which
 * task_tick_numa can do anything. */
#include "kernel/sched/sched.h"
#include "linux/sched/numa_balancing.h"

void schedule_tick(struct sim *s, struct task_struct *p, uint64_t now)
{
	if (!(s->t.numa_balancing & NUMA_BALANCING_NORMAL))
		return;
	uint64_t due = p->start_time + p->node_stamp +
		       (uint64_t)p->numa_scan_period * NSEC_PER_MSEC + 1;
	uint64_t tick = tick_ns(s);
	uint64_t when = (due + tick - 1) / tick * tick;
	if (when <= now)
		when = (now / tick + 1) * tick;
	timerq_set(&s->e.q, tick_timer_id(s, p->idx), when);
}

void sched_tick(struct sim *s, struct task_struct *p, uint64_t now)
{
	uint64_t busy_until = s->e.acct[p->cpu].busy_until;
	sim_enter(s, p, now);
	task_tick_numa(s, p);
	if (p->numa_work_queued && p->act == ACT_USER && busy_until <= now) {
		task_work_run_numa(s, p, now);
	} else if (p->numa_work_queued && p->act == ACT_USER) {
		/* in a fault: the work runs when it returns */
		task_set_act(s, p, ACT_RETURN);
		timerq_set(&s->e.q, act_timer_id(s, p->idx), busy_until);
	} else {
		schedule_tick(s, p, now);
	}
}
