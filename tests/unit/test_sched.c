/* Scheduler rules: init_numa_balancing, update_scan_period, placement once
 * per sweep, task_numa_migrate's swap and its imbalance allowance, the
 * sched_move_numa / sched_swap_numa / sched_stick_numa tracepoints,
 * wake-up placement, and the x86 context switch (catch-up flush, lazy
 * CPUs, the v6.14 mm_cpumask trim).  The world is testsim's: 2 nodes of 2
 * CPUs, one process of 4 threads, one on each CPU (tasks 0 and 2 on node
 * 0, tasks 1 and 3 on node 1: fork balancing alternates nodes). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "asm/mmu_context.h"
#include "asm/tlbflush.h"
#include "kernel/sched/sched.h"
#include "linux/sched/numa_balancing.h"
#include "unit/helpers/testsim.h"

#define mk testsim_mk
#define MS NSEC_PER_MSEC

static struct task_struct *task_on(struct sim *s, int cpu)
{
	return s->cpus[cpu].curr;
}

/* Give @p a fault buffer with all its memory faults on @nid. */
static void faults_on(struct sim *s, struct task_struct *p, int nid, unsigned long n)
{
	if (!p->numa_faults)
		p->numa_faults = calloc((size_t)(8 * s->m.nr_nodes), sizeof(unsigned long));
	assert_non_null(p->numa_faults);
	p->numa_faults[2 * (0 * s->m.nr_nodes + nid) + 1] = n; /* NUMA_MEM, private */
	p->total_numa_faults = n;
}

/* ---- init_numa_balancing ------------------------------------------------------ */

static void test_init_first_thread_and_new_thread(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_X86_IPI);
	struct task_struct *first = &s->tasks[0], *thread = &s->tasks[1];
	testsim_enter(s, 0, 0);
	init_numa_balancing(s, first, true);
	init_numa_balancing(s, thread, false);
	/* both start at scan_delay; the first thread's node_stamp is 0 (its
	 * first trigger switches it to task_scan_start), a new thread's is
	 * the stagger, so it keeps scan_delay */
	assert_int_equal(first->numa_scan_period, 1000);
	assert_int_equal(first->node_stamp, 0);
	assert_int_equal(first->numa_preferred_nid, NUMA_NO_NODE);
	assert_int_equal(thread->numa_scan_period, 1000);
	assert_true(thread->node_stamp > 0);
	assert_true(thread->node_stamp < 10 * MS);
	assert_int_equal(s->mms[0].numa_next_scan, msecs_to_jiffies(s, 1000));
}

/* ---- jiffies without a division ------------------------------------------------ */

/* jiffies_after(j) is jiffies > j, on both sides of every tick boundary,
 * and jiffies_end_ns saturates where (j + 1) ticks pass 2^64 ns. */
static void test_jiffies_after_matches_the_division(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_X86_IPI);
	const uint64_t tick = tick_ns(s);
	assert_int_equal(tick, NSEC_PER_SEC / (uint64_t)s->m.hz);
	const uint64_t times[] = { 0, 1, tick - 1, tick, tick + 1, 5 * tick - 1, 5 * tick, 123456789 };
	for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
		testsim_enter(s, 0, times[i]);
		uint64_t now_j = jiffies(s);
		for (uint64_t j = now_j > 2 ? now_j - 2 : 0; j <= now_j + 2; j++)
			assert_int_equal(jiffies_after(s, j), now_j > j);
	}
	assert_int_equal(jiffies_end_ns(s, 0xfffffffeull), 0xffffffffull * tick);
	assert_int_equal(jiffies_end_ns(s, 0xffffffffull), 0x100000000ull * tick);
	assert_int_equal(jiffies_end_ns(s, UINT64_MAX / tick - 2), (UINT64_MAX / tick - 1) * tick);
	assert_int_equal(jiffies_end_ns(s, UINT64_MAX / tick - 1), (UINT64_MAX / tick) * tick);
	assert_int_equal(jiffies_end_ns(s, UINT64_MAX / tick), UINT64_MAX);
	assert_int_equal(jiffies_end_ns(s, UINT64_MAX), UINT64_MAX);
}

/* ---- update_scan_period --------------------------------------------------------- */

static void test_update_scan_period_resets_cross_node_move_of_faulted_task(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_X86_IPI);
	struct task_struct *p = task_on(s, 0); /* node 0 */
	testsim_enter(s, p->idx, 0);
	p->numa_scan_period = 1000;
	update_scan_period(s, p, 2); /* no fault buffer yet: never reset */
	assert_int_equal(p->numa_scan_period, 1000);
	faults_on(s, p, 0, 10);
	update_scan_period(s, p, 1); /* same node */
	assert_int_equal(p->numa_scan_period, 1000);
	update_scan_period(s, p, 2); /* first sweep, other node: reset */
	assert_int_equal(p->numa_scan_period, task_scan_start(s, p));
	assert_int_equal(s->st.scan_period_resets, 1);
}

