/* The scheduler core, after kernel/sched/core.c (v6.17): runqueues,
 * context switches, time slices, sleeping and waking, moving tasks between
 * CPUs (set_task_cpu, the stopper's moves, migrate_task_to, migrate_swap)
 * and the tick.
 *
 * Simplifications (docs/model.md section 8): all tasks have nice 0, so a
 * runqueue is a FIFO and a task runs one slice before the next waiting one
 * gets the CPU -- the fair shares and the switch rate of CFS and EEVDF,
 * without vruntime arithmetic; a woken task waits for the running one's
 * slice to end (EEVDF's RUN_TO_PARITY) instead of preempting it.  Kernel
 * paths are steps that cannot be preempted: a slice that ends, a sleep
 * that is due or a move that is asked for while a task is in the kernel
 * waits for its return to user mode, as at the kernel's preemption points.
 *
 * Ticks are not simulated one by one: a running task's tick timer is armed
 * for the first tick boundary, on a global grid of 1/HZ, at which its CPU
 * time passes node_stamp + numa_scan_period -- the only tick at which
 * task_tick_numa can do anything. */
#include <errno.h>
#include <stdlib.h>

#include "asm/mmu_context.h"
#include "linux/migrate.h"
#include "kernel/sched/sched.h"
#include "linux/sched/numa_balancing.h"
#include "workload/touch.h"

/* ---- runqueues ------------------------------------------------------------ */

static void rq_changed(struct sim *s, int cpu, int old_nr)
{
	struct sched_state *ss = s->sched;
	int nr = ss->rq[cpu].nr_running;
	ss->nr_overloaded += (nr >= 2) - (old_nr >= 2);
	ss->nr_idle += (nr == 0) - (old_nr == 0);
}

/* @p at the tail of @rq's FIFO. */
static void rq_append(struct rq *rq, struct task_struct *p)
{
	p->rq_next = NULL;
	if (rq->tail)
		rq->tail->rq_next = p;
	else
		rq->head = p;
	rq->tail = p;
}

static void enqueue_task(struct sim *s, int cpu, struct task_struct *p)
{
	struct rq *rq = cpu_rq(s, cpu);
	int old = rq->nr_running;
	rq_append(rq, p);
	p->state = TASK_QUEUED;
	s->task_state_gen++;
	rq->nr_running++;
	account_numa_enqueue(s, rq, p);
	rq_changed(s, cpu, old);
}

/* Remove a queued task from its runqueue's FIFO. */
static void dequeue_task(struct sim *s, int cpu, struct task_struct *p)
{
	struct rq *rq = cpu_rq(s, cpu);
	int old = rq->nr_running;
	struct task_struct **pp = &rq->head, *prev = NULL;
	while (*pp && *pp != p) {
		prev = *pp;
		pp = &(*pp)->rq_next;
	}
	if (!*pp)
		abort(); /* a queued task is on its runqueue */
	*pp = p->rq_next;
	if (rq->tail == p)
		rq->tail = prev;
	p->rq_next = NULL;
	rq->nr_running--;
	account_numa_dequeue(s, rq, p);
	rq_changed(s, cpu, old);
}

/* The running task leaves the runqueue count (it sleeps or moves). */
static void dequeue_curr(struct sim *s, int cpu, struct task_struct *p)
{
	struct rq *rq = cpu_rq(s, cpu);
	int old = rq->nr_running;
	rq->nr_running--;
	account_numa_dequeue(s, rq, p);
	rq_changed(s, cpu, old);
}

static struct task_struct *pick_next_task(struct sim *s, int cpu)
{
	struct rq *rq = cpu_rq(s, cpu);
	struct task_struct *p = rq->head;
	if (!p)
		return NULL;
	rq->head = p->rq_next;
	if (!rq->head)
		rq->tail = NULL;
	p->rq_next = NULL;
	return p;
}

/* ---- time slices ----------------------------------------------------------- */

