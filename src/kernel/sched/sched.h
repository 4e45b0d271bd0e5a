/* The tasks' life, shared by kernel/sched/ (after the kernel's
 * kernel/sched/sched.h): ticks (core.c), entering and leaving the kernel
 * and the stepped kernel paths (entry.c), user-mode work (user.c). */
#ifndef NUMASIM_KERNEL_SCHED_H
#define NUMASIM_KERNEL_SCHED_H

#include <stdint.h>

#include "kernel/sim.h"

/* core.c: the task's next scheduler-tick check (the first tick at which
 * task_tick_numa can do something), and the tick itself. */
void schedule_tick(struct sim *s, struct task_struct *p, uint64_t now);
void sched_tick(struct sim *s, struct task_struct *p, uint64_t now);

/* entry.c */
/* Switch @p to activity @act, keeping its CPU's in-kernel mark in step. */
static inline void task_set_act(struct sim *s, struct task_struct *p, enum task_activity act)
{
	p->act = act;
	s->e.acct[p->cpu].in_kernel = act != ACT_USER;
}
/* Until when @p is inside a kernel path (0 if it runs user code at @now). */
static inline uint64_t task_busy_end(const struct sim *s, const struct task_struct *p, uint64_t now)
{
	return engine_busy_end(&s->e, p->cpu, now);
}
/* Run task_numa_work queued for @p (task_work on the way to user mode). */
void task_work_run_numa(struct sim *s, struct task_struct *p, uint64_t now);
/* @p touched the PROT_NONE page at @addr: the hint fault, on its CPU. */
void task_fault_protnone(struct sim *s, struct task_struct *p, struct vm_area_struct *vma,
			 uint64_t addr, uint64_t now);
/* @p's kernel path takes its next step. */
void task_step(struct sim *s, struct task_struct *p, uint64_t now);

/* user.c: touch group @g's timer fired: pick a page and a toucher, fault. */
void user_touch(struct sim *s, uint32_t g, uint64_t now);

#endif