static void test_update_scan_period_after_a_sweep_respects_preferred_node(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_X86_IPI);
	struct task_struct *p = task_on(s, 0); /* node 0 */
	testsim_enter(s, p->idx, 0);
	faults_on(s, p, 1, 10);
	p->numa_scan_seq = 1;
	p->numa_preferred_nid = 1;
	p->numa_scan_period = 1000;
	update_scan_period(s, p, 2); /* to the preferred node: no reset */
	assert_int_equal(p->numa_scan_period, 1000);
	p->numa_preferred_nid = 0;
	p->cpu = 2;                  /* off its preferred node, moving away again */
	update_scan_period(s, p, 3);
	assert_int_equal(p->numa_scan_period, 1000);
	update_scan_period(s, p, 0); /* same node (node 1 -> node 0 is preferred): none */
	assert_int_equal(p->numa_scan_period, 1000);
	p->cpu = 0;
	p->numa_preferred_nid = NUMA_NO_NODE; /* no preferred node: every move resets */
	update_scan_period(s, p, 2);
	assert_int_equal(p->numa_scan_period, task_scan_start(s, p));
}

/* ---- update_task_scan_period ----------------------------------------------------- */

/* A placement that saw failed migrations doubles the period; then a
 * placement whose faults are all private and local, none failed. */
static void slow_down_then_settle(struct sim *s, struct task_struct *p)
{
	testsim_enter(s, p->idx, 100 * MS);
	p->numa_scan_period = 1000;
	p->numa_scan_period_max = 60000;
	p->numa_faults_locality[1] = 100;
	p->numa_faults_locality[2] = 10; /* failed migrations */
	update_task_scan_period(s, p, 0, 100);
	assert_int_equal(p->numa_scan_period, 2000);
	p->numa_faults_locality[1] += 100;
	update_task_scan_period(s, p, 0, 100);
}

static void test_scan_period_keeps_failed_migrations_without_locality_reset(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_X86_IPI);
	struct task_struct *p = task_on(s, 0);
	/* v7.3 returns before the reset: the failures count again, and the
	 * period doubles again although nothing failed since */
	slow_down_then_settle(s, p);
	assert_int_equal(p->numa_scan_period, 4000);
	assert_int_equal(p->numa_faults_locality[2], 10);
}

static void test_scan_period_slows_down_once_with_locality_reset(void **state)
{
	struct sim *s = mk(state, "v7.3+locality-reset", FLUSH_X86_IPI);
	struct task_struct *p = task_on(s, 0);
	/* e81ee0630837: the slow-down clears the counts too, so the next
	 * placement (all private: ps_ratio 10) adds 3 slots of 200 ms */
	slow_down_then_settle(s, p);
	assert_int_equal(p->numa_scan_period, 2600);
	assert_int_equal(p->numa_faults_locality[0] + p->numa_faults_locality[1] +
				 p->numa_faults_locality[2], 0);
}

/* ---- placement once per sweep ---------------------------------------------------- */

static void test_placement_runs_only_when_numa_scan_seq_changes(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_X86_IPI);
	struct task_struct *p = task_on(s, 0);
	testsim_enter(s, p->idx, 100 * MS);
	faults_on(s, p, 1, 0);
	p->numa_faults[2 * (2 * s->m.nr_nodes + 1) + 1] = 50; /* MEMBUF: faults on node 1 */
	task_numa_placement(s, p); /* same seq as the mm: nothing */
	assert_int_equal(p->numa_preferred_nid, NUMA_NO_NODE);
	assert_int_equal(p->last_task_numa_placement, 0);
	s->mms[0].numa_scan_seq++;
	task_numa_placement(s, p);
	assert_int_equal(p->numa_scan_seq, s->mms[0].numa_scan_seq);
	assert_int_equal(p->numa_preferred_nid, 1);
	assert_true(p->last_task_numa_placement > 0);
}

/* ---- task_numa_migrate ------------------------------------------------------------- */

static void test_task_numa_migrate_swaps_when_both_tasks_gain(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_X86_IPI);
	struct task_struct *p = task_on(s, 0), *q = task_on(s, 2); /* node 0, node 1 */
	faults_on(s, p, 1, 100);
	faults_on(s, q, 0, 100);
	sched_setnuma(s, p, 1);
	sched_setnuma(s, q, 0);
	testsim_enter(s, p->idx, 10 * MS);
	/* node 1 is fully busy: no move, but a swap helps both */
	assert_int_equal(task_numa_migrate(s, p), 0);
	assert_int_equal(s->st.numa_task_swaps, 1);
	assert_int_equal(s->sched->rq[0].nr_running + s->sched->rq[2].nr_running, 2);
	assert_int_equal(cpu_to_node(s, p->cpu), 1);
	assert_int_equal(cpu_to_node(s, q->cpu), 0);
	assert_int_equal(p->nr_node_moves, 1);
	assert_int_equal(q->nr_node_moves, 1);
}

