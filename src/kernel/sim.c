/* The simulated system's set-up, event loop and per-second series.  The
 * loop pops the engine's timers and hands each to its owner: a task's tick
 * or kernel step (kernel/sched/), a touch group (kernel/sched/user.c), the
 * accounting. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernel/sched/sched.h"
#include "kernel/sim.h"
#include "kernel/smp.h"
#include "workload/tlb_reuse.h"
#include "sim/bigalloc.h"
#include "linux/mm.h"
#include "linux/tlb_oracle.h"
#include "linux/compaction.h"
#include "linux/vmscan.h"
#include "linux/mm.h"
#include "linux/migrate.h"
#include "linux/sched/numa_balancing.h"

int nr_cpu_words = CPUMASK_WORDS;

/* Accounting interval for throughput and the workload's rates. */
#define ACCOUNT_NS (10 * NSEC_PER_MSEC)

/* ---- the per-second series ---------------------------------------------- */

const char *const ts_counter_names[NR_TS_COUNTERS] = {
	[TS_TLB_IRQS] = "tlb_irqs_per_s",
	[TS_MIGRATIONS] = "migrations_per_s",
	[TS_PTE_UPDATES] = "pte_updates_per_s",
	[TS_HINT_FAULTS] = "hint_faults_per_s",
	[TS_HINT_FAULTS_LOCAL] = "hint_faults_local_per_s",
	[TS_NODE_MOVES] = "task_node_moves_per_s",
	[TS_OPS] = "ops_per_s",
};

const char *const tier_series_names[NR_TIER_SERIES] = {
	[TIER_PROMOTED] = "promoted_per_s",
	[TIER_DEMOTED] = "demoted_per_s",
	[TIER_CANDIDATES] = "promote_candidates_per_s",
	[TIER_TOP_GIB] = "top_tier_gib",
	[TIER_SLOW_GIB] = "slow_tier_gib",
	[TIER_TOP_TOUCHES] = "top_tier_touch_share",
	[TIER_THRESHOLD_MS] = "hot_threshold_ms",
};

static int timeseries_init(struct sim *s)
{
	struct timeseries *ts = calloc(1, sizeof(*ts));
	if (!ts)
		return -1;
	s->ts = ts;
	ts->n = (int)((s->duration_ns + NSEC_PER_SEC - 1) / NSEC_PER_SEC);
	for (int c = 0; c < NR_TS_COUNTERS; c++)
		if (!(ts->count[c] = calloc((size_t)ts->n + 1, sizeof(double))))
			return -1;
	for (int c = 0; s->tiers.has_slow_tier && c < NR_TIER_SERIES; c++)
		if (!(ts->tier[c] = calloc((size_t)ts->n + 1, sizeof(double))))
			return -1;
	if (!(ts->pass_ms = calloc((size_t)ts->n + 1, sizeof(double))) ||
	    !(ts->scan_period_ms = calloc((size_t)ts->n + 1, sizeof(double))))
		return -1;
	ts->mm_stride = (size_t)ts->n + 1; /* n shrinks to the seconds run (timeseries_finish) */
	size_t cells = (size_t)s->nr_mms * ts->mm_stride;
	ts->nr_mms = s->nr_mms;
	if (!(ts->faults = calloc(cells ? cells : 1, sizeof(double))) ||
	    !(ts->faults_local = calloc(cells ? cells : 1, sizeof(double))) ||
	    !(ts->faults_ended = calloc(cells ? cells : 1, sizeof(double))) ||
	    !(ts->faults_ended_local = calloc(cells ? cells : 1, sizeof(double))) ||
	    !(ts->mem_share = calloc(cells ? cells : 1, sizeof(double))) ||
	    !(ts->mm_last = calloc((size_t)s->nr_mms * 4 + 1, sizeof(uint64_t))) ||
	    !(ts->task_nodes = calloc((cells ? cells : 1) * (size_t)s->m.nr_nodes, sizeof(uint16_t))) ||
	    !(ts->mm_sum = calloc((size_t)s->nr_mms + 1, sizeof(double))) ||
	    !(ts->mm_live = calloc((size_t)s->nr_mms + 1, sizeof(int))))
		return -1;
	return 0;
}

