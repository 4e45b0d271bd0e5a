/* The event loop and the threads' activities: user work, the scanner
 * (task_numa_work, a PTE table per step), hint faults and the migrations
 * they start.  Each event runs a kernel path "on" a CPU; what it charges
 * sets when that CPU's thread is next free (see sim.h). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "linux/migrate.h"
#include "linux/mm.h"
#include "linux/sched/numa_balancing.h"
#include "sim/sim.h"

int nr_cpu_words = CPUMASK_WORDS;

const char *const cost_cause_names[NR_COST_CAUSES] = {
	[COST_SCAN] = "scan",
	[COST_HINT_FAULT] = "hint_fault",
	[COST_MIGRATE] = "migrate",
	[COST_MIGRATE_COPY] = "migrate_copy",
	[COST_FLUSH_LOCAL] = "flush_local",
	[COST_FLUSH_WAIT] = "flush_initiate_wait",
	[COST_IPI_HANDLE] = "ipi_handle",
	[COST_TLB_REFILL] = "tlb_refill",
	[COST_LOCK_WAIT] = "lock_wait",
};

/* Accounting interval for throughput and the workload's rates. */
#define ACCOUNT_NS (10 * NSEC_PER_MSEC)



/* ---- helpers shared with the kernel paths ------------------------------- */

struct vm_area_struct *find_vma(struct mm_struct *mm, uint64_t addr)
{
	int lo = 0, hi = mm->nr_vmas - 1;
	while (lo <= hi) {
		int mid = (lo + hi) / 2;
		struct vm_area_struct *v = &mm->vmas[mid];
		if (addr < v->vm_start)
			hi = mid - 1;
		else if (addr >= v->vm_end)
			lo = mid + 1;
		else
			return v;
	}
	return NULL;
}

struct pte_table *pte_table_of(struct vm_area_struct *vma, uint64_t addr)
{
	return &vma->tables[(addr - vma->vm_start) >> PMD_SHIFT];
}

void set_pte_at(struct mm_struct *mm, uint64_t addr, pte_t *ptep, pte_t val)
{
	pte_t old = *ptep;
	*ptep = val;
	bool was = pte_protnone(old), is = pte_protnone(val);
	if (was == is)
		return;
	struct vm_area_struct *vma = find_vma(mm, addr);
	struct pte_table *t = pte_table_of(vma, addr);
	unsigned bit = (unsigned)(pte_index(vma, addr) & (PTRS_PER_PTE - 1));
	bool hot = (old | val) & PTE_SIM_HOT;
	uint64_t *map = hot ? t->protnone_hot : t->protnone_cold;
	uint16_t *count = hot ? &t->nr_protnone_hot : &t->nr_protnone_cold;
	if (is) {
		map[bit / 64] |= 1ull << (bit % 64);
		(*count)++;
	} else {
		map[bit / 64] &= ~(1ull << (bit % 64));
		(*count)--;
	}
	workload_count_protnone(mm->sim, vma, t, hot, is ? 1 : -1);
}

void steal(struct sim *s, int cpu, enum cost_cause c, double ns)
{
	struct cpu_state *cs = &s->cpus[cpu];
	cs->cost[c] += ns;
	cs->busy_ns += ns;
	/* refill walks are the thread's own memory touches, just slower: they
	 * cost throughput but do not stop it touching pages */
	if (c == COST_TLB_REFILL)
		return;
	cs->stolen_ns += ns;
	if (cs->curr && cpu != s->cpu)
		steal_delay(s, cs->curr, ns, sim_now(s));
}

void steal_delay(struct sim *s, struct task_struct *t, double ns, uint64_t now)
{
	if (t == s->current)
		return; /* the initiator's own path: charged, not stolen */
	if (t->act == ACT_USER) {
		/* a fault with no timer: push its end */
		if (t->busy_until > now)
			t->busy_until += (uint64_t)ns;
		return;
	}
	uint32_t id = act_timer_id(s, t->idx);
	if (timerq_armed(&s->q, id))
		timerq_set(&s->q, id, s->q.when[id] + (uint64_t)ns);
}

uint64_t task_busy_end(const struct sim *s, const struct task_struct *p, uint64_t now)
{
	if (p->act != ACT_USER) {
		if (s->current == p)
			return sim_now(s) > now ? sim_now(s) : now; /* running this step */
		uint32_t id = act_timer_id(s, p->idx);
		return timerq_armed(&s->q, id) ? s->q.when[id] : now;
	}
	return p->busy_until > now ? p->busy_until : 0;
}

