/* The scheduler's state and the tasks' life, shared by kernel/sched/ (after
 * the kernel's kernel/sched/sched.h): runqueues, context switches and
 * wake-ups (core.c), the fair class's placement and load balancing and
 * NUMA balancing (fair.c), the domains (topology.c), entering and leaving
 * the kernel and the stepped kernel paths (entry.c), user-mode work
 * (user.c). */
#ifndef NUMASIM_KERNEL_SCHED_H
#define NUMASIM_KERNEL_SCHED_H

#include <stdint.h>

#include "kernel/sched/topology.h"
#include "kernel/sim.h"

/* A CPU's runqueue.  The running task is s->cpus[cpu].curr; the others
 * wait in FIFO order.  Tasks have equal weight, so EEVDF's pick is the one
 * that has waited longest and a task runs a base slice before the next one
 * gets the CPU (fair shares and the switch rate; no vruntime arithmetic). */
struct rq {
	struct task_struct *head, *tail; /* queued tasks, the next to run first */
	int nr_running;                  /* queued + running */
	int nr_numa_running;             /* of them, with a preferred node */
	int nr_preferred_running;        /* ... and on it */
	bool need_resched;               /* the slice ended while curr was in the kernel */
	bool numa_migrate_on;            /* claimed by a NUMA move in flight */
	struct task_struct *last_task;   /* the last task that ran here */
	uint64_t idle_since;             /* ns, while idle */
};

/* One CPU's periodic balancing at one domain level (sched_balance_domains):
 * at each level only one CPU of every group balances (should_we_balance),
 * so there is one balancer per group. */
struct balancer {
	int level;
	int cpu;                         /* the group's first CPU */
	unsigned interval_ms;            /* sd->balance_interval */
	uint64_t last_balance;           /* jiffies */
	unsigned nr_balance_failed;
};

struct sched_state {
	struct sched_topology topo;
	struct rq *rq;                   /* per CPU */
	struct balancer *bal;
	int nr_bal;
	int *bal_of[SD_MAX_LEVELS];      /* [cpu]: its group's balancer at each level */
	int nr_idle;                     /* CPUs with nothing to run */
	int nr_overloaded;               /* runqueues with a task waiting */
	int nr_alive;                    /* tasks that have not exited */
	struct cpumask *node_mask;       /* per node: its CPUs (binding) */
	struct cpumask *cpu_mask;        /* per CPU: itself (binding) */
	uint32_t timer_sleep, timer_resched, timer_bal; /* first ids of each kind */
	uint64_t slice_ns;               /* the base slice */
};

static inline struct rq *cpu_rq(const struct sim *s, int cpu) { return &s->sched->rq[cpu]; }
static inline bool available_idle_cpu(const struct sim *s, int cpu)
{
	return !s->cpus[cpu].curr && !s->sched->rq[cpu].nr_running;
}
static inline bool task_allowed(const struct task_struct *p, int cpu)
{
	return !p->cpus_ptr || cpumask_test_cpu(cpu, p->cpus_ptr);
}
static inline int cpu_to_node(const struct sim *s, int cpu) { return s->cpus[cpu].node; }

/* core.c */
int sched_init(struct sim *s);
void sched_free(struct sim *s);
/* The tasks' placement at start (fork balancing, or their binding). */
void sched_place_tasks(struct sim *s);
/* Put every placed task on its CPU at time 0. */
void sched_start(struct sim *s);
/* A scheduler timer (sleep/wake, slice end, balancing) fired. */
void sched_timer(struct sim *s, uint32_t id, uint64_t now);
/* The task's next scheduler-tick check (the first tick at which
 * task_tick_numa can do something), and the tick itself. */
void schedule_tick(struct sim *s, struct task_struct *p, uint64_t now);
void sched_tick(struct sim *s, struct task_struct *p, uint64_t now);
/* @p returns to user mode at @now: what waited for it (a slice's end, a
 * sleep, a move) happens now.  False if it no longer runs here. */
bool sched_return_to_user(struct sim *s, struct task_struct *p, uint64_t now);
/* Tasks whose fixed work is done exit (those in a kernel path at their
 * return); true when none is left. */
bool sched_exit_done(struct sim *s, uint64_t now);
/* Anything waiting for @p to leave the kernel? */
static inline bool sched_exit_work(const struct sim *s, const struct task_struct *p)
{
	return p->move_to >= 0 || p->want_sleep || p->done || s->sched->rq[p->cpu].need_resched;
}
/* The running @p blocks at @now until @wake; try_to_wake_up wakes a
 * sleeping task from @waker_cpu (select_task_rq_fair picks its CPU). */