static void timeseries_free(struct timeseries *ts)
{
	if (!ts)
		return;
	for (int c = 0; c < NR_TS_COUNTERS; c++)
		free(ts->count[c]);
	for (int c = 0; c < NR_TIER_SERIES; c++)
		free(ts->tier[c]);
	free(ts->pass_ms);
	free(ts->scan_period_ms);
	free(ts->faults);
	free(ts->faults_local);
	free(ts->faults_ended);
	free(ts->faults_ended_local);
	free(ts->mem_share);
	free(ts->mm_last);
	free(ts->task_nodes);
	free(ts->mm_sum);
	free(ts->mm_live);
	free(ts);
}

void sim_pass_done(struct sim *s, double ns, unsigned period_ms)
{
	struct timeseries *ts = s->ts;
	ts->pass_sum += ns;
	ts->pass_n++;
	if (ts->cur < ts->n)
		ts->scan_period_ms[ts->cur] = period_ms;
}

static double ts_cumulative(const struct sim *s, enum ts_counter c)
{
	double v = 0;
	switch (c) {
	case TS_TLB_IRQS:
		for (int cpu = 0; cpu < s->m.nr_cpus; cpu++)
			v += (double)s->cpus[cpu].irq_tlb_count;
		return v;
	case TS_MIGRATIONS:
		return (double)vm_event_sum(s, NUMA_PAGE_MIGRATE);
	case TS_PTE_UPDATES:
		return (double)vm_event_sum(s, NUMA_PTE_UPDATES);
	case TS_HINT_FAULTS:
		return (double)vm_event_sum(s, NUMA_HINT_FAULTS);
	case TS_HINT_FAULTS_LOCAL:
		return (double)vm_event_sum(s, NUMA_HINT_FAULTS_LOCAL);
	case TS_NODE_MOVES:
		return (double)s->st.task_node_moves;
	default:
		for (int i = 0; i < s->nr_tasks; i++)
			v += s->tasks[i].ops;
		return v;
	}
}

/* The tiering series' second @sec (machines with a slow tier). */
static void timeseries_tier_close(struct sim *s, int sec)
{
	struct timeseries *ts = s->ts;
	uint64_t now[3] = { 0, 0, 0 };
	double top = 0, slow = 0, th = 0;
	for (int n = 0; n < s->m.nr_nodes; n++) {
		const struct pglist_data *pg = &s->pgdat[n];
		now[0] += pg->stat[PGPROMOTE_SUCCESS];
		now[1] += pg->stat[PGDEMOTE_KSWAPD] + pg->stat[PGDEMOTE_DIRECT];
		now[2] += pg->stat[PGPROMOTE_CANDIDATE];
		double used = (double)(machine_node_pages(&s->m, n) - s->node_free_pages[n]) / (1 << 18);
		*(node_is_toptier(s, n) ? &top : &slow) += used;
		double t = pg->nbp_threshold ? pg->nbp_threshold : s->t.hot_threshold_ms;
		if (node_is_toptier(s, n) && t > th)
			th = t;
	}
	for (int c = 0; c < 3; c++) {
		ts->tier[c][sec] = (double)(now[c] - ts->tier_last[c]);
		ts->tier_last[c] = now[c];
	}
	ts->tier[TIER_TOP_GIB][sec] = top;
	ts->tier[TIER_SLOW_GIB][sec] = slow;
	ts->tier[TIER_TOP_TOUCHES][sec] = workload_toptier_touch_share(s);
	ts->tier[TIER_THRESHOLD_MS][sec] = th;
}

/* The convergence series' second @sec: each process's hint faults and
 * local ones in it and, at its end, where its tasks still at work are and
 * their mean local touch share (workload_task_local_share). */