/* The slice a task gets when others wait (sched_slice / EEVDF base slice),
 * rounded up to the tick at which the tick's preemption test passes. */
static uint64_t task_slice(const struct sim *s, int cpu)
{
	uint64_t slice = s->sched->slice_ns;
	if (!s->k.eevdf) {
		/* CFS: the latency period (24 ms at >= 8 CPUs) shared by the
		 * runnable tasks, at least the minimum granularity */
		int n = cpu_rq(s, cpu)->nr_running;
		uint64_t period = 8 * slice;
		if (n > 8)
			period = (uint64_t)n * slice;
		if (n > 0 && period / (uint64_t)n > slice)
			slice = period / (uint64_t)n;
	}
	return slice;
}

static void arm_resched(struct sim *s, int cpu, uint64_t now)
{
	struct task_struct *curr = s->cpus[cpu].curr;
	uint32_t id = s->sched->timer_resched + (uint32_t)cpu;
	if (!curr || !cpu_rq(s, cpu)->head) {
		timerq_cancel(&s->e.q, id);
		return;
	}
	/* preemption is decided on ticks: the first tick at or after the
	 * slice's end */
	uint64_t tick = tick_ns(s), when = curr->slice_end;
	when = (when + tick - 1) / tick * tick;
	if (when <= now)
		when = (now / tick + 1) * tick;
	timerq_set(&s->e.q, id, when);
}

/* ---- context switch --------------------------------------------------------- */

static uint64_t sleep_draw(struct sim *s, struct task_struct *p, double mean_ms)
{
	struct rng r = rng_stream(s->seed, RNG_SCHED, (uint64_t)p->idx);
	r.ctr = p->sleep_ctr;
	double ns = rng_exp(&r, mean_ms * 1e6);
	p->sleep_ctr = r.ctr;
	return (uint64_t)ns + 1;
}

static void arm_run_phase(struct sim *s, struct task_struct *p, uint64_t now)
{
	if (!s->w.p.run_ms)
		return;
	if (!p->run_left)
		p->run_left = sleep_draw(s, p, s->w.p.run_ms);
	timerq_set(&s->e.q, s->sched->timer_sleep + (uint32_t)p->idx, now + p->run_left);
}

/* put_prev_task: @p stops running on @cpu at @now. */
static void put_prev_task(struct sim *s, int cpu, struct task_struct *p, uint64_t now)
{
	/* its slice's faults drawn in bulk, before its CPU time is settled
	 * (they thin with the interrupt share the settling replaces) */
	task_bulk_catch_up(s, p, now, true);
	flush_ledger_leave(s, cpu); /* its CPU time is read, then it leaves */
	workload_account_task(s, p, now);
	/* the run's CPU time ends with the run, though a path charged near
	 * the end may carry the clock past it (workload.c's account_task) */
	uint64_t upto = now < s->duration_ns ? now : s->duration_ns;
	uint64_t ran = upto > p->exec_start ? upto - p->exec_start : 0;
	p->sum_exec_runtime += ran;
	s->node_run_ns[cpu_to_node(s, cpu)] += (double)ran;
	s->task_node_run_ns[(size_t)p->idx * (size_t)s->m.nr_nodes + (size_t)cpu_to_node(s, cpu)] +=
		(double)ran;
	p->exec_start = now;
	timerq_cancel(&s->e.q, tick_timer_id(s, p->idx));
	uint32_t sid = s->sched->timer_sleep + (uint32_t)p->idx;
	if (s->w.p.run_ms && timerq_armed(&s->e.q, sid)) {
		uint64_t end = s->e.q.when[sid];
		p->run_left = end > now ? end - now : 1;
		timerq_cancel(&s->e.q, sid);
	}
	int slice = s->w.slice_of[p->idx]; /* the slice it touches (workload phases) */
	s->w.touch.owner_cpu[slice] = -1;
	timerq_cancel(&s->e.q, s->w.touch.timer[slice]);
	cpu_rq(s, cpu)->last_task = p;
	s->cpus[cpu].curr = NULL;
	s->e.acct[cpu].in_kernel = false;
	s->e.acct[cpu].work_timer = TIMER_IDLE;
}