static void test_task_numa_migrate_refuses_move_beyond_imbalance_allowance(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_X86_IPI);
	struct task_struct *p = task_on(s, 0), *q = task_on(s, 2);
	/* node 1 gets an idle CPU: one task there, two on node 0 */
	sched_block_task(s, q, 0, 1000 * NSEC_PER_SEC);
	assert_true(available_idle_cpu(s, 2));
	faults_on(s, p, 1, 100);
	sched_setnuma(s, p, 1);
	testsim_enter(s, p->idx, 10 * MS);
	/* moving p would leave node 1 with 2 tasks and node 0 with 1: an
	 * imbalance of (1 + 1) - (2 - 1) = 1 with more than imb_numa_nr (1
	 * on a 2-CPU node: 1/8 of the package, at least 1) running there --
	 * not allowed; no swap either, as node 1 has spare capacity */
	assert_int_equal(s->sched->topo.level[1].imb_numa_nr, 1);
	assert_int_equal(task_numa_migrate(s, p), -1);
	assert_int_equal(p->cpu, 0);
	assert_int_equal(s->st.numa_task_moves + s->st.numa_task_swaps, 0);
}

/* Give @p memory faults @n0 on node 0 and @n1 on node 1 (private). */
static void faults_split(struct sim *s, struct task_struct *p, unsigned long n0, unsigned long n1)
{
	faults_on(s, p, 0, n0);
	p->numa_faults[2 * (0 * s->m.nr_nodes + 1) + 1] = n1;
	p->total_numa_faults = n0 + n1;
}

static void five_threads(struct sim *s)
{
	s->w.p.threads = 5;
}

/* The world with a fifth thread, queued on node 0: node 0 runs 3 tasks on
 * 2 CPUs, node 1 runs 2 (fully busy), so moving a task from node 0 leaves
 * the load no worse (maymove) while a swap is still allowed. */
static struct sim *mk5(void **state)
{
	struct sim *s = testsim_new_cfg("v7.3", FLUSH_X86_IPI, five_threads);
	*state = s;
	assert_int_equal(s->sched->rq[0].nr_running + s->sched->rq[1].nr_running, 3);
	assert_int_equal(s->sched->rq[2].nr_running + s->sched->rq[3].nr_running, 2);
	return s;
}

/* p on node 0 prefers node 1 and has all its faults there (taskimp 1000). */
static struct task_struct *numa_mover(struct sim *s)
{
	struct task_struct *p = task_on(s, 0);
	faults_on(s, p, 1, 100);
	sched_setnuma(s, p, 1);
	testsim_enter(s, p->idx, 10 * MS);
	return p;
}

static void test_task_numa_compare_prefers_partner_going_home(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_X86_IPI);
	struct task_struct *p = numa_mover(s);
	struct task_struct *q = task_on(s, 2), *r = task_on(s, 3); /* both node 1 */
	/* node 1 is fully busy: only a swap.  q (CPU 2, seen first) scores
	 * 1000 and has no preferred node; r scores 1000 - 200 + 1/8 = 900 but
	 * would go to its preferred node 0: 88cca72c9673 takes r although
	 * 900 <= 1000 + SMALLIMP/2, and the search stops there */
	faults_split(s, q, 50, 50);
	faults_split(s, r, 40, 60);
	sched_setnuma(s, r, 0);
	assert_int_equal(task_numa_migrate(s, p), 0);
	assert_int_equal(s->st.numa_task_swaps, 1);
	assert_int_equal(p->cpu, 3);
	assert_int_equal(r->cpu, 0);
	assert_int_equal(q->cpu, 2);
}

static void test_task_numa_compare_search_goes_on_when_task_may_move(void **state)
{
	struct sim *s = mk5(state);
	struct task_struct *p = numa_mover(s);
	struct task_struct *r1 = task_on(s, 2), *r2 = task_on(s, 3);
	/* both partners would go home to node 0: r1 (CPU 2) scores
	 * 1000 + 0 + 1/8 = 1125, r2 2000 + 1/8 = 2250.  The task may also
	 * move (moveimp 1000, below either), so the search does not stop at
	 * r1 (a0f03b617c3b stops at a partner going home only when a swap is
	 * the only way) and r2, better by more than SMALLIMP/2, wins */
	faults_split(s, r1, 50, 50);
	faults_split(s, r2, 100, 0);
	sched_setnuma(s, r1, 0);
	sched_setnuma(s, r2, 0);
	assert_int_equal(task_numa_migrate(s, p), 0);
	assert_int_equal(s->st.numa_task_swaps, 1);
	assert_int_equal(p->cpu, 3);
	assert_int_equal(r2->cpu, 0);
	assert_int_equal(r1->cpu, 2);
}