static void timeseries_mm_close(struct sim *s, int sec)
{
	struct timeseries *ts = s->ts;
	double *sum = ts->mm_sum;
	int *live = ts->mm_live;
	for (int m = 0; m < ts->nr_mms; m++) {
		const struct mm_struct *mm = &s->mms[m];
		size_t at = ts_mm_at(ts, m, sec);
		uint64_t *last = &ts->mm_last[4 * m];
		ts->faults[at] = (double)(mm->hint_faults - last[0]);
		ts->faults_local[at] = (double)(mm->hint_faults_local - last[1]);
		ts->faults_ended_local[at] = (double)(mm->hint_faults_ended_local - last[2]);
		ts->faults_ended[at] = (double)(mm->hint_faults_ended - last[3]);
		last[0] = mm->hint_faults;
		last[1] = mm->hint_faults_local;
		last[2] = mm->hint_faults_ended_local;
		last[3] = mm->hint_faults_ended;
		sum[m] = 0;
		live[m] = 0;
	}
	for (int i = 0; i < s->nr_tasks; i++) {
		const struct task_struct *t = &s->tasks[i];
		if (t->syscall_caller || t->done)
			continue;
		int node = s->cpus[t->cpu].node;
		ts->task_nodes[ts_mm_nodes_at(ts, t->mm->id, sec, s->m.nr_nodes) + (size_t)node]++;
		double l = workload_task_local_share(s, t);
		if (l >= 0) {
			sum[t->mm->id] += l;
			live[t->mm->id]++;
		}
	}
	for (int m = 0; m < ts->nr_mms; m++)
		ts->mem_share[ts_mm_at(ts, m, sec)] = live[m] ? sum[m] / live[m] : -1;
}

/* Close the seconds that ended by @now (called after each accounting). */
static void timeseries_tick(struct sim *s, uint64_t now)
{
	struct timeseries *ts = s->ts;
	while (ts->cur < ts->n && now >= (uint64_t)(ts->cur + 1) * NSEC_PER_SEC) {
		for (int c = 0; c < NR_TS_COUNTERS; c++) {
			double v = ts_cumulative(s, (enum ts_counter)c);
			ts->count[c][ts->cur] = v - ts->last[c];
			ts->last[c] = v;
		}
		ts->pass_ms[ts->cur] = ts->pass_n ? ts->pass_sum / ts->pass_n / 1e6 : 0;
		timeseries_mm_close(s, ts->cur);
		if (ts->tier[0])
			timeseries_tier_close(s, ts->cur);
		if (ts->cur + 1 < ts->n)
			ts->scan_period_ms[ts->cur + 1] = ts->scan_period_ms[ts->cur];
		ts->pass_sum = 0;
		ts->pass_n = 0;
		ts->cur++;
	}
}

/* The run ended at @end: close the seconds up to it, the last one partial,
 * and keep only those. */
static void timeseries_finish(struct sim *s, uint64_t end)
{
	struct timeseries *ts = s->ts;
	timeseries_tick(s, end);
	if (ts->cur < ts->n && end > (uint64_t)ts->cur * NSEC_PER_SEC) {
		for (int c = 0; c < NR_TS_COUNTERS; c++)
			ts->count[c][ts->cur] = ts_cumulative(s, (enum ts_counter)c) - ts->last[c];
		ts->pass_ms[ts->cur] = ts->pass_n ? ts->pass_sum / ts->pass_n / 1e6 : 0;
		timeseries_mm_close(s, ts->cur);
		if (ts->tier[0])
			timeseries_tier_close(s, ts->cur);
		ts->cur++;
	}
	ts->n = ts->cur;
}

/* ---- set-up ------------------------------------------------------------- */

