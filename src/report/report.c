/* Reports of a finished run.  The text report mirrors what one would read on
 * a real machine (/proc/vmstat, /proc/interrupts) plus the figures the
 * bpftrace instrumentation gave; the JSON carries the same numbers for
 * scripts and must be byte-identical between runs of the same scenario. */
#include "lib/version.h"
#include "report/report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/escape.h"
#include "report/convergence.h"

struct stat_def {
	const char *name;
	size_t off;
	bool real;  /* double, else uint64_t */
};

#define U(f) { #f, offsetof(struct sim_stats, f), false }
#define R(f) { #f, offsetof(struct sim_stats, f), true }

/* Every field of struct sim_stats, in its order. */
static const struct stat_def stat_defs[] = {
	U(scanner_flushes), U(scanner_flushes_cpr), U(numa_gathers), R(numa_gather_ns),
	U(passes), R(pass_ns), U(migrations), U(migr_saw_pending), U(migr_overlap_pass),
	U(migr_in_chunk), U(migr_pte_protnone), U(batch_flushes), U(flush_rounds),
	U(broadcasts), U(hint_faults_lost), U(scan_period_resets), U(numa_task_moves),
	U(numa_task_swaps), U(context_switches), U(task_migrations), U(task_node_moves), U(events),
	U(hint_faults_pooled), U(hint_faults_bulk), U(tables_materialised),
};

_Static_assert(sizeof(stat_defs) / sizeof(stat_defs[0]) * 8 == sizeof(struct sim_stats),
	       "struct sim_stats changed: add the field to stat_defs in report.c");

static double sim_seconds(const struct sim *s)
{
	return (double)(s->end_ns ? s->end_ns : s->duration_ns) / 1e9;
}

/* A fixed-work run: when the last thread finished (elapsed time, as
 * autonuma-benchmark's /usr/bin/time reports it), or -1 if not all did. */
static double elapsed_seconds(const struct sim *s)
{
	double last = 0;
	for (int i = 0; i < s->nr_tasks; i++) {
		if (s->tasks[i].syscall_caller)
			continue;
		if (!s->tasks[i].done)
			return -1;
		if ((double)s->tasks[i].finish_ns > last)
			last = (double)s->tasks[i].finish_ns;
	}
	return last / 1e9;
}

static uint64_t tlb_interrupts(const struct sim *s)
{
	uint64_t n = 0;
	for (int c = 0; c < s->m.nr_cpus; c++)
		n += s->cpus[c].irq_tlb_count;
	return n;
}

static double cost_total(const struct sim *s, int cause)
{
	double ns = 0;
	for (int c = 0; c < s->m.nr_cpus; c++)
		ns += engine_cost(&s->e.acct[c], cause);
	return ns;
}

static double throughput(const struct sim *s)
{
	double sec = sim_seconds(s);
	return sec > 0 ? s->w.total_ops / sec : 0;
}

/* ---- convergence ---------------------------------------------------------- */

#define SETTLED_SHARE 0.1 /* of the peak second */

/* When a per-second series settled: the end of the last second above 10%
 * of the peak second, or -1 if the series was still above it in the last
 * second (still moving at the end), or 0 if it never rose. */
static double settled_s(const struct sim *s, enum ts_counter c)
{
	const struct timeseries *ts = s->ts;
	double peak = 0;
	int last = -1;
	for (int i = 0; i < ts->n; i++)
		peak = ts->count[c][i] > peak ? ts->count[c][i] : peak;
	for (int i = 0; i < ts->n; i++)
		if (peak > 0 && ts->count[c][i] > SETTLED_SHARE * peak)
			last = i;
	if (last < 0)
		return 0;
	return last == ts->n - 1 ? -1 : last + 1;
}

static void text_settled(const char *what, double t, FILE *out)
{
	if (t < 0)
		fprintf(out, "  %-18s still above 10%% of its peak in the last second\n", what);
	else if (t == 0)
		fprintf(out, "  %-18s none\n", what);
	else
		fprintf(out, "  %-18s settled after %g s (below 10%% of its peak second since)\n", what, t);
}

#define TEXT_PROCESSES 8 /* more are in the JSON */

static void text_share(const char *what, double v, FILE *out)
{
	if (v >= 0)
		fprintf(out, "%s %.1f%%", what, 100 * v);
	else
		fprintf(out, "%s -", what);
}

/* Each process's convergence (report/convergence.h), the first few. */
static void text_processes(const struct sim *s, FILE *out)
{
	double t = convergence_time(s);
	if (t >= 0)
		fprintf(out, "  %-18s %g s (every process: %g%%+ of its hint faults ending local and of its "
			"memory touches local for %d s, or to the end of its work)\n",
			"converged at", t, 100 * CONVERGED_SHARE, CONVERGED_WINDOW_S);
	else
		fprintf(out, "  %-18s not converged (%g%%+ of hint faults ending local and of memory touches "
			"local for %d s)\n", "converged at", 100 * CONVERGED_SHARE, CONVERGED_WINDOW_S);
	for (int m = 0; m < s->nr_mms && m < TEXT_PROCESSES; m++) {
		struct process_convergence pc;
		convergence_process(s, m, &pc);
		char what[32];
		snprintf(what, sizeof(what), "process %d", m);
		fprintf(out, "  %-18s ", what);
		if (pc.converged_s >= 0)
			fprintf(out, "converged at %g s; ", pc.converged_s);
		else
			fprintf(out, "not converged; ");
		text_share("at the end: hint faults", pc.final_fault_share, out);
		text_share(" local,", pc.final_ended_share, out);
		text_share(" ending local; memory touches", pc.final_mem_share, out);
		fprintf(out, " local; %llu node moves (%llu NUMA moves, %llu swaps) of %d threads\n",
			(unsigned long long)pc.node_moves, (unsigned long long)pc.numa_moves,
			(unsigned long long)pc.numa_swaps, pc.tasks);
	}
	if (s->nr_mms > TEXT_PROCESSES)
		fprintf(out, "  %-18s %d more in the JSON report\n", "processes", s->nr_mms - TEXT_PROCESSES);
}