static void test_task_numa_compare_partner_not_going_home_never_displaces_one_that_is(void **state)
{
	struct sim *s = mk5(state);
	struct task_struct *p = numa_mover(s);
	struct task_struct *r = task_on(s, 2), *q = task_on(s, 3);
	/* r (CPU 2) goes home, 1125; q (CPU 3) has no preferred node and
	 * scores 2000, yet is skipped: the search goes on past r (the task
	 * may move) but only a partner also going home could replace it */
	faults_split(s, r, 50, 50);
	faults_split(s, q, 100, 0);
	sched_setnuma(s, r, 0);
	assert_int_equal(task_numa_migrate(s, p), 0);
	assert_int_equal(s->st.numa_task_swaps, 1);
	assert_int_equal(p->cpu, 2);
	assert_int_equal(r->cpu, 0);
	assert_int_equal(q->cpu, 3);
}

/* ---- the sched NUMA tracepoints ------------------------------------------------------- */

/* Record every event type from here on. */
static void trace_everything(struct sim *s)
{
	s->e.trace = trace_new(0, UINT64_MAX, TRACE_ALL, 1000);
	assert_non_null(s->e.trace);
}

static int count_events(const struct sim *s, enum trace_type type)
{
	int n = 0;
	for (size_t i = 0; i < s->e.trace->n; i++)
		n += s->e.trace->ev[i].type == type;
	return n;
}

/* The one event of @type recorded (fails unless there is exactly one). */
static const struct trace_event *only_event(const struct sim *s, enum trace_type type)
{
	assert_int_equal(count_events(s, type), 1);
	for (size_t i = 0; i < s->e.trace->n; i++)
		if (s->e.trace->ev[i].type == type)
			return &s->e.trace->ev[i];
	return NULL;
}

/* @p makes a numa_group of its own (task_numa_group with no other task
 * to join): its gid is p's pid, as the kernel's. */
static void own_group(struct sim *s, struct task_struct *p)
{
	int priv = 0;
	task_numa_group(s, p, cpu_pid_to_cpupid(s->m.nr_cpus, 0), 0, &priv);
	assert_int_equal(task_numa_group_id(p), p->pid);
}

static void assert_numa_task(struct trace_numa_task f, const struct task_struct *p, int cpu, int nid)
{
	assert_int_equal(f.pid, p ? p->pid : 0);
	assert_int_equal(f.tgid, p ? p->tgid : 0);
	assert_int_equal(f.ngid, p ? task_numa_group_id(p) : 0);
	assert_int_equal(f.cpu, cpu);
	assert_int_equal(f.nid, nid);
}

static void test_migrate_task_to_traces_sched_move_numa(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_X86_IPI);
	struct task_struct *p = task_on(s, 1); /* node 0; not the main thread */
	assert_int_not_equal(p->pid, p->tgid);
	faults_on(s, p, 1, 100);
	own_group(s, p);
	testsim_enter(s, p->idx, 10 * MS);
	trace_everything(s);
	/* the kernel's checks come first and trace nothing: the task's own
	 * CPU (0, no move), a CPU it may not use (-EINVAL) */
	struct cpumask node0 = { 0 };
	cpumask_set_cpu(0, &node0);
	cpumask_set_cpu(1, &node0);
	p->cpus_ptr = &node0;
	assert_int_equal(migrate_task_to(s, p, 1), 0);
	assert_int_equal(migrate_task_to(s, p, 3), -EINVAL);
	assert_int_equal(s->e.trace->n, 0);
	p->cpus_ptr = NULL;
	assert_int_equal(migrate_task_to(s, p, 2), 0);
	const struct trace_event *e = only_event(s, TR_MOVE_NUMA);
	assert_int_equal(e->cpu, 1);
	assert_int_equal(e->pid, p->pid);
	assert_int_equal(e->ts, 10 * MS);
	struct trace_numa_pair f = trace_numa_fields(e);
	assert_numa_task(f.src, p, 1, 0);
	assert_int_equal(f.src.tgid, s->tasks[0].tgid); /* the process, not the thread */
	assert_int_equal(f.src.ngid, p->pid);
	assert_int_equal(f.dst.cpu, 2);
	assert_int_equal(f.dst.nid, 1);
	assert_int_equal(p->cpu, 2);
}