static int setup_tasks(struct sim *s)
{
	const struct workload_params *p = &s->w.p;
	s->nr_mms = p->processes;
	s->nr_tasks = p->processes * p->threads + (p->migrate_call != MCALL_NONE);
	s->mms = calloc((size_t)s->nr_mms, sizeof(struct mm_struct));
	s->tasks = zalloc_aligned64((size_t)s->nr_tasks, sizeof(struct task_struct));
	s->mctx_pool = big_zalloc_sparse((size_t)s->nr_tasks * sizeof(struct migrate_ctx));
	if (!s->mms || !s->tasks || !s->mctx_pool)
		return -1;
	for (int i = 0; i < s->nr_mms; i++) {
		s->mms[i].sim = s;
		s->mms[i].id = i;
		s->mms[i].nr_threads = (uint64_t)p->threads;
		if (!p->main_thread_works) {
			/* the sleeping main thread still counts as a user and a thread */
			s->mms[i].mm_users = 1;
			s->mms[i].nr_threads++;
		}
	}
	if (p->migrate_call != MCALL_NONE) {
		/* the process that makes the calls (numactl's migratepages): one
		 * thread, no memory of its own */
		struct task_struct *t = &s->tasks[s->nr_tasks - 1];
		s->caller_mm = calloc(1, sizeof(*s->caller_mm));
		if (!s->caller_mm)
			return -1;
		s->caller_mm->sim = s;
		s->caller_mm->id = s->nr_mms;
		s->caller_mm->mm_users = s->caller_mm->nr_threads = 1;
		t->idx = s->nr_tasks - 1;
		t->pid = t->tgid = 900;
		t->mm = s->caller_mm;
		t->syscall_caller = true;
		t->numa_preferred_nid = NUMA_NO_NODE;
	}
	for (int i = 0; i < s->nr_tasks - (p->migrate_call != MCALL_NONE); i++) {
		struct task_struct *t = &s->tasks[i];
		int proc = i / p->threads, th = i % p->threads;
		t->idx = i;
		t->tgid = 1000 + proc * (p->threads + 16);
		/* with a sleeping main thread (pid == tgid, not simulated) the
		 * workers are its threads tgid+1.. */
		t->pid = t->tgid + th + (p->main_thread_works ? 0 : 1);
		t->mm = &s->mms[proc];
		t->numa_preferred_nid = NUMA_NO_NODE;
		t->mm->mm_users++;
	}
	return 0;
}

/* Record a migration call (the calls a run makes follow from how long each
 * takes, not from the schedule: the array grows with them).  Out of memory
 * stops the run, which then fails. */
void sim_record_call(struct sim *s, const struct call_record *r)
{
	if (s->nr_calls == s->max_calls) {
		int cap = s->max_calls > INT_MAX / 2 ? 0 : s->max_calls ? 2 * s->max_calls : 16;
		struct call_record *c = cap ? realloc(s->calls, (size_t)cap * sizeof(*c)) : NULL;
		if (!c) {
			s->calls_oom = s->stop = true;
			return;
		}
		s->calls = c;
		s->max_calls = cap;
	}
	s->calls[s->nr_calls++] = *r;
}

/* What a full flush costs a thread of the workload: the entries it
 * reuses (workload/tlb_reuse.h), from the first process's layout (every
 * process has the same), with the share of its memory mapped by PMDs. */
static int tlb_refill_init(struct sim *s)
{
	uint64_t huge = s->w.pmd_tables, all = 0; /* counted by set-up (populate_vma) */
	const struct mm_struct *mm = &s->mms[0];
	for (int v = 0; v < mm->nr_vmas; v++)
		all += mm->vmas[v].nr_tables;
	double r = workload_tlb_reuse(&s->w.p, s->w.slice_pages, s->w.shared_pages,
				      all ? (double)huge / (double)all : 0, s->m.tlb_entries);
	if (r < 0)
		return -1;
	s->tlb_reuse_entries = r;
	s->tlb_refill_ns = r * s->m.cost.page_walk_ns;
	return 0;
}

/* Each socket's CPUs, and the IPI rounds in flight (kernel/smp.h). */
static int smp_init(struct sim *s)
{
	s->socket_cpus = calloc((size_t)s->m.nr_sockets, sizeof(struct cpumask));
	if (!s->socket_cpus || smp_inflight_init(&s->ipi_rounds, s->m.nr_cpus))
		return -1;
	for (int c = 0; c < s->m.nr_cpus; c++)
		cpumask_set_cpu(c, &s->socket_cpus[machine_node_socket(&s->m, s->cpus[c].node)]);
	return 0;
}