/* ---- the per-second series ---------------------------------------------- */

static int timeseries_init(struct sim *s)
{
	struct timeseries *ts = calloc(1, sizeof(*ts));
	if (!ts)
		return -1;
	s->ts = ts;
	ts->n = (int)((s->duration_ns + NSEC_PER_SEC - 1) / NSEC_PER_SEC);
	double **cols[] = { &ts->tlb_irqs, &ts->migrations, &ts->pass_ms, &ts->scan_period_ms,
			    &ts->pte_updates };
	for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
		if (!(*cols[i] = calloc((size_t)ts->n + 1, sizeof(double))))
			return -1;
	return 0;
}

static void timeseries_free(struct timeseries *ts)
{
	if (!ts)
		return;
	free(ts->tlb_irqs);
	free(ts->migrations);
	free(ts->pass_ms);
	free(ts->scan_period_ms);
	free(ts->pte_updates);
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

/* Close the seconds that ended by @now. */
static void timeseries_tick(struct sim *s, uint64_t now)
{
	struct timeseries *ts = s->ts;
	while (ts->cur < ts->n && now >= (uint64_t)(ts->cur + 1) * NSEC_PER_SEC) {
		uint64_t irqs = 0;
		for (int c = 0; c < s->m.nr_cpus; c++)
			irqs += s->cpus[c].irq_tlb_count;
		uint64_t migrated = vm_event_sum(s, NUMA_PAGE_MIGRATE);
		uint64_t ptes = vm_event_sum(s, NUMA_PTE_UPDATES);
		ts->tlb_irqs[ts->cur] = (double)(irqs - ts->last_irqs);
		ts->migrations[ts->cur] = (double)(migrated - ts->last_migrated);
		ts->pte_updates[ts->cur] = (double)(ptes - ts->last_ptes);
		ts->pass_ms[ts->cur] = ts->pass_n ? ts->pass_sum / ts->pass_n / 1e6 : 0;
		if (ts->cur + 1 < ts->n)
			ts->scan_period_ms[ts->cur + 1] = ts->scan_period_ms[ts->cur];
		ts->last_irqs = irqs;
		ts->last_migrated = migrated;
		ts->last_ptes = ptes;
		ts->pass_sum = 0;
		ts->pass_n = 0;
		ts->cur++;
	}
}

/* ---- set-up ------------------------------------------------------------- */

static int setup_tasks(struct sim *s)
{
	const struct workload_params *p = &s->w.p;
	s->nr_mms = p->processes;
	s->nr_tasks = p->processes * p->threads;
	s->mms = calloc((size_t)s->nr_mms, sizeof(struct mm_struct));
	s->tasks = calloc((size_t)s->nr_tasks, sizeof(struct task_struct));
	if (!s->mms || !s->tasks)
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
	for (int i = 0; i < s->nr_tasks; i++) {
		struct task_struct *t = &s->tasks[i];
		int proc = i / p->threads, th = i % p->threads;
		t->idx = i;
		t->tgid = 1000 + proc * (p->threads + 16);
		/* with a sleeping main thread (pid == tgid, not simulated) the
		 * workers are its threads tgid+1.. */
		t->pid = t->tgid + th + (p->main_thread_works ? 0 : 1);
		/* spread the threads evenly over the CPUs (and so the nodes) */
		t->cpu = (int)((int64_t)i * s->m.nr_cpus / s->nr_tasks);
		t->mm = &s->mms[proc];
		t->numa_preferred_nid = NUMA_NO_NODE;
		struct cpu_state *c = &s->cpus[t->cpu];
		c->curr = t;
		c->loaded_mm = t->mm;
		cpumask_set_cpu(t->cpu, &t->mm->cpumask);
		t->mm->mm_users++;
	}
	return 0;
}

int sim_init(struct sim *s, char *err, size_t errlen)
{
	if (nr_cpu_words != (s->m.nr_cpus + 63) / 64) /* same value for every run of a machine: no race */
		nr_cpu_words = (s->m.nr_cpus + 63) / 64;
	s->cpus = calloc((size_t)s->m.nr_cpus, sizeof(struct cpu_state));
	s->node_free_pages = calloc((size_t)s->m.nr_nodes, sizeof(uint64_t));
	if (!s->cpus || !s->node_free_pages)
		goto oom;
	for (int c = 0; c < s->m.nr_cpus; c++)
		s->cpus[c].node = machine_cpu_node(&s->m, c);
	for (int n = 0; n < s->m.nr_nodes; n++)
		s->node_free_pages[n] = s->m.mem_per_node_mib << (20 - PAGE_SHIFT);
	if (setup_tasks(s))
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
	s->nr_timers = 3u * (uint32_t)s->nr_tasks + (uint32_t)s->nr_mms + 2;
	s->timer_account = s->nr_timers - 2;
	s->timer_end = s->nr_timers - 1;
	if (timerq_init(&s->q, s->nr_timers) || workload_start(s))
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
	if (s->mms)
		workload_free(s);
	s->mms = NULL;
	s->stores = NULL;
	s->nr_mms = s->nr_stores = 0;
	for (int i = 0; s->tasks && i < s->nr_tasks; i++) {
		struct task_struct *t = &s->tasks[i];
		free(t->numa_faults);
		free(t->mctx);
		if (t->numa_group && --t->numa_group->refcount == 0)
			free(t->numa_group);
	}
	free(s->tasks);
	free(s->cpus);
	free(s->node_free_pages);
	free(s->table_vma);
	s->tasks = NULL;
	s->cpus = NULL;
	s->node_free_pages = NULL;
	s->table_vma = NULL;
	s->nr_tasks = 0;
	timerq_free(&s->q);
	timeseries_free(s->ts);
	trace_free(s->trace);
	s->ts = NULL;
	s->trace = NULL;
}

/* ---- activities ---------------------------------------------------------- */

/* The task's next scheduler-tick check: the first tick at which its CPU
 * time passes node_stamp + numa_scan_period. */
static void schedule_tick(struct sim *s, struct task_struct *p, uint64_t now)
{
	if (!(s->t.numa_balancing & NUMA_BALANCING_NORMAL))
		return;
	uint64_t due = p->start_time + p->node_stamp +
		       (uint64_t)p->numa_scan_period * NSEC_PER_MSEC + 1;
	uint64_t tick = tick_ns(s);
	uint64_t when = (due + tick - 1) / tick * tick;
	if (when <= now)
		when = (now / tick + 1) * tick;
	timerq_set(&s->q, tick_timer_id(s, p->idx), when);
}

static void act_at(struct sim *s, struct task_struct *p, enum task_activity act)
{
	p->act = act;
	timerq_set(&s->q, act_timer_id(s, p->idx), sim_now(s));
}

static void start_numa_work(struct sim *s, struct task_struct *p, uint64_t now)
{
	sim_enter(s, p, now);
	if (task_numa_work(s, p)) {
		p->act = ACT_SCAN;
		bool more = task_numa_work_step(s, p);
		act_at(s, p, more ? ACT_SCAN : ACT_RETURN);
	}
	schedule_tick(s, p, now);
}

void sim_start_hint_fault(struct sim *s, struct task_struct *p, struct vm_area_struct *vma,
			  uint64_t addr, uint64_t now)
{
	struct vm_fault vmf = { .vma = vma, .address = addr,
				.orig_pte = vma->ptes[pte_index(vma, addr)] };
	sim_enter(s, p, now);
	p->act = ACT_FAULT;
	p->fault.overlapped_pass = p->mm->scan_pass_running;
	if (do_numa_page(&vmf)) {
		/* migrate_misplaced_folio -> migrate_pages: isolate, allocate,
		 * lock, anon_vma; the unmap follows after that time */
		charge(s, COST_MIGRATE, s->m.cost.migrate_setup_ns);
		p->fault.overlapped_pass |= p->mm->scan_pass_running;
		act_at(s, p, ACT_MIGRATE_UNMAP);
	} else if (p->numa_work_queued) {
		act_at(s, p, ACT_RETURN); /* task_work runs on the way out */
	} else {
		/* nothing happens on the way out: no event, just busy until then */
		p->act = ACT_USER;
		p->busy_until = sim_now(s);
	}
}

/* The bpftrace figures of the patch series (docs/calibration.md) at the
 * moment try_to_migrate_one runs. */
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

static void run_activity(struct sim *s, struct task_struct *p, uint64_t now)
{
	sim_enter(s, p, now);
	switch ((int)p->act) {
	case ACT_SCAN:
		act_at(s, p, task_numa_work_step(s, p) ? ACT_SCAN : ACT_RETURN);
		break;
	case ACT_MIGRATE_UNMAP:
		if (!p->mctx && !(p->mctx = calloc(1, sizeof(*p->mctx))))
			abort();
		record_migration(s, p);
		p->fault.unmap_time = now;
		migrate_misplaced_folio_begin(s, p->mctx, p->fault.folio, p->fault.target_nid);
		act_at(s, p, ACT_MIGRATE_MOVE);
		break;
	case ACT_MIGRATE_MOVE:
		do_numa_page_migrated(s, migrate_misplaced_folio_end(s, p->mctx) == 0);
		trace(s, TR_MIGRATION, p->cpu, p->pid, p->fault.unmap_time, sim_now(s) - p->fault.unmap_time,
		      (int64_t)p->fault.addr, p->fault.folio_nid_at_fault, p->fault.target_nid,
		      p->fault.saw_pending);
		act_at(s, p, ACT_RETURN);
		break;
	case ACT_RETURN:
		p->act = ACT_USER;
		if (p->numa_work_queued)
			start_numa_work(s, p, now);
		break;
	default:
		break;
	}
}

static void run_tick(struct sim *s, struct task_struct *p, uint64_t now)
{
	sim_enter(s, p, now);
	task_tick_numa(s, p);
	if (p->numa_work_queued && p->act == ACT_USER && p->busy_until <= now) {
		start_numa_work(s, p, now);
	} else if (p->numa_work_queued && p->act == ACT_USER) {
		/* in a fault: the work runs when it returns */
		p->act = ACT_RETURN;
		timerq_set(&s->q, act_timer_id(s, p->idx), p->busy_until);
	} else {
		schedule_tick(s, p, now);
	}
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

int sim_run(struct sim *s)
{
	for (int i = 0; i < s->nr_mms; i++) {
		sim_enter(s, NULL, 0);
		init_numa_balancing_mm(s, &s->mms[i]); /* also when main sleeps */
		for (int t = 0; t < s->nr_tasks; t++)
			if (s->tasks[t].mm == &s->mms[i]) {
				/* the main thread starts the mm; the others are its threads */
				init_numa_balancing(s, &s->tasks[t], s->tasks[t].pid == s->tasks[t].tgid);
				schedule_tick(s, &s->tasks[t], 0);
			}
	}
	timerq_set(&s->q, s->timer_account, ACCOUNT_NS);
	timerq_set(&s->q, s->timer_end, s->duration_ns);
	if (mm_debug_enabled(s, &s->debug))
		mm_debug_start(s);

	double started = wall_seconds(), last = started;
	uint64_t now = 0;
	while (!timerq_empty(&s->q) && !s->stop) {
		uint32_t id = timerq_pop(&s->q, &now);
		s->st.events++;
		if (id == s->timer_end)
			break;
		if (id == s->timer_account) {
			workload_account(s, now);
			timeseries_tick(s, now);
			timerq_set(&s->q, id, now + ACCOUNT_NS);
			if (mm_debug_enabled(s, &s->debug))
				mm_debug_tick(s, now);
			if (s->progress)
				progress(s, now, started, &last);
		} else if (id >= 3u * (uint32_t)s->nr_tasks) {
			workload_group_touch(s, s->nr_tasks + (int)(id - 3u * (uint32_t)s->nr_tasks), now);
		} else {
			struct task_struct *p = &s->tasks[id / 3];
			switch (id % 3) {
			case 0: run_tick(s, p, now); break;
			case 1: run_activity(s, p, now); break;
			default: workload_group_touch(s, p->idx, now); break;
			}
		}
	}
	if (mm_debug_enabled(s, &s->debug) && !s->stop)
		mm_debug_final(s);
	workload_account(s, s->duration_ns);
	timeseries_tick(s, s->duration_ns);
	for (int i = 0; i < s->nr_tasks; i++)
		s->w.total_ops += s->tasks[i].ops;
	if (s->progress && wall_seconds() - started > 1.0)
		fprintf(s->progress_out, "\r%60s\r", "");
	return 0;
}