static void test_task_numa_migrate_swap_traces_sched_swap_numa(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_X86_IPI);
	struct task_struct *p = task_on(s, 0), *q = task_on(s, 2); /* node 0, node 1 */
	faults_on(s, p, 1, 100);
	faults_on(s, q, 0, 100);
	own_group(s, q); /* p has none: its ngid is 0, and the swap's rules stay the ungrouped ones */
	sched_setnuma(s, p, 1);
	sched_setnuma(s, q, 0);
	testsim_enter(s, p->idx, 10 * MS);
	trace_everything(s);
	assert_int_equal(task_numa_migrate(s, p), 0);
	const struct trace_event *e = only_event(s, TR_SWAP_NUMA);
	assert_int_equal(e->cpu, 0);
	struct trace_numa_pair f = trace_numa_fields(e);
	assert_numa_task(f.src, p, 0, 0);
	assert_numa_task(f.dst, q, 2, 1);
	assert_int_equal(f.dst.ngid, q->pid);
	assert_int_equal(count_events(s, TR_MOVE_NUMA) + count_events(s, TR_STICK_NUMA), 0);
	/* numasim's own: swapped, for node 1, with CPU 2; moves were refused
	 * (node 1 is fully busy) */
	const struct trace_event *r = only_event(s, TR_NUMA_MIGRATE_RESULT);
	assert_int_equal(r->a, NUMA_MIGRATE_SWAPPED);
	assert_int_equal(r->b, 1);
	assert_int_equal(r->c, 2);
	assert_true(r->d & NUMA_REFUSED_MOVE_IMBALANCE);
}

static void test_task_numa_migrate_without_cpu_traces_sched_stick_numa(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_X86_IPI);
	struct task_struct *p = task_on(s, 0), *q = task_on(s, 2);
	/* the imbalance-allowance world above: no move, no swap */
	sched_block_task(s, q, 0, 1000 * NSEC_PER_SEC);
	faults_on(s, p, 1, 100);
	sched_setnuma(s, p, 1);
	testsim_enter(s, p->idx, 10 * MS);
	trace_everything(s);
	assert_int_equal(task_numa_migrate(s, p), -1);
	/* no CPU found: no partner, dst_cpu and dst_nid -1 */
	struct trace_numa_pair f = trace_numa_fields(only_event(s, TR_STICK_NUMA));
	assert_numa_task(f.src, p, 0, 0);
	assert_numa_task(f.dst, NULL, -1, -1);
	assert_int_equal(count_events(s, TR_MOVE_NUMA) + count_events(s, TR_SWAP_NUMA), 0);
	/* why: the move would unbalance the nodes, and a swap with CPU 3's
	 * task (same process, no group) is not made while node 1 has room */
	const struct trace_event *r = only_event(s, TR_NUMA_MIGRATE_RESULT);
	assert_int_equal(r->a, NUMA_MIGRATE_NO_CPU);
	assert_int_equal(r->b, 1);
	assert_int_equal(r->c, -1);
	assert_int_equal(r->d, NUMA_REFUSED_MOVE_IMBALANCE | NUMA_REFUSED_SWAP_SPARE);
}

static void test_migrate_swap_within_one_cpu_is_refused_untraced(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_X86_IPI);
	struct task_struct *p = task_on(s, 0);
	testsim_enter(s, p->idx, 10 * MS);
	trace_everything(s);
	assert_int_equal(migrate_swap(s, p, p), -EINVAL);
	assert_int_equal(s->e.trace->n, 0);
	assert_int_equal(p->nr_numa_swaps, 0);
}

/* ---- wake-up placement ---------------------------------------------------------------- */

static void test_wakeup_picks_idle_previous_cpu(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_X86_IPI);
	struct task_struct *p = task_on(s, 2); /* node 1 */
	sched_block_task(s, p, 0, 1000 * NSEC_PER_SEC);
	/* woken from node 0: the previous CPU is idle, so it stays */
	assert_int_equal(select_task_rq_fair(s, p, 2, 0), 2);
	try_to_wake_up(s, p, 0, 1 * MS);
	assert_ptr_equal(task_on(s, 2), p);
	assert_int_equal(p->nr_migrations, 0);
}

static void test_wakeup_on_busy_previous_cpu_moves_to_idle_llc_sibling(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_X86_IPI);
	struct task_struct *p = task_on(s, 2), *q = task_on(s, 3); /* both node 1 */
	sched_block_task(s, p, 0, 1000 * NSEC_PER_SEC);
	sched_block_task(s, q, 0, 1000 * NSEC_PER_SEC);
	move_task(s, q, 2, 0); /* a sleeper's wake_cpu */
	try_to_wake_up(s, q, 2, 0); /* q now runs on p's CPU */
	assert_ptr_equal(task_on(s, 2), q);
	/* p's previous CPU is busy, CPU 3 in its LLC is idle */
	assert_int_equal(select_task_rq_fair(s, p, 2, 2), 3);
}

/* ---- load balancing: migrate_degrades_locality -------------------------------------- */