int sim_init(struct sim *s, char *err, size_t errlen)
{
	s->tick = NSEC_PER_SEC / (uint64_t)s->m.hz; /* hz divides 1e9 (scenario.c) */
	if (nr_cpu_words != (s->m.nr_cpus + 63) / 64) /* same value for every run of a machine: no race */
		nr_cpu_words = (s->m.nr_cpus + 63) / 64;
	/* 64-byte aligned: see struct cpu_state */
	s->cpus = zalloc_aligned64((size_t)s->m.nr_cpus, sizeof(struct cpu_state));
	s->node_free_pages = calloc((size_t)s->m.nr_nodes, sizeof(uint64_t));
	s->pgdat = calloc((size_t)s->m.nr_nodes, sizeof(struct pglist_data));
	s->node_numa = calloc((size_t)s->m.nr_nodes * NR_NUMA_STAT_ITEMS, sizeof(uint64_t));
	if (!s->cpus || !s->node_free_pages || !s->pgdat || !s->node_numa)
		goto oom;
	for (int c = 0; c < s->m.nr_cpus; c++)
		s->cpus[c].node = machine_cpu_node(&s->m, c);
	memory_tiers_init(&s->m, &s->tiers);
	for (int n = 0; n < s->m.nr_nodes; n++)
		if (memtier_node_is_toptier(&s->tiers, n))
			s->toptier_mask |= 1ull << n;
	for (int n = 0; n < s->m.nr_nodes; n++)
		s->node_free_pages[n] = machine_node_pages(&s->m, n);
	/* a memory eater: a process that only holds memory on one node */
	if (s->w.p.eat_gib > 0 && s->w.p.eat_node >= 0 && s->w.p.eat_node < s->m.nr_nodes) {
		uint64_t eat = (uint64_t)(s->w.p.eat_gib * (double)(1ull << (30 - PAGE_SHIFT)));
		uint64_t *free = &s->node_free_pages[s->w.p.eat_node];
		s->pgdat[s->w.p.eat_node].held_pages = eat < *free ? eat : *free;
		*free = eat < *free ? *free - eat : 0;
	}
	pgdat_init(s); /* the free blocks of what is left */
	s->node_run_ns = calloc((size_t)s->m.nr_nodes, sizeof(double));
	if (!s->node_run_ns || setup_tasks(s) || sched_init(s))
		goto oom;
	s->task_node_run_ns = calloc((size_t)s->nr_tasks * (size_t)s->m.nr_nodes, sizeof(double));
	if (!s->task_node_run_ns)
		goto oom;
	sched_place_tasks(s);
	/* timer ids: per task (tick, activity, slice touches), per process
	 * (shared-region touches), accounting, end, then the scheduler's:
	 * per task (sleep/wake), per CPU (slice end), per balancer */
	s->timer_account = 3u * (uint32_t)s->nr_tasks + (uint32_t)s->nr_mms;
	s->timer_end = s->timer_account + 1;
	s->sched->timer_sleep = s->timer_end + 1;
	s->sched->timer_resched = s->sched->timer_sleep + (uint32_t)s->nr_tasks;
	s->sched->timer_bal = s->sched->timer_resched + (uint32_t)s->m.nr_cpus;
	/* then the madvise callers' (none unless asked), kswapd's (on a
	 * machine with a slow tier), then compaction's */
	const uint32_t madvise_first = s->sched->timer_bal + (uint32_t)s->sched->nr_bal;
	s->nr_timers = madvise_first + madvise_nr_timers(s) + vmscan_nr_timers(s) +
		       compaction_nr_timers(s);
	if (engine_init(&s->e, s->m.nr_cpus, s->nr_timers, s->duration_ns) || compaction_init(s) ||
	    madvise_init(s, madvise_first) ||
	    vmscan_init(s, madvise_first + madvise_nr_timers(s)))
		goto oom;
	if (workload_build(s, err, errlen))
		goto fail;
	s->table_vma = malloc(sizeof(*s->table_vma) * (s->nr_tables ? s->nr_tables : 1));
	if (!s->table_vma)
		goto oom;
	for (int i = 0; i < s->nr_mms; i++)
		for (int v = 0; v < s->mms[i].nr_vmas; v++) {
			struct vm_area_struct *vma = &s->mms[i].vmas[v];
			for (uint32_t k = 0; k < vma->nr_tables; k++)
				s->table_vma[vma->first_table_id + k] = vma;
		}
	if (timeseries_init(s))
		goto oom;
	if (workload_start(s) || tlb_refill_init(s) || smp_init(s))
		goto oom;
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
fail:
	sim_free(s);
	return -1;
}