/* The refill a task does when it gets a CPU whose TLB another task filled:
 * at most what the others could have replaced since it last ran there. */
static double switch_refill_ns(struct sim *s, int cpu, struct task_struct *next, uint64_t now)
{
	struct rq *rq = cpu_rq(s, cpu);
	if (rq->last_task == next || !rq->last_task)
		return 0;
	double full = s->tlb_refill_ns; /* what it reuses of its entries */
	double since = (double)(now - rq->last_task->exec_start);
	return since < full ? since : full;
}

/* Switch @cpu to @next (NULL: idle) at @now: the scheduler's pick, the
 * architecture's switch_mm (or enter_lazy_tlb), and the task's timers.
 * It may run inside another CPU's step (a balancer or a NUMA move), so it
 * charges @cpu's account directly and keeps the step's context. */
static void context_switch(struct sim *s, int cpu, struct task_struct *next, uint64_t now, bool cost)
{
	struct cpu_state *c = &s->cpus[cpu];
	struct cpu_acct *a = &s->e.acct[cpu];
	struct task_struct *prev = c->curr;
	if (prev)
		put_prev_task(s, cpu, prev, now);
	if (!next) {
		cpu_rq(s, cpu)->idle_since = now;
		enter_lazy_tlb(s, cpu);
		return;
	}
	flush_ledger_leave(s, cpu);
	double refill = switch_refill_ns(s, cpu, next, now);
	c->curr = next;
	next->state = TASK_ON_CPU;
	s->task_state_gen++;
	s->task_node_gen += next->cpu != cpu; /* set_task_cpu moved it here already */
	next->cpu = cpu;
	next->exec_start = now;
	next->acct_from = now < s->duration_ns ? now : s->duration_ns; /* the run's time ends with it */
	a->work_timer = act_timer_id(s, next->idx);
	a->in_kernel = false;
	engine_account_mark(a);
	switch_mm_irqs_off(s, cpu, next->mm, now);
	double ns = 0;
	s->st.context_switches += cost;
	if (cost) {
		ns = s->m.cost.context_switch_ns;
		a->cost[COST_SCHED] += ns;
		a->cost[COST_TLB_REFILL] += refill;
		a->busy_ns += ns + refill;
	}
	a->busy_until = now + (uint64_t)ns;
	next->slice_end = now + task_slice(s, cpu);
	if (next->syscall_caller && next->call && next->act == ACT_USER) {
		/* the caller's user work is making its call */
		task_set_act(s, next, ACT_SYSCALL);
		timerq_set(&s->e.q, act_timer_id(s, next->idx), a->busy_until);
	}
	int slice = s->w.slice_of[next->idx];
	s->w.touch.owner_cpu[slice] = cpu;
	touch_rearm(&s->w.touch, (uint32_t)slice, a->busy_until);
	schedule_tick(s, next, now);
	arm_run_phase(s, next, now);
	arm_resched(s, cpu, now);
}

/* __schedule on @cpu whose current task stopped (slept, moved) or yields:
 * the next waiting task, or idle and a newidle balance. */
static void schedule(struct sim *s, int cpu, uint64_t now)
{
	struct task_struct *next = pick_next_task(s, cpu);
	context_switch(s, cpu, next, now, true);
	if (!next)
		sched_balance_newidle(s, cpu, now);
	sched_balance_rearm(s, cpu, now);
}

/* ---- moving tasks ------------------------------------------------------------- */

