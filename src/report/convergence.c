#include "report/convergence.h"

int convergence_first(const double *faults, const double *faults_ended_local, const double *mem, int n,
		      double share, int window, bool open_end)
{
	double f = -1, m = -1;
	int run = 0;
	for (int i = 0; i < n; i++) {
		if (faults[i] > 0)
			f = faults_ended_local[i] / faults[i];
		if (mem[i] >= 0)
			m = mem[i];
		run = f >= share && m >= share ? run + 1 : 0;
		if (run == window)
			return i - window + 1;
	}
	return open_end && run > 0 ? n - run : -1;
}

/* Whether the run ended because every thread's fixed work was done. */
static bool work_done(const struct sim *s)
{
	if (s->w.p.work_mops <= 0)
		return false;
	for (int i = 0; i < s->nr_tasks; i++)
		if (!s->tasks[i].syscall_caller && !s->tasks[i].done)
			return false;
	return true;
}

/* The local share of @n seconds' hint faults over their last tenth (at
 * least the last second); -1 without hint faults then. */
static double last_tenth_share(const double *all, const double *local, int n)
{
	double a = 0, l = 0;
	for (int i = n - (n + 9) / 10; i < n; i++) {
		a += all[i];
		l += local[i];
	}
	return a > 0 ? l / a : -1;
}

double convergence_final_local_share(const struct sim *s)
{
	const struct timeseries *ts = s->ts;
	if (!ts)
		return -1;
	return last_tenth_share(ts->count[TS_HINT_FAULTS], ts->count[TS_HINT_FAULTS_LOCAL], ts->n);
}

void convergence_process(const struct sim *s, int mm, struct process_convergence *pc)
{
	const struct timeseries *ts = s->ts;
	*pc = (struct process_convergence){ .converged_s = -1, .final_fault_share = -1,
					    .final_ended_share = -1, .final_mem_share = -1 };
	for (int i = 0; i < s->nr_tasks; i++) {
		const struct task_struct *t = &s->tasks[i];
		if (t->syscall_caller || t->mm->id != mm)
			continue;
		pc->tasks++;
		pc->node_moves += t->nr_node_moves;
		pc->numa_moves += t->nr_numa_moves;
		pc->numa_swaps += t->nr_numa_swaps;
	}
	if (!ts || !ts->n || mm >= ts->nr_mms)
		return;
	const double *mem = &ts->mem_share[ts_mm_at(ts, mm, 0)];
	const double *all = &ts->faults[ts_mm_at(ts, mm, 0)];
	const double *ended_all = &ts->faults_ended[ts_mm_at(ts, mm, 0)];
	const double *ended = &ts->faults_ended_local[ts_mm_at(ts, mm, 0)];
	pc->converged_s = convergence_first(ended_all, ended, mem, ts->n, CONVERGED_SHARE,
					    CONVERGED_WINDOW_S, work_done(s));
	pc->final_fault_share = last_tenth_share(all, &ts->faults_local[ts_mm_at(ts, mm, 0)], ts->n);
	pc->final_ended_share = last_tenth_share(ended_all, ended, ts->n);
	for (int i = ts->n - 1; i >= 0 && pc->final_mem_share < 0; i--)
		pc->final_mem_share = mem[i];
}

double convergence_time(const struct sim *s)
{
	double latest = -1;
	for (int m = 0; m < s->nr_mms; m++) {
		struct process_convergence pc;
		convergence_process(s, m, &pc);
		if (pc.converged_s < 0)
			return -1;
		latest = pc.converged_s > latest ? pc.converged_s : latest;
	}
	return latest;
}