void sched_block_task(struct sim *s, struct task_struct *p, uint64_t now, uint64_t wake);
void try_to_wake_up(struct sim *s, struct task_struct *p, int waker_cpu, uint64_t now);
/* When the migration caller's next call is due (UINT64_MAX: none). */
uint64_t sched_next_call(const struct sim *s, const struct task_struct *p);
/* set_task_cpu: the task changes CPU (migrate_task_rq_fair's NUMA part). */
void set_task_cpu(struct sim *s, struct task_struct *p, int cpu);
/* Move @p to @cpu (a queued task at once, a running one through the
 * stopper once it is in user mode). */
void move_task(struct sim *s, struct task_struct *p, int cpu, uint64_t now);
/* migrate_task_to / migrate_swap (core.c in the kernel): 0, or -EINVAL
 * where the kernel's refuses (the CPU not allowed; a swap within one CPU). */
int migrate_task_to(struct sim *s, struct task_struct *p, int cpu);
int migrate_swap(struct sim *s, struct task_struct *p, struct task_struct *t);
/* sched:sched_move_numa (@dst NULL), sched_swap_numa and sched_stick_numa
 * (@dst NULL and @dst_cpu -1 when there is none), recorded on @src_cpu. */
void trace_sched_numa(struct sim *s, enum trace_type type, const struct task_struct *src, int src_cpu,
		      const struct task_struct *dst, int dst_cpu);
static inline void trace_sched_stick_numa(struct sim *s, const struct task_struct *src, int src_cpu,
					  const struct task_struct *dst, int dst_cpu)
{
	if (trace_on(s, TR_STICK_NUMA))
		trace_sched_numa(s, TR_STICK_NUMA, src, src_cpu, dst, dst_cpu);
}
void sched_setnuma(struct sim *s, struct task_struct *p, int nid);

/* fair.c: the fair class's CPU choice for a waking task, load balancing,
 * the NUMA side of a task's move. */
int select_task_rq_fair(struct sim *s, struct task_struct *p, int prev_cpu, int waker_cpu);
void sched_balance_newidle(struct sim *s, int cpu, uint64_t now);
void sched_balance_periodic(struct sim *s, int b, uint64_t now);
void sched_balance_rearm(struct sim *s, int cpu, uint64_t now);
void update_scan_period(struct sim *s, struct task_struct *p, int new_cpu);
/* task_numa_migrate: move or swap @p towards its preferred node; 0 if it did. */
int task_numa_migrate(struct sim *s, struct task_struct *p);
void account_numa_enqueue(struct sim *s, struct rq *rq, struct task_struct *p);
void account_numa_dequeue(struct sim *s, struct rq *rq, struct task_struct *p);

/* user.c: aggregated mode, @p's slice's faults drawn in bulk up to @now
 * (and, with @end, one event per fault again), if its slice is in bulk. */
void user_touch_bulk_task(struct sim *s, struct task_struct *p, uint64_t now, bool end);
static inline void task_bulk_catch_up(struct sim *s, struct task_struct *p, uint64_t now, bool end)
{
	if (s->w.touch.nr_bulk)
		user_touch_bulk_task(s, p, now, end);
}
/* Aggregated mode: end the bulk draws of slices that no longer may be
 * (after the accounting tick changed what they depend on). */
void user_touch_bulk_recheck(struct sim *s, uint64_t now);

/* entry.c */
/* Switch @p to activity @act, keeping its CPU's in-kernel mark in step. */
static inline void task_set_act(struct sim *s, struct task_struct *p, enum task_activity act)
{
	/* its slice's faults in bulk stop as it enters the kernel (user.c) */
	if (act != ACT_USER) {
		task_bulk_catch_up(s, p, s->e.t0, true);
		flush_ledger_leave(s, p->cpu); /* its IPIs now delay the path */
	}
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
/* A fault on a pooled table (aggregated mode): see entry.c. */
void task_fault_pooled(struct sim *s, struct task_struct *p, struct vm_area_struct *vma,
		       struct pte_table *t, bool hot, uint64_t now);
void task_fault_protnone(struct sim *s, struct task_struct *p, struct vm_area_struct *vma,
			 uint64_t addr, uint64_t now);
/* @p's kernel path takes its next step. */
void task_step(struct sim *s, struct task_struct *p, uint64_t now);

/* user.c: touch group @g's timer fired: pick a page and a toucher, fault. */
void user_touch(struct sim *s, uint32_t g, uint64_t now);

#endif