void set_task_cpu(struct sim *s, struct task_struct *p, int cpu)
{
	if (p->cpu == cpu)
		return;
	update_scan_period(s, p, cpu); /* migrate_task_rq_fair */
	p->nr_migrations++;
	s->st.task_migrations++;
	bool node_move = cpu_to_node(s, cpu) != cpu_to_node(s, p->cpu);
	s->st.task_node_moves += node_move;
	p->nr_node_moves += node_move;
	p->cpu = cpu;
	s->task_node_gen++;
}

/* Put a task that is not running on @cpu's runqueue, running it at once if
 * the CPU is idle (a wake-up, or a queued task moved there). */
static void activate_task(struct sim *s, struct task_struct *p, int cpu, uint64_t now)
{
	set_task_cpu(s, p, cpu);
	enqueue_task(s, cpu, p);
	if (!s->cpus[cpu].curr) {
		context_switch(s, cpu, pick_next_task(s, cpu), now, true);
	} else {
		arm_resched(s, cpu, now);
	}
	sched_balance_rearm(s, cpu, now);
}

/* Move a task to @cpu: a queued one at once (the balancer's detach/attach),
 * a running one through the stopper on its CPU, which needs it in user
 * mode: a task in a kernel path is moved when it returns. */
void move_task(struct sim *s, struct task_struct *p, int cpu, uint64_t now)
{
	int src = p->cpu;
	if (cpu == src || !task_allowed(p, cpu))
		return;
	switch (p->state) {
	case TASK_QUEUED:
		dequeue_task(s, src, p);
		activate_task(s, p, cpu, now);
		sched_balance_rearm(s, src, now);
		break;
	case TASK_ON_CPU:
		/* is it inside one of its faults drawn in bulk? */
		task_bulk_catch_up(s, p, now, false);
		if (task_busy_end(s, p, now)) {
			p->move_to = cpu;
			/* the move waits for its return */
			task_bulk_catch_up(s, p, now, true);
			return;
		}
		/* the stopper preempts it on its CPU and moves it */
		steal(s, src, COST_SCHED, s->m.cost.stopper_move_ns);
		dequeue_curr(s, src, p);
		schedule(s, src, now);
		activate_task(s, p, cpu, now);
		break;
	case TASK_SLEEPING:
		set_task_cpu(s, p, cpu); /* its wake-up starts from there */
		break;
	default:
		break;
	}
}

/* The sched_*_numa tracepoints' view of @p on @cpu: zeros without a task,
 * node -1 without a CPU (TP_fast_assign of sched_numa_pair_template). */
static struct trace_numa_task numa_trace_task(const struct sim *s, const struct task_struct *p, int cpu)
{
	struct trace_numa_task f = { .cpu = cpu, .nid = cpu >= 0 ? cpu_to_node(s, cpu) : -1 };
	if (p) {
		f.pid = p->pid;
		f.tgid = p->tgid;
		f.ngid = task_numa_group_id(p);
	}
	return f;
}

void trace_sched_numa(struct sim *s, enum trace_type type, const struct task_struct *src, int src_cpu,
		      const struct task_struct *dst, int dst_cpu)
{
	struct trace_numa_pair f = { numa_trace_task(s, src, src_cpu), numa_trace_task(s, dst, dst_cpu) };
	trace_emit_numa(s->e.trace, type, sim_now(s), &f);
}

/* Migrate the current task @p to @cpu. */
int migrate_task_to(struct sim *s, struct task_struct *p, int cpu)
{
	int curr_cpu = p->cpu;
	if (curr_cpu == cpu)
		return 0;
	if (!task_allowed(p, cpu))
		return -EINVAL;
	if (trace_on(s, TR_MOVE_NUMA))
		trace_sched_numa(s, TR_MOVE_NUMA, p, curr_cpu, NULL, cpu);
	p->nr_numa_moves++;
	move_task(s, p, cpu, sim_now(s));
	return 0;
}