/* The five-thread world on @kernel; the task queued on node 0 gets memory
 * faults @n0 and @n1 on the two nodes (no preferred node, so the weights
 * decide) and last ran @ago ns before @now.  Then CPU 3 (node 1) goes
 * idle: its newly-idle balance may pull the queued task across the NUMA
 * level, the first try (nr_balance_failed 0 <= cache_nice_tries), so a
 * hot task stays.  Returns whether it was pulled. */
static bool newidle_pulls_queued_task(void **state, const char *kernel, unsigned long n0,
				      unsigned long n1, uint64_t ago)
{
	struct sim *s = testsim_new_cfg(kernel, FLUSH_X86_IPI, five_threads);
	*state = s;
	const uint64_t now = 100 * MS;
	struct task_struct *q = cpu_rq(s, 0)->head ? cpu_rq(s, 0)->head : cpu_rq(s, 1)->head;
	assert_non_null(q);
	assert_int_equal(cpu_to_node(s, q->cpu), 0);
	assert_int_equal(q->numa_preferred_nid, NUMA_NO_NODE);
	faults_split(s, q, n0, n1);
	q->exec_start = now - ago;
	testsim_enter(s, task_on(s, 3)->idx, now);
	sched_block_task(s, task_on(s, 3), now, UINT64_MAX);
	return q->cpu == 3;
}

/* A task returning to user mode with a sleep due and a move that waited
 * for its return sleeps, and wakes where the move sends it; before,
 * the move went first and the task ran on with its sleep forgotten. */
static void test_return_to_user_sleeps_before_a_pending_move(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_X86_IPI);
	struct task_struct *p = task_on(s, 0);
	const uint64_t now = 10 * MS;
	testsim_enter(s, p->idx, now);
	p->want_sleep = true;
	p->move_to = 3;
	assert_false(sched_return_to_user(s, p, now));
	assert_int_equal(p->state, TASK_SLEEPING);
	assert_int_equal(p->cpu, 3);
	assert_int_equal(p->move_to, -1);
	assert_true(task_on(s, 0) != p);
}

static void test_balance_keeps_task_whose_faults_are_on_the_source(void **state)
{
	/* cold (ran 50 ms ago), but 100% of its faults on node 0: moving it
	 * degrades locality, so it counts as hot */
	assert_false(newidle_pulls_queued_task(state, "v7.3", 100, 0, 50 * MS));
}

static void test_balance_pulls_task_whose_faults_are_on_the_destination(void **state)
{
	/* hot (ran 0.1 ms ago), but its faults are on node 1: moving it
	 * improves locality, so cache hotness is not asked */
	assert_true(newidle_pulls_queued_task(state, "v7.3", 0, 100, MS / 10));
}

static void test_balance_equal_fault_weights_before_and_after_v6_14(void **state)
{
	/* equal weights, a hot task: v6.12's `dst < src` is false, which
	 * counts as improving (pulled); v6.14's `src - dst` is 0, so cache
	 * hotness decides (stays) */
	assert_true(newidle_pulls_queued_task(state, "v6.12", 50, 50, MS / 10));
	testsim_teardown(state);
	assert_false(newidle_pulls_queued_task(state, "v7.3", 50, 50, MS / 10));
}

/* ---- load balancing: fbq classes at the NUMA level ------------------------------------ */

/* The five-thread world: node 0 has a runqueue of 2 (the busier) and one of
 * 1.  Every task of the runqueue of 2 prefers node 0; the single task's
 * preference is @single_nid.  CPU 3 (node 1) goes idle and balances newly
 * idle; every task is cold (ran 50 ms ago).  Returns how many tasks left
 * node 0. */
static int newidle_pulls_with_single_preferring(void **state, int single_nid)
{
	struct sim *s = testsim_new_cfg("v7.3", FLUSH_X86_IPI, five_threads);
	*state = s;
	const uint64_t now = 100 * MS;
	int two = cpu_rq(s, 0)->nr_running == 2 ? 0 : 1, one = 1 - two;
	assert_int_equal(cpu_rq(s, two)->nr_running, 2);
	assert_int_equal(cpu_rq(s, one)->nr_running, 1);
	for (int i = 0; i < s->nr_tasks; i++) {
		struct task_struct *t = &s->tasks[i];
		if (cpu_to_node(s, t->cpu) != 0)
			continue;
		sched_setnuma(s, t, t->cpu == one ? single_nid : 0);
		t->exec_start = now - 50 * MS;
	}
	/* fbq: the group is "regular" if the single task has no preferred
	 * node, "all" if it prefers node 0 too; the runqueue of 2 is "all" */
	testsim_enter(s, task_on(s, 3)->idx, now);
	sched_block_task(s, task_on(s, 3), now, UINT64_MAX);
	return 3 - (cpu_rq(s, 0)->nr_running + cpu_rq(s, 1)->nr_running);
}