void sim_free(struct sim *s)
{
	oracle_free(s);
	if (s->mms)
		workload_free(s);
	s->mms = NULL;
	s->stores = NULL;
	s->nr_mms = s->nr_stores = 0;
	for (int i = 0; s->tasks && i < s->nr_tasks; i++) {
		struct task_struct *t = &s->tasks[i];
		free(t->numa_faults);
		tlb_ubc_free(&t->tlb_ubc);
		migrate_call_free(t->call);
		if (t->numa_group && --t->numa_group->refcount == 0)
			free(t->numa_group);
	}
	big_free(s->mctx_pool, (size_t)s->nr_tasks * sizeof(struct migrate_ctx));
	s->mctx_pool = NULL;
	free(s->tasks);
	free(s->cpus);
	free(s->node_free_pages);
	free(s->node_numa);
	free(s->pgdat);
	compaction_free_state(s);
	madvise_free(s);
	vmscan_free(s);
	free(s->table_vma);
	engine_free(&s->e);
	sched_free(s);
	free(s->node_run_ns);
	free(s->caller_mm);
	free(s->calls);
	free(s->task_node_run_ns);
	free(s->socket_cpus);
	s->socket_cpus = NULL;
	smp_inflight_free(&s->ipi_rounds);
	timeseries_free(s->ts);
	s->tasks = NULL;
	s->cpus = NULL;
	s->node_free_pages = NULL;
	s->node_numa = NULL;
	s->pgdat = NULL;
	s->table_vma = NULL;
	s->node_run_ns = NULL;
	s->caller_mm = NULL;
	s->calls = NULL;
	s->task_node_run_ns = NULL;
	s->ts = NULL;
	s->nr_tasks = 0;
}

static double wall_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void progress(struct sim *s, uint64_t now, double started, double *last)
{
	double w = wall_seconds();
	if (w - *last < 0.5)
		return;
	*last = w;
	if (w - started > 1.0)
		fprintf(s->progress_out, "\r  %.1f / %.1f simulated s (%.0f%%), %.1f s wall ",
			(double)now / 1e9, (double)s->duration_ns / 1e9,
			100.0 * (double)now / (double)s->duration_ns, w - started);
}

void sim_start(struct sim *s)
{
	/* the round ledger changes no result, only the time taken: off, every
	 * round handles every receiver itself (tests/e2e/ledger.sh compares) */
	const char *ledger = getenv("NUMASIM_LEDGER");
	s->no_ledger = ledger && *ledger == '0';
	for (int i = 0; i < s->nr_mms; i++) {
		sim_enter(s, NULL, 0);
		init_numa_balancing_mm(s, &s->mms[i]); /* also when main sleeps */
		for (int t = 0; t < s->nr_tasks; t++)
			if (s->tasks[t].mm == &s->mms[i]) /* the main thread starts the mm */
				init_numa_balancing(s, &s->tasks[t], s->tasks[t].pid == s->tasks[t].tgid);
	}
	sched_start(s);
	timerq_set(&s->e.q, s->timer_account, ACCOUNT_NS);
	timerq_set(&s->e.q, s->timer_end, s->duration_ns);
	if (mm_debug_enabled(s, &s->debug))
		mm_debug_start(s);
	compaction_start(s);
	madvise_start(s);
}