/* Cross-migrate the current task @p and @t. */
int migrate_swap(struct sim *s, struct task_struct *p, struct task_struct *t)
{
	int pc = p->cpu, tc = t->cpu;
	if (pc == tc || !task_allowed(p, tc) || !task_allowed(t, pc))
		return -EINVAL;
	if (trace_on(s, TR_SWAP_NUMA))
		trace_sched_numa(s, TR_SWAP_NUMA, p, pc, t, tc);
	p->nr_numa_swaps++;
	t->nr_numa_swaps++;
	uint64_t now = sim_now(s);
	move_task(s, t, pc, now);
	move_task(s, p, tc, now);
	return 0;
}

void sched_setnuma(struct sim *s, struct task_struct *p, int nid)
{
	struct rq *rq = cpu_rq(s, p->cpu);
	bool counted = p->state == TASK_QUEUED || p->state == TASK_ON_CPU;
	if (counted)
		account_numa_dequeue(s, rq, p);
	p->numa_preferred_nid = nid;
	if (counted)
		account_numa_enqueue(s, rq, p);
}

/* ---- sleeping and waking ------------------------------------------------------ */

void try_to_wake_up(struct sim *s, struct task_struct *p, int waker_cpu, uint64_t now)
{
	int cpu = select_task_rq_fair(s, p, p->cpu, waker_cpu);
	activate_task(s, p, cpu, now);
	if (s->w.p.run_ms)
		p->run_left = 0; /* a new run phase */
}

void sched_block_task(struct sim *s, struct task_struct *p, uint64_t now, uint64_t wake)
{
	int cpu = p->cpu;
	p->want_sleep = false;
	dequeue_curr(s, cpu, p);
	schedule(s, cpu, now);
	p->state = TASK_SLEEPING;
	s->task_state_gen++;
	if (wake != UINT64_MAX)
		timerq_set(&s->e.q, s->sched->timer_sleep + (uint32_t)p->idx, wake);
}

/* The running @p's run phase ended: it sleeps for a drawn time. */
static void block_task(struct sim *s, struct task_struct *p, uint64_t now)
{
	sched_block_task(s, p, now, now + sleep_draw(s, p, s->w.p.sleep_ms));
}

/* The running @p's slice ended with others waiting: to the back of the
 * queue. */
static void preempt_curr(struct sim *s, int cpu, struct task_struct *p, uint64_t now)
{
	cpu_rq(s, cpu)->need_resched = false;
	struct task_struct *next = pick_next_task(s, cpu);
	if (!next) {
		arm_resched(s, cpu, now);
		return;
	}
	/* the runqueue keeps its count: p goes back to the tail */
	rq_append(cpu_rq(s, cpu), p);
	context_switch(s, cpu, next, now, true);
	p->state = TASK_QUEUED;
	s->task_state_gen++;
}

/* do_exit: the task's work is done; its CPU runs the next one. */
static void exit_task(struct sim *s, struct task_struct *p, uint64_t now)
{
	switch (p->state) {
	case TASK_ON_CPU:
		dequeue_curr(s, p->cpu, p);
		schedule(s, p->cpu, now);
		break;
	case TASK_QUEUED:
		dequeue_task(s, p->cpu, p);
		sched_balance_rearm(s, p->cpu, now);
		break;
	default:
		break;
	}
	timerq_cancel(&s->e.q, s->sched->timer_sleep + (uint32_t)p->idx);
	p->state = TASK_DEAD;
	s->task_state_gen++;
	p->mm->mm_users--;
	s->sched->nr_alive--;
}

bool sched_exit_done(struct sim *s, uint64_t now)
{
	int working = 0; /* workers not yet exited (a migration caller does not count) */
	for (int i = 0; i < s->nr_tasks; i++) {
		struct task_struct *p = &s->tasks[i];
		if (p->syscall_caller || p->state == TASK_DEAD)
			continue;
		working++;
		if (!p->done)
			continue;
		if (p->state == TASK_ON_CPU && task_busy_end(s, p, now))
			continue; /* in a kernel path: at its return (or the next accounting) */
		sim_enter_cpu(s, p->cpu, now);
		exit_task(s, p, now);
		working--;
	}
	return working == 0;
}