static void test_numa_balance_passes_over_runqueue_of_well_placed_tasks(void **state)
{
	/* the group runs a task with no preferred node: only its runqueue
	 * may give, and a runqueue of one gives nothing -- the two tasks on
	 * their preferred node stay */
	assert_int_equal(newidle_pulls_with_single_preferring(state, NUMA_NO_NODE), 0);
}

static void test_numa_balance_takes_from_busiest_when_all_are_well_placed(void **state)
{
	/* every task is on its preferred node: no distinction, the busiest
	 * runqueue gives one */
	assert_int_equal(newidle_pulls_with_single_preferring(state, 0), 1);
}

/* ---- x86 context switch ------------------------------------------------------------ */

static void test_switch_back_to_flushed_mm_from_lazy_flushes(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_X86_IPI);
	struct mm_struct *mm = &s->mms[0];
	struct task_struct *p = task_on(s, 3);
	sched_block_task(s, p, 0, 1000 * NSEC_PER_SEC);
	assert_true(s->cpus[3].is_lazy);
	assert_ptr_equal(s->cpus[3].loaded_mm, mm);
	testsim_enter(s, task_on(s, 0)->idx, 1 * MS);
	/* a ranged flush skips the lazy CPU: it falls behind */
	flush_tlb_mm_range(mm, 0, PAGE_SIZE, PAGE_SHIFT, false);
	assert_int_equal(testsim_irqs(s, 3), 0);
	assert_true(s->cpus[3].loaded_gen < mm->tlb_gen);
	double refill = engine_cost(&s->e.acct[3], COST_TLB_REFILL);
	x86_switch_mm_irqs_off(s, 3, mm, 500 * MS);
	assert_false(s->cpus[3].is_lazy);
	assert_int_equal(s->cpus[3].loaded_gen, mm->tlb_gen);
	assert_true(engine_cost(&s->e.acct[3], COST_TLB_REFILL) > refill);
}

static void test_switch_back_to_current_mm_from_lazy_does_not_flush(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_X86_IPI);
	struct mm_struct *mm = &s->mms[0];
	sched_block_task(s, task_on(s, 3), 0, 1000 * NSEC_PER_SEC);
	double refill = engine_cost(&s->e.acct[3], COST_TLB_REFILL);
	x86_switch_mm_irqs_off(s, 3, mm, 500 * MS);
	assert_true(engine_cost(&s->e.acct[3], COST_TLB_REFILL) == refill);
}

static void check_lazy_cpu_skipped_unless_tables_freed(struct sim *s)
{
	struct mm_struct *mm = &s->mms[0];
	sched_block_task(s, task_on(s, 3), 0, 1000 * NSEC_PER_SEC);
	testsim_enter(s, task_on(s, 0)->idx, 1 * MS);
	flush_tlb_mm_range(mm, 0, PAGE_SIZE, PAGE_SHIFT, false);
	assert_int_equal(testsim_irqs(s, 3), 0);
	assert_ptr_equal(s->cpus[3].loaded_mm, mm);
	flush_tlb_mm(mm); /* freed_tables: lazy CPUs too; they drop the mm */
	assert_int_equal(testsim_irqs(s, 3), 1);
	assert_null(s->cpus[3].loaded_mm);
}

static void test_lazy_cpu_skipped_unless_tables_freed_v6_4(void **state)
{
	check_lazy_cpu_skipped_unless_tables_freed(mk(state, "v6.4", FLUSH_X86_IPI));
	/* before v6.14 the dropped CPU leaves the mask at once */
	struct sim *s = *state;
	assert_false(cpumask_test_cpu(3, &s->mms[0].cpumask));
}

static void test_lazy_cpu_skipped_unless_tables_freed_v7_3(void **state)
{
	check_lazy_cpu_skipped_unless_tables_freed(mk(state, "v7.3", FLUSH_X86_IPI));
	struct sim *s = *state;
	assert_true(cpumask_test_cpu(3, &s->mms[0].cpumask)); /* cleared lazily */
}

static void test_mm_cpumask_cleared_at_switch_before_v6_14(void **state)
{
	struct sim *s = mk(state, "v6.4", FLUSH_X86_IPI);
	struct mm_struct other = { .sim = s, .id = 99 };
	x86_switch_mm_irqs_off(s, 3, &other, 1 * MS);
	assert_false(cpumask_test_cpu(3, &s->mms[0].cpumask));
	assert_true(cpumask_test_cpu(3, &other.cpumask));
}