static void text_convergence(const struct sim *s, FILE *out)
{
	if (!s->ts || !s->ts->n)
		return;
	fprintf(out, "\nconvergence\n");
	text_settled("migrations", settled_s(s, TS_MIGRATIONS), out);
	text_settled("task node moves", settled_s(s, TS_NODE_MOVES), out);
	double f = convergence_final_local_share(s);
	if (f >= 0)
		fprintf(out, "  %-18s %.1f%% local over the last tenth of the run\n", "hint faults", 100 * f);
	text_processes(s, out);
	/* the bandwidth roofline (workload.c): how long a node (or the
	 * sockets' link) ran at its capacity, and its accesses' worst stretch */
	for (int n = 0; s->w.sat_ns && n <= s->m.nr_nodes; n++)
		if (s->w.sat_ns[n] > 0) {
			char what[32];
			snprintf(what, sizeof(what), n < s->m.nr_nodes ? "node %d" : "the link", n);
			fprintf(out, "  %-18s %s at its %g GB/s for %.2f s (latency up to %.2fx)\n",
				"memory bandwidth", what,
				n < s->m.nr_nodes ? machine_node_bw_gbs(&s->m, n) : s->m.link_bw_gbs,
				s->w.sat_ns[n] / 1e9, s->w.peak_q[n]);
		}
}

/* A figure, or null where the model has none (-1). */
static json_t *or_null(double v)
{
	return v >= 0 ? json_real(v) : json_null();
}

/* Per process: its convergence and its per-second series (t_s of the
 * run's timeseries). */