bool sched_return_to_user(struct sim *s, struct task_struct *p, uint64_t now)
{
	int cpu = p->cpu;
	if (p->done) {
		exit_task(s, p, now);
		return false;
	}
	/* A task on its way to sleep sleeps first; a move that waited for
	 * its return (the stopper's) then only sets where it wakes, as
	 * migration_cpu_stop does for a task no longer queued.  Moved
	 * first, it ran on elsewhere with want_sleep set, and a syscall
	 * caller, which enters the kernel only for its calls, never slept
	 * again. */
	if (p->want_sleep) {
		int to = p->move_to;
		p->move_to = -1;
		if (p->syscall_caller) /* until its next call, if any */
			sched_block_task(s, p, now, sched_next_call(s, p));
		else
			block_task(s, p, now);
		if (to >= 0)
			move_task(s, p, to, now);
		return false;
	}
	if (p->move_to >= 0) {
		int to = p->move_to;
		p->move_to = -1;
		move_task(s, p, to, now);
		if (p->cpu != cpu)
			return false;
	}
	if (cpu_rq(s, cpu)->need_resched) {
		preempt_curr(s, cpu, p, now);
		return s->cpus[cpu].curr == p;
	}
	return true;
}

/* The sleep timer of a task: the end of its run phase (it blocks) or of
 * its sleep (it wakes, on the CPU where the timer was armed). */
/* The caller's next call: from, to, and when the one after it is due. */
static void prepare_call(struct sim *s, struct task_struct *p, uint64_t now)
{
	const struct workload_params *w = &s->w.p;
	static const enum migrate_reason reason[NR_MCALLS] = {
		[MCALL_MIGRATE_PAGES] = MR_SYSCALL, [MCALL_MOVE_PAGES] = MR_SYSCALL,
		[MCALL_MBIND] = MR_MEMPOLICY_MBIND,
	};
	bool back = w->migrate_back_and_forth && (p->calls_made & 1);
	if (!p->call && !(p->call = calloc(1, sizeof(*p->call))))
		abort();
	task_mctx(s, p);
	*p->call = (struct migrate_call){
		.mm_id = w->migrate_process,
		.from = back ? w->migrate_to : w->migrate_from,
		.to = back ? w->migrate_from : w->migrate_to,
		.reason = reason[w->migrate_call],
		/* kernel_migrate_pages passes MPOL_MF_MOVE_ALL when the caller
		 * has CAP_SYS_NICE, as numactl's migratepages run by root does;
		 * mbind(MPOL_MF_MOVE) and move_pages without MPOL_MF_MOVE_ALL
		 * leave the folios other processes map */
		.move_all = w->migrate_call == MCALL_MIGRATE_PAGES,
		.flush_at_busy = w->migrate_call == MCALL_MOVE_PAGES,
		.started = now,
	};
	p->calls_made++;
}

uint64_t sched_next_call(const struct sim *s, const struct task_struct *p)
{
	const struct workload_params *w = &s->w.p;
	if (w->migrate_every_s <= 0)
		return UINT64_MAX;
	return time_ns(w->migrate_at_s, NSEC_PER_SEC) +
	       time_ns(w->migrate_every_s, NSEC_PER_SEC) * (uint64_t)p->calls_made;
}

static void sleep_timer(struct sim *s, struct task_struct *p, uint64_t now)
{
	if (p->state == TASK_SLEEPING) {
		sim_enter_cpu(s, p->cpu, now);
		if (p->syscall_caller)
			prepare_call(s, p, now);
		try_to_wake_up(s, p, p->cpu, now);
		return;
	}
	if (p->state != TASK_ON_CPU)
		return;
	p->run_left = 0;
	/* inside one of its faults drawn in bulk? */
	task_bulk_catch_up(s, p, now, false);
	uint64_t busy = task_busy_end(s, p, now);
	if (busy) {
		if (s->e.acct[p->cpu].in_kernel)
			p->want_sleep = true; /* blocks on its way out */
		else
			timerq_set(&s->e.q, s->sched->timer_sleep + (uint32_t)p->idx, busy);
		return;
	}
	sim_enter_cpu(s, p->cpu, now);
	block_task(s, p, now);
}