int sim_run(struct sim *s)
{
	sim_start(s);
	double started = wall_seconds(), last = started;
	uint64_t now = 0;
	/* the last timer ids: compaction's, and madvise's before them (their
	 * numbers are the configuration's, fixed for the run) */
	const uint32_t compaction_first = s->nr_timers - compaction_nr_timers(s);
	const uint32_t vmscan_first = compaction_first - vmscan_nr_timers(s);
	const uint32_t madvise_first = vmscan_first - madvise_nr_timers(s);
	/* the tasks' timers come first (tick, step, slice touch): nearly
	 * every event is one of them, so they are told apart first */
	const uint32_t task_timers = 3u * (uint32_t)s->nr_tasks;
	while (!timerq_empty(&s->e.q) && !s->stop) {
		uint32_t id = timerq_pop(&s->e.q, &now);
		s->st.events++;
		if (id < task_timers) {
			uint32_t idx = id / 3; /* the task's; its slice's touch group */
			switch (id - 3 * idx) {
			case 0: sched_tick(s, &s->tasks[idx], now); break;
			case 1: task_step(s, &s->tasks[idx], now); break;
			default: user_touch(s, idx, now); break;
			}
			continue;
		}
		if (id == s->timer_end)
			break;
		if (id == s->timer_account) {
			if (s->w.touch.nr_bulk) /* CPU time and counters, before they are read */
				user_touch_bulk_all(s, NULL, now, false);
			flush_ledger_settle_all(s); /* the receivers' state, before it is read */
			workload_account(s, now);
			if (s->w.touch.nr_bulk)
				user_touch_bulk_recheck(s, now);
			workload_phase(s, now);
			if (s->w.p.work_mops > 0 && sched_exit_done(s, now)) {
				timeseries_tick(s, now);
				s->end_ns = now;
				break; /* every thread's work is done */
			}
			timeseries_tick(s, now);
			timerq_set(&s->e.q, id, now + ACCOUNT_NS);
			if (mm_debug_enabled(s, &s->debug))
				mm_debug_tick(s, now);
			if (s->progress)
				progress(s, now, started, &last);
		} else if (id >= compaction_first) {
			compaction_timer(s, id, now);
		} else if (id >= vmscan_first) {
			vmscan_timer(s, id, now);
		} else if (id >= madvise_first) {
			madvise_timer(s, id, now);
		} else if (id > s->timer_end) {
			sched_timer(s, id, now);
		} else {
			user_touch(s, (uint32_t)s->nr_tasks + (id - task_timers), now); /* a shared region's */
		}
	}
	if (!s->end_ns)
		s->end_ns = s->duration_ns;
	user_touch_bulk_all(s, NULL, s->end_ns, true); /* the faults drawn in bulk, to the end */
	flush_ledger_settle_all(s);
	if (mm_debug_enabled(s, &s->debug) && !s->stop)
		mm_debug_final(s);
	workload_account(s, s->end_ns);
	timeseries_finish(s, s->end_ns);
	for (int i = 0; i < s->nr_tasks; i++) {
		struct task_struct *p = &s->tasks[i];
		s->w.total_ops += p->ops;
		if (p->call && p->act != ACT_USER) { /* a call in flight */
			sim_record_call(s, &(struct call_record){
				.start_ns = p->call->started, .end_ns = s->end_ns, .from = p->call->from,
				.to = p->call->to, .moved = p->call->moved, .failed = p->call->failed,
				.hint_fails = p->call->hint_fails, .unfinished = true,
			});
			migrate_call_putback(s, p->call); /* what it had not batched yet */
		}
		if (p->state == TASK_ON_CPU) { /* the CPU time of the last stretch */
			double ns = s->end_ns > p->exec_start ? (double)(s->end_ns - p->exec_start) : 0;
			s->node_run_ns[s->cpus[p->cpu].node] += ns;
			s->task_node_run_ns[(size_t)i * (size_t)s->m.nr_nodes +
					    (size_t)s->cpus[p->cpu].node] += ns;
		}
	}
	if (s->calls_oom)
		return -1;
	if (s->progress && wall_seconds() - started > 1.0)
		fprintf(s->progress_out, "\r%60s\r", "");
	const char *check = getenv("NUMASIM_CHECK");
	if (check && *check && *check != '0') {
		char err[256];
		if (!mm_check_invariants(s, err, sizeof(err))) {
			fprintf(stderr, "numasim: NUMASIM_CHECK: invariant broken at the end of the run: %s\n", err);
			exit(3);
		}
	}
	return 0;
}