static json_t *json_processes(const struct sim *s)
{
	const struct timeseries *ts = s->ts;
	json_t *a = json_array();
	for (int m = 0; m < s->nr_mms; m++) {
		struct process_convergence pc;
		convergence_process(s, m, &pc);
		json_t *o = json_object(), *hf = json_array(), *lf = json_array(), *ef = json_array();
		json_t *mem = json_array();
		json_object_set_new(o, "process", json_integer(m));
		json_object_set_new(o, "threads", json_integer(pc.tasks));
		json_object_set_new(o, "converged_s", or_null(pc.converged_s));
		json_object_set_new(o, "final_local_fault_share", or_null(pc.final_fault_share));
		json_object_set_new(o, "final_ended_local_fault_share", or_null(pc.final_ended_share));
		json_object_set_new(o, "final_memory_local_share", or_null(pc.final_mem_share));
		json_object_set_new(o, "task_node_moves", json_integer((json_int_t)pc.node_moves));
		json_object_set_new(o, "numa_moves", json_integer((json_int_t)pc.numa_moves));
		json_object_set_new(o, "numa_swaps", json_integer((json_int_t)pc.numa_swaps));
		for (int i = 0; i < ts->n; i++) {
			size_t at = ts_mm_at(ts, m, i);
			json_array_append_new(hf, json_real(ts->faults[at]));
			json_array_append_new(lf, ts->faults[at] > 0 ? json_real(ts->faults_local[at] / ts->faults[at])
								      : json_null());
			json_array_append_new(ef, ts->faults_ended[at] > 0
						      ? json_real(ts->faults_ended_local[at] / ts->faults_ended[at])
						      : json_null());
			json_array_append_new(mem, or_null(ts->mem_share[at]));
		}
		json_object_set_new(o, "hint_faults_per_s", hf);
		json_object_set_new(o, "local_fault_share", lf);
		json_object_set_new(o, "ended_local_fault_share", ef);
		json_object_set_new(o, "memory_local_share", mem);
		json_t *tn = json_array();
		for (int i = 0; i < ts->n; i++) {
			json_t *row = json_array();
			const uint16_t *c = &ts->task_nodes[ts_mm_nodes_at(ts, m, i, s->m.nr_nodes)];
			for (int n = 0; n < s->m.nr_nodes; n++)
				json_array_append_new(row, json_integer(c[n]));
			json_array_append_new(tn, row);
		}
		json_object_set_new(o, "tasks_per_node", tn); /* at the end of each second, at work */
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *json_convergence(const struct sim *s)
{
	json_t *o = json_object();
	double m = settled_s(s, TS_MIGRATIONS), t = settled_s(s, TS_NODE_MOVES);
	double f = convergence_final_local_share(s);
	json_object_set_new(o, "migrations_settled_s", or_null(m));
	json_object_set_new(o, "task_node_moves_settled_s", or_null(t));
	json_object_set_new(o, "final_local_fault_share", or_null(f));
	json_object_set_new(o, "converged_s", or_null(convergence_time(s)));
	json_t *crit = json_object();
	json_object_set_new(crit, "share", json_real(CONVERGED_SHARE));
	json_object_set_new(crit, "window_s", json_integer(CONVERGED_WINDOW_S));
	json_object_set_new(o, "criterion", crit);
	json_object_set_new(o, "processes", json_processes(s));
	json_t *sat = json_array(), *peak = json_array();
	for (int n = 0; s->w.sat_ns && n <= s->m.nr_nodes; n++) {
		json_array_append_new(sat, json_real(s->w.sat_ns[n] / 1e9));
		json_array_append_new(peak, json_real(s->w.peak_q[n] > 1 ? s->w.peak_q[n] : 1));
	}
	json_object_set_new(o, "bandwidth_limited_s", sat);      /* per node, then the link */
	json_object_set_new(o, "bandwidth_peak_stretch", peak);
	return o;
}

/* ---- text --------------------------------------------------------------- */

/* A node stat summed over the nodes, as /proc/vmstat prints it. */
static unsigned long long node_stat_sum(const struct sim *s, enum node_stat_item i)
{
	unsigned long long sum = 0;
	for (int n = 0; n < s->m.nr_nodes; n++)
		sum += s->pgdat[n].stat[i];
	return sum;
}

/* The memory tiers (mm/memory-tiers.c) and what ended where: a tiered
 * machine's first question. */
static void text_tiers(const struct sim *s, FILE *out)
{
	for (int n = 0; n < s->m.nr_nodes; n++) {
		uint64_t size = machine_node_pages(&s->m, n), used = size - s->node_free_pages[n];
		fprintf(out, "%s node %d: %s, tier %d (adistance %d), %s, %.2f of %.2f GiB in use\n",
			n ? "          " : "tiers:    ", n,
			machine_node_has_cpus(&s->m, n) ? "CPUs" : "CPU-less", memtier_of(&s->tiers, n),
			s->tiers.adistance[n], node_is_toptier(s, n) ? "top tier" : "slow tier",
			(double)used / (1 << 18), (double)size / (1 << 18));
	}
}

static void text_header(const struct sim *s, const struct scenario *sc, FILE *out)
{
	fprintf(out, "numasim %s (build %s)\n", NUMASIM_VERSION, numasim_build_id);
	fprintf(out, "scenario:  %s (", sc->name);
	fputs_escaped(sc->source, out); /* a path as given: it may hold anything */
	fprintf(out, ")\n");
	fprintf(out, "kernel:    %s\n", s->k.name);
	fprintf(out, "seed:      %llu\n", (unsigned long long)s->seed);
	fprintf(out, "machine:   %d sockets, %d nodes, %d CPUs, %s\n", s->m.nr_sockets,
		s->m.nr_nodes, s->m.nr_cpus, flush_engine_names[s->m.engine]);
	if (s->m.nr_memory_nodes)
		text_tiers(s, out);
	fprintf(out, "refill:    a full flush costs a thread %.1f of %d entries (%.1f%%), %.2f us of "
		"refill walks\n", s->tlb_reuse_entries, s->m.tlb_entries,
		100 * s->tlb_reuse_entries / s->m.tlb_entries, s->tlb_refill_ns / 1000);
	fprintf(out, "simulated: %g s\n", sim_seconds(s));
	if (s->w.p.work_mops > 0) {
		double e = elapsed_seconds(s);
		if (e >= 0)
			fprintf(out, "elapsed:   %.3f s (every thread did its %g M operations)\n", e,
				s->w.p.work_mops);
		else
			fprintf(out, "elapsed:   not finished within %g s\n", (double)s->duration_ns / 1e9);
	}
}

/* The per-size mTHP statistics, when any size counted something. */
static bool mthp_stats_any(const struct sim *s)
{
	for (int o = 0; o < NR_PAGE_ORDERS; o++)
		for (int i = 0; i < NR_MTHP_STAT_ITEMS; i++)
			if (s->mthp_stats[o][i])
				return true;
	return false;
}

static void text_mthp_stats(const struct sim *s, FILE *out)
{
	if (!mthp_stats_any(s))
		return;
	fprintf(out, "\n/sys/kernel/mm/transparent_hugepage/hugepages-*/stats\n");
	for (int o = 0; o < NR_PAGE_ORDERS; o++) {
		bool any = false;
		for (int i = 0; i < NR_MTHP_STAT_ITEMS; i++)
			any |= s->mthp_stats[o][i] != 0;
		for (int i = 0; any && i < NR_MTHP_STAT_ITEMS; i++)
			fprintf(out, "hugepages-%lukB/%s %llu\n", 4ul << o, mthp_stat_names[i],
				(unsigned long long)s->mthp_stats[o][i]);
	}
}

static void text_counters(const struct sim *s, FILE *out)
{
	fprintf(out, "\n/proc/vmstat\n");
	for (int i = 0; i < NR_VM_EVENT_ITEMS; i++)
		fprintf(out, "%s %llu\n", vm_event_names[i], vm_event_sum(s, (enum vm_event_item)i));
	text_mthp_stats(s, out);
	for (int i = 0; s->m.nr_memory_nodes && i < NR_NODE_STAT_ITEMS; i++)
		fprintf(out, "%s %llu\n", node_stat_names[i], node_stat_sum(s, (enum node_stat_item)i));
	if (s->m.nr_memory_nodes)
		fprintf(out, "(wakeup_kswapd calls, promotion and first touch: %llu)\n", (unsigned long long)s->kswapd_wakes);
	fprintf(out, "\n/proc/interrupts\n");
	fprintf(out, "TLB: %llu TLB shootdowns\n", (unsigned long long)tlb_interrupts(s));
}

#define LABEL "  %-52s"

static void line_count(FILE *out, const char *label, uint64_t n)
{
	fprintf(out, LABEL " %llu\n", label, (unsigned long long)n);
}

/* @num / @den * @scale with @unit, or n/a when nothing was counted. */
static void line_ratio(FILE *out, const char *label, double num, double den, double scale,
		       const char *unit)
{
	if (den > 0)
		fprintf(out, LABEL " %.3f%s\n", label, num / den * scale, unit);
	else
		fprintf(out, LABEL " n/a\n", label);
}

static void text_instrumentation(const struct sim *s, FILE *out)
{
	const struct sim_stats *st = &s->st;
	double migrated = (double)vm_event_sum(s, NUMA_PAGE_MIGRATE);
	fprintf(out, "\ninstrumentation\n");
	line_count(out, "scanner full flushes (gathers + batched pending)", st->scanner_flushes);
	line_count(out, "  of them from change_pte_range", st->scanner_flushes_cpr);
	line_count(out, "task_numa_work passes", st->passes);
	line_ratio(out, "mean mmu_gather in task_numa_work", st->numa_gather_ns,
		   (double)st->numa_gathers, 1e-6, " ms");
	line_count(out, "hint-fault migrations reaching unmap", st->migrations);
	line_ratio(out, "migrations that saw tlb_flush_pending", (double)st->migr_saw_pending,
		   (double)st->migrations, 100, " %");
	line_ratio(out, "wall time inside a scan pass", st->pass_ns, (double)s->duration_ns, 100,
		   " %");
	line_ratio(out, "migrations overlapping a scan pass", (double)st->migr_overlap_pass,
		   (double)st->migrations, 100, " %");
	line_ratio(out, "  of those, page in the chunk being scanned", (double)st->migr_in_chunk,
		   (double)st->migr_overlap_pass, 100, " %");
	line_ratio(out, "migrated PTEs still PROT_NONE at unmap", (double)st->migr_pte_protnone,
		   (double)st->migrations, 100, " %");
	line_ratio(out, "TLB interrupts per migrated page", (double)tlb_interrupts(s), migrated, 1,
		   "");
	line_count(out, "batched unmap flushes (arch_tlbbatch_flush)", st->batch_flushes);
	line_count(out, "IPI flush rounds (flush_tlb_multi)", st->flush_rounds);
	line_count(out, "broadcast flushes (INVLPGB / TLBI)", st->broadcasts);
	line_count(out, "touches lost (toucher in the kernel or an IRQ)", st->hint_faults_lost);
	line_count(out, "simulation events", st->events);
	if (!s->exact) {
		line_count(out, "hint faults aggregated (pooled tables)", st->hint_faults_pooled);
		line_count(out, "  of them drawn in bulk", st->hint_faults_bulk);
	}
}

/* Where the tasks ran and how they moved (se.nr_migrations summed; the
 * sched_move_numa / sched_swap_numa tracepoints' counts). */
static void text_sched(const struct sim *s, FILE *out)
{
	const struct sim_stats *st = &s->st;
	fprintf(out, "\nscheduler\n");
	for (int n = 0; n < s->m.nr_nodes; n++) {
		char label[64];
		snprintf(label, sizeof(label), "CPU-seconds run on node %d", n);
		line_ratio(out, label, s->node_run_ns[n], 1e9, 1, " s");
	}
	line_count(out, "context switches", st->context_switches);
	line_count(out, "task migrations (se.nr_migrations)", st->task_migrations);
	line_count(out, "  of them across nodes", st->task_node_moves);
	line_count(out, "NUMA placement moves (migrate_task_to)", st->numa_task_moves);
	line_count(out, "NUMA placement swaps (migrate_swap)", st->numa_task_swaps);
	line_count(out, "scan period resets (update_scan_period)", st->scan_period_resets);
	if (s->w.p.migrate_call == MCALL_NONE)
		return;
	fprintf(out, "\n%s calls (process %d)\n", migrate_syscall_names[s->w.p.migrate_call],
		s->w.p.migrate_process);
	fprintf(out, "  %10s %5s %5s %12s %12s %10s %12s\n", "at s", "from", "to", "elapsed ms",
		"pages moved", "failed", "hint fails");
	for (int i = 0; i < s->nr_calls; i++) {
		const struct call_record *c = &s->calls[i];
		fprintf(out, "  %10.3f %5d %5d %12.3f %12lu %10lu %12lu%s\n", (double)c->start_ns / 1e9,
			c->from, c->to, (double)(c->end_ns - c->start_ns) / 1e6, c->moved, c->failed,
			c->hint_fails, c->unfinished ? "  (unfinished at the end)" : "");
	}
	fprintf(out, "  hint fails: hint-fault migrations failed, the folio isolated by the call\n");
}

static void text_costs(const struct sim *s, FILE *out)
{
	double cpu_ns = (double)s->m.nr_cpus * sim_seconds(s) * 1e9, sum = 0;
	fprintf(out, "\nthroughput: %.0f ops/s\n", throughput(s));
	fprintf(out, "\ncost breakdown\n  %-24s %16s %14s\n", "cause", "CPU-seconds", "% of CPU time");
	for (int i = 0; i < NR_COST_CAUSES; i++) {
		double ns = cost_total(s, i);
		sum += ns;
		fprintf(out, "  %-24s %16.6f %14.4f\n", cost_cause_names[i], ns / 1e9,
			cpu_ns > 0 ? ns / cpu_ns * 100 : 0);
	}
	fprintf(out, "  %-24s %16.6f %14.4f\n", "total", sum / 1e9,
		cpu_ns > 0 ? sum / cpu_ns * 100 : 0);
}

/* ---- memory tiering --------------------------------------------------- */

/* What a tiered run's series say: the rates over the run and over its last
 * tenth, when 90% of the touches first landed on the top tier, where they
 * ended and the hot threshold at the end. */
struct tier_summary {
	double promoted_s, demoted_s;          /* per second over the run */
	double promoted_tail_s, demoted_tail_s;/* ... over its last tenth */
	double candidates_peak_s;              /* the busiest second's candidates */
	double rate_limit_pages_s;             /* what the rate limit allows a second */
	double top_touches_start, top_touches_end; /* the first and last second's share */
	double top_90_s;                       /* the end of the first second at 90%, or -1 */
	double threshold_ms_end;
};

static void tier_summary(const struct sim *s, struct tier_summary *t)
{
	const struct timeseries *ts = s->ts;
	int n = ts->n, tail = n - (n + 9) / 10;
	memset(t, 0, sizeof(*t));
	t->top_90_s = -1;
	for (int i = 0; i < n; i++) {
		t->promoted_s += ts->tier[TIER_PROMOTED][i] / n;
		t->demoted_s += ts->tier[TIER_DEMOTED][i] / n;
		if (i >= tail) {
			t->promoted_tail_s += ts->tier[TIER_PROMOTED][i] / (n - tail);
			t->demoted_tail_s += ts->tier[TIER_DEMOTED][i] / (n - tail);
		}
		if (ts->tier[TIER_CANDIDATES][i] > t->candidates_peak_s)
			t->candidates_peak_s = ts->tier[TIER_CANDIDATES][i];
		if (t->top_90_s < 0 && ts->tier[TIER_TOP_TOUCHES][i] >= 0.9)
			t->top_90_s = i + 1;
	}
	t->rate_limit_pages_s = (double)((uint64_t)s->t.promote_rate_limit_mbps << (20 - PAGE_SHIFT));
	t->top_touches_start = n ? ts->tier[TIER_TOP_TOUCHES][0] : -1;
	t->top_touches_end = n ? ts->tier[TIER_TOP_TOUCHES][n - 1] : -1;
	t->threshold_ms_end = n ? ts->tier[TIER_THRESHOLD_MS][n - 1] : 0;
}

static void text_tiering(const struct sim *s, FILE *out)
{
	if (!s->ts || !s->ts->n || !s->ts->tier[0])
		return;
	struct tier_summary t;
	tier_summary(s, &t);
	fprintf(out, "\nmemory tiering\n");
	fprintf(out, "  %-30s %.0f/s promoted, %.0f/s demoted (last tenth: %.0f/s, %.0f/s)\n",
		"pages", t.promoted_s, t.demoted_s, t.promoted_tail_s, t.demoted_tail_s);
	fprintf(out, "  %-30s %.1f%% in the first second, %.1f%% in the last\n",
		"touches on the top tier", 100 * t.top_touches_start, 100 * t.top_touches_end);
	if (t.top_90_s >= 0)
		fprintf(out, "  %-30s 90%% of touches on it after %.0f s\n", "", t.top_90_s);
	else
		fprintf(out, "  %-30s never 90%% of touches on it\n", "");
	fprintf(out, "  %-30s %.0f pages in the busiest second, limit %.0f/s (%u MB/s)\n",
		"promotion candidates", t.candidates_peak_s, t.rate_limit_pages_s,
		s->t.promote_rate_limit_mbps);
	fprintf(out, "  %-30s %.0f ms at the end (default %u ms)\n", "hot threshold",
		t.threshold_ms_end, s->t.hot_threshold_ms);
}

void report_text(const struct sim *s, const struct scenario *sc, FILE *out)
{
	text_header(s, sc, out);
	text_counters(s, out);
	text_instrumentation(s, out);
	text_sched(s, out);
	text_convergence(s, out);
	text_tiering(s, out);
	text_costs(s, out);
}

/* ---- JSON --------------------------------------------------------------- */

/* json_real refuses NaN and infinities; a null says "not a number" instead
 * of dropping the key. */
static json_t *jreal(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

static json_t *jint(uint64_t x)
{
	return json_integer((json_int_t)x);
}

static json_t *json_machine(const struct sim *s)
{
	json_t *o = json_object();
	json_object_set_new(o, "sockets", json_integer(s->m.nr_sockets));
	json_object_set_new(o, "nodes", json_integer(s->m.nr_nodes));
	json_object_set_new(o, "cpus", json_integer(s->m.nr_cpus));
	json_object_set_new(o, "flush_engine", json_string(flush_engine_names[s->m.engine]));
	/* what a full flush costs a thread of the workload (workload/tlb_reuse.h) */
	json_object_set_new(o, "tlb_entries", json_integer(s->m.tlb_entries));
	json_object_set_new(o, "tlb_reuse_entries", json_real(s->tlb_reuse_entries));
	json_object_set_new(o, "tlb_refill_ns", json_real(s->tlb_refill_ns));
	return o;
}

static json_t *json_tunables(const struct sim *s)
{
	json_t *o = json_object();
	json_object_set_new(o, "kernel.numa_balancing", json_integer(s->t.numa_balancing));
	json_object_set_new(o, "numa_balancing.scan_delay_ms", json_integer(s->t.scan_delay_ms));
	json_object_set_new(o, "numa_balancing.scan_period_min_ms",
			    json_integer(s->t.scan_period_min_ms));
	json_object_set_new(o, "numa_balancing.scan_period_max_ms",
			    json_integer(s->t.scan_period_max_ms));
	json_object_set_new(o, "numa_balancing.scan_size_mb", json_integer(s->t.scan_size_mb));
	json_object_set_new(o, "x86.tlb_single_page_flush_ceiling",
			    json_integer(s->m.tlb_single_page_flush_ceiling));
	return o;
}

static json_t *json_counters(const struct sim *s)
{
	json_t *o = json_object();
	for (int i = 0; i < NR_VM_EVENT_ITEMS; i++)
		json_object_set_new(o, vm_event_names[i],
				    jint(vm_event_sum(s, (enum vm_event_item)i)));
	/* the tiering node stats, summed as /proc/vmstat prints them, on a
	 * machine with CPU-less nodes (elsewhere they stay 0) */
	for (int i = 0; s->m.nr_memory_nodes && i < NR_NODE_STAT_ITEMS; i++)
		json_object_set_new(o, node_stat_names[i], jint(node_stat_sum(s, (enum node_stat_item)i)));
	for (int ord = 0; ord < NR_PAGE_ORDERS; ord++)
		for (int i = 0; i < NR_MTHP_STAT_ITEMS; i++)
			if (s->mthp_stats[ord][i]) {
				char key[64];
				snprintf(key, sizeof(key), "hugepages-%lukB/%s", 4ul << ord, mthp_stat_names[i]);
				json_object_set_new(o, key, jint(s->mthp_stats[ord][i]));
			}
	return o;
}

static json_t *json_stats(const struct sim *s)
{
	json_t *o = json_object();
	for (size_t i = 0; i < sizeof(stat_defs) / sizeof(stat_defs[0]); i++) {
		const struct stat_def *d = &stat_defs[i];
		const char *p = (const char *)&s->st + d->off;
		json_object_set_new(o, d->name, d->real ? jreal(*(const double *)p)
							: jint(*(const uint64_t *)p));
	}
	return o;
}

/* The gather durations by size (sim.h: gather_hist): each bucket's lower
 * bound in us and its count; the batched PTEs' migration-to-flush delays
 * (sim.h: delay_hist) the same way, in ns. */
static json_t *json_histograms(const struct sim *s)
{
	json_t *o = json_object(), *g = json_object(), *lo = json_array(), *n = json_array();
	for (int b = 0; b < NR_GATHER_HIST; b++) {
		json_array_append_new(lo, jint(b ? 1ull << (b - 1) : 0));
		json_array_append_new(n, jint(s->gather_hist[b]));
	}
	json_object_set_new(g, "lower_us", lo);
	json_object_set_new(g, "count", n);
	json_object_set_new(o, "numa_gather_us", g);
	/* the migration-to-flush delays (sim.h: delay_hist), in ns */
	json_t *d = json_object();
	lo = json_array();
	n = json_array();
	for (int b = 0; b < NR_DELAY_HIST; b++) {
		json_array_append_new(lo, jint(b ? 1ull << (b - 1) : 0));
		json_array_append_new(n, jint(s->delay_hist[b]));
	}
	json_object_set_new(d, "lower_ns", lo);
	json_object_set_new(d, "count", n);
	json_object_set_new(o, "migrate_flush_delay_ns", d);
	return o;
}

/* Per node, the counters of /sys/devices/system/node/nodeN/vmstat the
 * model counts (docs/compare-and-plot.md lists the others). */
static json_t *json_node_vmstat(const struct sim *s)
{
	json_t *a = json_array();
	for (int n = 0; n < s->m.nr_nodes; n++) {
		json_t *o = json_object();
		for (int i = 0; i < NR_NUMA_STAT_ITEMS; i++)
			json_object_set_new(o, numa_stat_names[i],
					    jint(s->node_numa[(size_t)n * NR_NUMA_STAT_ITEMS + (size_t)i]));
		for (int i = 0; s->m.nr_memory_nodes && i < NR_NODE_STAT_ITEMS; i++)
			json_object_set_new(o, node_stat_names[i], jint(s->pgdat[n].stat[i]));
		/* the zone stat item, at the end of the run */
		json_object_set_new(o, "nr_free_pages", jint(s->node_free_pages[n]));
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *json_costs(const struct sim *s)
{
	json_t *o = json_object();
	for (int i = 0; i < NR_COST_CAUSES; i++)
		json_object_set_new(o, cost_cause_names[i], jreal(cost_total(s, i)));
	return o;
}

static json_t *json_tiering(const struct sim *s)
{
	struct tier_summary t;
	tier_summary(s, &t);
	json_t *o = json_object();
	json_object_set_new(o, "promoted_per_s", jreal(t.promoted_s));
	json_object_set_new(o, "demoted_per_s", jreal(t.demoted_s));
	json_object_set_new(o, "promoted_per_s_last_tenth", jreal(t.promoted_tail_s));
	json_object_set_new(o, "demoted_per_s_last_tenth", jreal(t.demoted_tail_s));
	json_object_set_new(o, "top_tier_touch_share_first_s", jreal(t.top_touches_start));
	json_object_set_new(o, "top_tier_touch_share_last_s", jreal(t.top_touches_end));
	json_object_set_new(o, "top_tier_90pct_after_s", t.top_90_s >= 0 ? jreal(t.top_90_s) : json_null());
	json_object_set_new(o, "promote_candidates_peak_per_s", jreal(t.candidates_peak_s));
	json_object_set_new(o, "promote_rate_limit_pages_per_s", jreal(t.rate_limit_pages_s));
	json_object_set_new(o, "hot_threshold_ms_last_s", jreal(t.threshold_ms_end));
	json_object_set_new(o, "kswapd_wakes", jint(s->kswapd_wakes));
	return o;
}

/* Per-second series, one array per quantity (what `numasim plot` draws). */
static json_t *json_timeseries(const struct sim *s)
{
	const struct timeseries *ts = s->ts;
	json_t *o = json_object();
	struct { const char *key; const double *v; } cols[NR_TS_COUNTERS + 2];
	int nc = 0;
	for (int c = 0; c < NR_TS_COUNTERS; c++) {
		cols[nc].key = ts_counter_names[c];
		cols[nc++].v = ts->count[c];
	}
	cols[nc].key = "pass_ms";
	cols[nc++].v = ts->pass_ms;
	cols[nc].key = "scan_period_ms";
	cols[nc++].v = ts->scan_period_ms;
	json_t *t = json_array();
	for (int i = 0; i < ts->n; i++)
		json_array_append_new(t, json_integer(i + 1));
	json_object_set_new(o, "t_s", t);
	for (int c = 0; ts->tier[0] && c < NR_TIER_SERIES; c++) {
		json_t *a = json_array();
		for (int i = 0; i < ts->n; i++)
			json_array_append_new(a, jreal(ts->tier[c][i]));
		json_object_set_new(o, tier_series_names[c], a);
	}
	for (size_t c = 0; c < sizeof(cols) / sizeof(cols[0]); c++) {
		json_t *a = json_array();
		for (int i = 0; i < ts->n; i++)
			json_array_append_new(a, jreal(cols[c].v[i]));
		json_object_set_new(o, cols[c].key, a);
	}
	return o;
}

/* Per task: where it ran (CPU-seconds per node) and how it moved. */
static json_t *json_tasks(const struct sim *s)
{
	json_t *a = json_array();
	for (int i = 0; i < s->nr_tasks; i++) {
		const struct task_struct *p = &s->tasks[i];
		json_t *t = json_object(), *nodes = json_array();
		json_object_set_new(t, "pid", jint((uint64_t)p->pid));
		for (int n = 0; n < s->m.nr_nodes; n++)
			json_array_append_new(nodes, jreal(s->task_node_run_ns[(size_t)i * (size_t)s->m.nr_nodes +
									  (size_t)n] / 1e9));
		json_object_set_new(t, "cpu_seconds_per_node", nodes);
		json_object_set_new(t, "nr_migrations", jint(p->nr_migrations));
		json_object_set_new(t, "node_moves", jint(p->nr_node_moves));
		json_object_set_new(t, "numa_moves", jint(p->nr_numa_moves));
		json_object_set_new(t, "numa_swaps", jint(p->nr_numa_swaps));
		json_object_set_new(t, "numa_scan_period_ms", jint(p->numa_scan_period));
		json_object_set_new(t, "preferred_nid", json_integer(p->numa_preferred_nid));
		json_object_set_new(t, "ops", jreal(p->ops));
		if (s->w.p.work_mops > 0 && !p->syscall_caller)
			json_object_set_new(t, "finished_s", p->done ? jreal((double)p->finish_ns / 1e9) : json_null());
		json_array_append_new(a, t);
	}
	return a;
}

json_t *report_scenario_json(const struct scenario *sc, const struct kernel_config *k)
{
	json_t *o = json_object(), *ov = json_array();
	json_object_set_new(o, "name", json_string(sc->name));
	json_object_set_new(o, "source", json_string(sc->source));
	for (int i = 0; i < scenario_nr_keys(); i++) {
		struct scenario_value v;
		scenario_get(sc, i, &v);
		json_t *sec = json_object_get(o, v.section);
		if (!sec) {
			sec = json_object();
			json_object_set_new(o, v.section, sec);
		}
		json_t *x = v.type == SV_INT ? json_integer(v.i)
			  : v.type == SV_DOUBLE ? jreal(v.d)
			  : v.type == SV_BOOL ? json_boolean(v.b)
			  : json_string(v.s);
		json_object_set_new(sec, v.name, x);
	}
	json_t *ks = json_object_get(o, "kernel");
	if (k && ks) {
		json_t *sw = json_object();
		for (int i = 0; i < kernel_nr_switches(); i++)
			json_object_set_new(sw, kernel_switch_name(i), json_boolean(kernel_switch_on(k, i)));
		json_object_set_new(ks, "switches", sw);
	}
	for (int i = 0; i < sc->nr_overrides; i++) {
		json_t *x = json_object();
		json_object_set_new(x, "option", json_string(sc->overrides[i].option));
		json_object_set_new(x, "key", json_string(sc->overrides[i].key));
		json_object_set_new(x, "value", json_string(sc->overrides[i].value));
		json_array_append_new(ov, x);
	}
	json_object_set_new(o, "overrides", ov);
	return o;
}

json_t *report_json(const struct sim *s, const struct scenario *sc)
{
	json_t *o = json_object(), *irq = json_object();
	json_object_set_new(o, "numasim_version", json_string(NUMASIM_VERSION));
	json_object_set_new(o, "numasim_build", json_string(numasim_build_id));
	json_object_set_new(o, "scenario", report_scenario_json(sc, &s->k));
	json_object_set_new(o, "kernel", json_string(s->k.name));
	json_object_set_new(o, "seed", jint(s->seed));
	json_object_set_new(o, "simulated_seconds", jreal(sim_seconds(s)));
	if (s->w.p.work_mops > 0) {
		double e = elapsed_seconds(s);
		json_object_set_new(o, "work_mops_per_thread", jreal(s->w.p.work_mops));
		json_object_set_new(o, "finished", json_boolean(e >= 0));
		json_object_set_new(o, "elapsed_seconds", e >= 0 ? jreal(e) : json_null());
	}
	json_object_set_new(o, "machine", json_machine(s));
	json_object_set_new(o, "tunables", json_tunables(s));
	json_object_set_new(o, "vmstat", json_counters(s));
	json_object_set_new(o, "node_vmstat", json_node_vmstat(s));
	json_object_set_new(irq, "tlb_shootdowns", jint(tlb_interrupts(s)));
	json_object_set_new(o, "interrupts", irq);
	json_object_set_new(o, "stats", json_stats(s));
	json_object_set_new(o, "histograms", json_histograms(s));
	if (s->ts && s->ts->n)
		json_object_set_new(o, "convergence", json_convergence(s));
	if (s->ts && s->ts->n && s->ts->tier[0])
		json_object_set_new(o, "tiering", json_tiering(s));
	json_t *nodes = json_array();
	for (int n = 0; n < s->m.nr_nodes; n++)
		json_array_append_new(nodes, jreal(s->node_run_ns[n] / 1e9));
	json_object_set_new(o, "cpu_seconds_per_node", nodes);
	json_object_set_new(o, "tasks", json_tasks(s));
	if (s->w.p.migrate_call != MCALL_NONE) {
		json_t *a = json_array();
		for (int i = 0; i < s->nr_calls; i++) {
			const struct call_record *c = &s->calls[i];
			json_t *r = json_object();
			json_object_set_new(r, "at_s", jreal((double)c->start_ns / 1e9));
			json_object_set_new(r, "from", json_integer(c->from));
			json_object_set_new(r, "to", json_integer(c->to));
			json_object_set_new(r, "elapsed_ms", jreal((double)(c->end_ns - c->start_ns) / 1e6));
			json_object_set_new(r, "pages_moved", jint(c->moved));
			json_object_set_new(r, "pages_failed", jint(c->failed));
			/* hint faults whose migration failed: the folio was on the
			 * call's list (or in its batch), isolated */
			json_object_set_new(r, "hint_fault_migrate_fails", jint(c->hint_fails));
			json_object_set_new(r, "finished", json_boolean(!c->unfinished));
			json_array_append_new(a, r);
		}
		json_object_set_new(o, "migrate_calls", a);
	}
	json_object_set_new(o, "throughput_ops_per_s", jreal(throughput(s)));
	json_object_set_new(o, "cost_ns", json_costs(s));
	if (s->ts)
		json_object_set_new(o, "timeseries", json_timeseries(s));
	return o;
}

int report_write_json(json_t *j, const char *what, const char *path, char *err, size_t errlen)
{
	struct outfile o;
	if (report_open_json(j, what, path, &o, err, errlen))
		return -1;
	return outfile_commit(&o, err, errlen);
}

int report_open_json(json_t *j, const char *what, const char *path, struct outfile *o, char *err,
		     size_t errlen)
{
	if (outfile_open(o, what, path, err, errlen))
		return -1;
	return report_put_json(j, o, err, errlen);
}

int report_print_json(json_t *j, FILE *f)
{
	char *text = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
	int bad = !text || fputs(text, f) == EOF || fputc('\n', f) == EOF || fflush(f) || ferror(f);
	free(text);
	return bad ? -1 : 0;
}

int report_put_json(json_t *j, struct outfile *o, char *err, size_t errlen)
{
	char *text = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
	int rc = 0;
	if (!text) {
		snprintf(err, errlen, "%s: %s: cannot build the JSON report (out of memory?)", o->what, o->path);
		rc = -1;
	} else if (fputs(text, o->f) == EOF || fputc('\n', o->f) == EOF) {
		snprintf(err, errlen, "%s: cannot write %s: %s", o->what, o->path, strerror(errno));
		rc = -1;
	}
	if (rc)
		outfile_discard(o);
	free(text);
	return rc;
}