/* The slice of @cpu's task ended with others waiting. */
static void resched_timer(struct sim *s, int cpu, uint64_t now)
{
	struct task_struct *curr = s->cpus[cpu].curr;
	if (!curr || !cpu_rq(s, cpu)->head)
		return;
	/* inside one of its faults drawn in bulk? */
	task_bulk_catch_up(s, curr, now, false);
	uint64_t busy = task_busy_end(s, curr, now);
	if (busy) {
		if (s->e.acct[cpu].in_kernel)
			cpu_rq(s, cpu)->need_resched = true; /* at the return to user */
		else
			timerq_set(&s->e.q, s->sched->timer_resched + (uint32_t)cpu, busy);
		return;
	}
	sim_enter_cpu(s, cpu, now);
	preempt_curr(s, cpu, curr, now);
}

void sched_timer(struct sim *s, uint32_t id, uint64_t now)
{
	struct sched_state *ss = s->sched;
	if (id < ss->timer_resched)
		sleep_timer(s, &s->tasks[id - ss->timer_sleep], now);
	else if (id < ss->timer_bal)
		resched_timer(s, (int)(id - ss->timer_resched), now);
	else
		sched_balance_periodic(s, (int)(id - ss->timer_bal), now);
}

/* ---- the tick --------------------------------------------------------------- */

void schedule_tick(struct sim *s, struct task_struct *p, uint64_t now)
{
	if (!sched_numa_balancing(s) || p->state != TASK_ON_CPU ||
	    p->syscall_caller)
		return;
	/* the wall time at which its CPU time passes the trigger, if it keeps
	 * the CPU */
	uint64_t due_cpu = p->node_stamp + (uint64_t)p->numa_scan_period * NSEC_PER_MSEC + 1;
	uint64_t cpu_now = task_sum_exec_runtime(p, now);
	uint64_t due = now + (due_cpu > cpu_now ? due_cpu - cpu_now : 0);
	uint64_t tick = tick_ns(s);
	uint64_t when = (due + tick - 1) / tick * tick;
	if (when <= now)
		when = (now / tick + 1) * tick;
	timerq_set(&s->e.q, tick_timer_id(s, p->idx), when);
}