static void test_trim_removes_cpu_that_stopped_running_the_mm_v7_3(void **state)
{
	struct sim *s = mk(state, "v7.3", FLUSH_X86_IPI);
	struct mm_struct *mm = &s->mms[0], other = { .sim = s, .id = 99 };
	x86_switch_mm_irqs_off(s, 3, &other, 1 * MS);
	assert_true(cpumask_test_cpu(3, &mm->cpumask)); /* stays: v6.14 */
	testsim_enter(s, task_on(s, 0)->idx, 2 * NSEC_PER_SEC);
	mm->next_trim_cpumask = 0;
	flush_tlb_mm_range(mm, 0, PAGE_SIZE, PAGE_SHIFT, false);
	assert_int_equal(testsim_irqs(s, 3), 1); /* the trimming IPI */
	assert_false(cpumask_test_cpu(3, &mm->cpumask));
	/* within the second no trim: a CPU back in the mask is skipped */
	cpumask_set_cpu(3, &mm->cpumask);
	flush_tlb_mm_range(mm, 0, PAGE_SIZE, PAGE_SHIFT, false);
	assert_int_equal(testsim_irqs(s, 3), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_init_first_thread_and_new_thread, testsim_teardown),
		cmocka_unit_test_teardown(test_jiffies_after_matches_the_division, testsim_teardown),
		cmocka_unit_test_teardown(test_update_scan_period_resets_cross_node_move_of_faulted_task,
					  testsim_teardown),
		cmocka_unit_test_teardown(test_update_scan_period_after_a_sweep_respects_preferred_node,
					  testsim_teardown),
		cmocka_unit_test_teardown(test_scan_period_keeps_failed_migrations_without_locality_reset,
					  testsim_teardown),
		cmocka_unit_test_teardown(test_scan_period_slows_down_once_with_locality_reset,
					  testsim_teardown),
		cmocka_unit_test_teardown(test_placement_runs_only_when_numa_scan_seq_changes, testsim_teardown),
		cmocka_unit_test_teardown(test_task_numa_migrate_swaps_when_both_tasks_gain, testsim_teardown),
		cmocka_unit_test_teardown(test_task_numa_migrate_refuses_move_beyond_imbalance_allowance,
					  testsim_teardown),
		cmocka_unit_test_teardown(test_task_numa_compare_prefers_partner_going_home, testsim_teardown),
		cmocka_unit_test_teardown(test_task_numa_compare_search_goes_on_when_task_may_move,
					  testsim_teardown),
		cmocka_unit_test_teardown(test_task_numa_compare_partner_not_going_home_never_displaces_one_that_is,
					  testsim_teardown),
		cmocka_unit_test_teardown(test_migrate_task_to_traces_sched_move_numa, testsim_teardown),
		cmocka_unit_test_teardown(test_task_numa_migrate_swap_traces_sched_swap_numa, testsim_teardown),
		cmocka_unit_test_teardown(test_task_numa_migrate_without_cpu_traces_sched_stick_numa,
					  testsim_teardown),
		cmocka_unit_test_teardown(test_migrate_swap_within_one_cpu_is_refused_untraced, testsim_teardown),
		cmocka_unit_test_teardown(test_wakeup_picks_idle_previous_cpu, testsim_teardown),
		cmocka_unit_test_teardown(test_wakeup_on_busy_previous_cpu_moves_to_idle_llc_sibling,
					  testsim_teardown),
		cmocka_unit_test_teardown(test_balance_keeps_task_whose_faults_are_on_the_source,
					  testsim_teardown),
		cmocka_unit_test_teardown(test_balance_pulls_task_whose_faults_are_on_the_destination,
					  testsim_teardown),
		cmocka_unit_test_teardown(test_balance_equal_fault_weights_before_and_after_v6_14,
					  testsim_teardown),
		cmocka_unit_test_teardown(test_numa_balance_passes_over_runqueue_of_well_placed_tasks,
					  testsim_teardown),
		cmocka_unit_test_teardown(test_numa_balance_takes_from_busiest_when_all_are_well_placed,
					  testsim_teardown),
		cmocka_unit_test_teardown(test_switch_back_to_flushed_mm_from_lazy_flushes, testsim_teardown),
		cmocka_unit_test_teardown(test_switch_back_to_current_mm_from_lazy_does_not_flush,
					  testsim_teardown),
		cmocka_unit_test_teardown(test_lazy_cpu_skipped_unless_tables_freed_v6_4, testsim_teardown),
		cmocka_unit_test_teardown(test_return_to_user_sleeps_before_a_pending_move, testsim_teardown),
		cmocka_unit_test_teardown(test_lazy_cpu_skipped_unless_tables_freed_v7_3, testsim_teardown),
		cmocka_unit_test_teardown(test_mm_cpumask_cleared_at_switch_before_v6_14, testsim_teardown),
		cmocka_unit_test_teardown(test_trim_removes_cpu_that_stopped_running_the_mm_v7_3,
					  testsim_teardown),
	};
	return cmocka_run_group_tests_name("sched", tests, NULL, NULL);
}