void sched_tick(struct sim *s, struct task_struct *p, uint64_t now)
{
	/* its CPU's busy time so far */
	task_bulk_catch_up(s, p, now, false);
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

/* ---- set-up ------------------------------------------------------------------- */

static int build_balancers(struct sim *s)
{
	struct sched_state *ss = s->sched;
	const struct sched_topology *t = &ss->topo;
	int n = 0;
	for (int l = 0; l < t->nr_levels; l++)
		n += s->m.nr_cpus / t->level[l].group_weight;
	ss->bal = calloc((size_t)(n ? n : 1), sizeof(*ss->bal));
	if (!ss->bal)
		return -1;
	ss->nr_bal = 0;
	for (int l = 0; l < t->nr_levels; l++) {
		ss->bal_of[l] = malloc(sizeof(int) * (size_t)s->m.nr_cpus);
		if (!ss->bal_of[l])
			return -1;
		const struct sd_map *mp = &t->map[l];
		for (int i = 0; i < s->m.nr_cpus; i++) {
			int cpu = mp->cpus[i];
			if (mp->grp_start[cpu] != i) { /* not its group's first CPU */
				ss->bal_of[l][cpu] = ss->bal_of[l][mp->cpus[mp->grp_start[cpu]]];
				continue;
			}
			struct balancer *b = &ss->bal[ss->nr_bal];
			b->level = l;
			b->cpu = cpu;
			b->interval_ms = t->level[l].min_interval_ms;
			ss->bal_of[l][cpu] = ss->nr_bal++;
		}
	}
	return 0;
}

int sched_init(struct sim *s)
{
	struct sched_state *ss = calloc(1, sizeof(*ss));
	int nodes = s->m.nr_nodes, cpus = s->m.nr_cpus;
	if (!ss)
		return -1;
	s->sched = ss;
	ss->rq = calloc((size_t)cpus, sizeof(*ss->rq));
	ss->node_mask = calloc((size_t)nodes, sizeof(struct cpumask));
	ss->cpu_mask = calloc((size_t)cpus, sizeof(struct cpumask));
	if (!ss->rq || !ss->node_mask || !ss->cpu_mask || sched_topology_build(&ss->topo, &s->m) ||
	    build_balancers(s))
		return -1;
	for (int c = 0; c < cpus; c++) {
		cpumask_set_cpu(c, &ss->node_mask[machine_cpu_node(&s->m, c)]);
		cpumask_set_cpu(c, &ss->cpu_mask[c]);
	}
	ss->nr_idle = cpus;
	ss->nr_alive = s->nr_tasks;
	/* sysctl_sched_base_slice (EEVDF) or sched_min_granularity (CFS):
	 * 0.75 ms, 0.70 ms from v6.15, times 1 + ilog2(min(CPUs, 8)) */
	unsigned f = 1, n = cpus < 8 ? (unsigned)cpus : 8;
	while (n >>= 1)
		f++;
	ss->slice_ns = (uint64_t)f * (s->k.base_slice_700us ? 700000u : 750000u);
	return 0;
}

void sched_free(struct sim *s)
{
	struct sched_state *ss = s->sched;
	if (!ss)
		return;
	sched_topology_free(&ss->topo);
	for (int l = 0; l < SD_MAX_LEVELS; l++)
		free(ss->bal_of[l]);
	free(ss->bal);
	free(ss->rq);
	free(ss->node_mask);
	free(ss->cpu_mask);
	free(ss);
	s->sched = NULL;
}

/* Where threads land when the process starts them (fork_spread_cpu, per
 * process).  A bound thread is pinned to the CPU (or node) it lands on, as
 * taskset or numactl would. */
void sched_place_tasks(struct sim *s)
{
	for (int i = 0; i < s->nr_tasks; i++) {
		struct task_struct *p = &s->tasks[i];
		int cpu = fork_spread_cpu(&s->m, i);
		int node = machine_cpu_node(&s->m, cpu);
		p->cpu = cpu;
		s->task_node_gen++;
		p->move_to = -1;
		p->state = TASK_NEW;
		s->task_state_gen++;
		if (s->w.p.bind == BIND_CPU)
			p->cpus_ptr = &s->sched->cpu_mask[cpu];
		else if (s->w.p.bind == BIND_NODE)
			p->cpus_ptr = &s->sched->node_mask[node];
	}
}

void sched_start(struct sim *s)
{
	for (int i = 0; i < s->nr_tasks; i++) {
		struct task_struct *p = &s->tasks[i];
		if (p->syscall_caller) { /* asleep until its first call */
			p->state = TASK_SLEEPING;
			s->task_state_gen++;
			timerq_set(&s->e.q, s->sched->timer_sleep + (uint32_t)i,
				   time_ns(s->w.p.migrate_at_s, NSEC_PER_SEC));
			continue;
		}
		enqueue_task(s, p->cpu, p);
	}
	for (int c = 0; c < s->m.nr_cpus; c++) {
		struct task_struct *p = pick_next_task(s, c);
		if (p)
			context_switch(s, c, p, 0, false);
	}
	for (int c = 0; c < s->m.nr_cpus; c++)
		sched_balance_rearm(s, c, 0);
}
