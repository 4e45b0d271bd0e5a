/* Reports of a finished run.  The text report mirrors what one would read on
 * a real machine (/proc/vmstat, /proc/interrupts) plus the figures the
 * bpftrace instrumentation gave; the JSON carries the same numbers for
 * scripts and must be byte-identical between runs of the same scenario. */
#include "report/report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
	U(broadcasts), U(hint_faults_lost), U(events),
};

_Static_assert(sizeof(stat_defs) / sizeof(stat_defs[0]) * 8 == sizeof(struct sim_stats),
	       "struct sim_stats changed: add the field to stat_defs in report.c");

static double sim_seconds(const struct sim *s)
{
	return (double)s->duration_ns / 1e9;
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
		ns += s->cpus[c].cost[cause];
	return ns;
}

static double throughput(const struct sim *s)
{
	double sec = sim_seconds(s);
	return sec > 0 ? s->w.total_ops / sec : 0;
}

/* ---- text --------------------------------------------------------------- */

static void text_header(const struct sim *s, const struct scenario *sc, FILE *out)
{
	fprintf(out, "numasim %s\n", NUMASIM_VERSION);
	fprintf(out, "scenario:  %s (%s)\n", sc->name, sc->source);
	fprintf(out, "kernel:    %s\n", s->k.name);
	fprintf(out, "seed:      %llu\n", (unsigned long long)s->seed);
	fprintf(out, "machine:   %d sockets, %d nodes, %d CPUs, %s\n", s->m.nr_sockets,
		s->m.nr_nodes, s->m.nr_cpus, flush_engine_names[s->m.engine]);
	fprintf(out, "simulated: %g s\n", sim_seconds(s));
}

static void text_counters(const struct sim *s, FILE *out)
{
	fprintf(out, "\n/proc/vmstat\n");
	for (int i = 0; i < NR_VM_EVENT_ITEMS; i++)
		fprintf(out, "%s %llu\n", vm_event_names[i], vm_event_sum(s, (enum vm_event_item)i));
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
}

static void text_costs(const struct sim *s, FILE *out)
{
	double cpu_ns = (double)s->m.nr_cpus * (double)s->duration_ns, sum = 0;
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

void report_text(const struct sim *s, const struct scenario *sc, FILE *out)
{
	text_header(s, sc, out);
	text_counters(s, out);
	text_instrumentation(s, out);
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

static json_t *json_costs(const struct sim *s)
{
	json_t *o = json_object();
	for (int i = 0; i < NR_COST_CAUSES; i++)
		json_object_set_new(o, cost_cause_names[i], jreal(cost_total(s, i)));
	return o;
}

/* Per-second series, one array per quantity (what `numasim plot` draws). */
static json_t *json_timeseries(const struct sim *s)
{
	const struct timeseries *ts = s->ts;
	json_t *o = json_object();
	struct { const char *key; const double *v; } cols[] = {
		{ "tlb_irqs_per_s", ts->tlb_irqs },
		{ "migrations_per_s", ts->migrations },
		{ "pte_updates_per_s", ts->pte_updates },
		{ "pass_ms", ts->pass_ms },
		{ "scan_period_ms", ts->scan_period_ms },
	};
	json_t *t = json_array();
	for (int i = 0; i < ts->n; i++)
		json_array_append_new(t, json_integer(i + 1));
	json_object_set_new(o, "t_s", t);
	for (size_t c = 0; c < sizeof(cols) / sizeof(cols[0]); c++) {
		json_t *a = json_array();
		for (int i = 0; i < ts->n; i++)
			json_array_append_new(a, jreal(cols[c].v[i]));
		json_object_set_new(o, cols[c].key, a);
	}
	return o;
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
	json_object_set_new(o, "scenario", report_scenario_json(sc, &s->k));
	json_object_set_new(o, "kernel", json_string(s->k.name));
	json_object_set_new(o, "seed", jint(s->seed));
	json_object_set_new(o, "simulated_seconds", jreal(sim_seconds(s)));
	json_object_set_new(o, "machine", json_machine(s));
	json_object_set_new(o, "tunables", json_tunables(s));
	json_object_set_new(o, "vmstat", json_counters(s));
	json_object_set_new(irq, "tlb_shootdowns", jint(tlb_interrupts(s)));
	json_object_set_new(o, "interrupts", irq);
	json_object_set_new(o, "stats", json_stats(s));
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
	char *text = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
	if (!text) {
		snprintf(err, errlen, "%s: %s: cannot build the JSON report (out of memory?)", what, path);
		return -1;
	}
	int rc = outfile_open(o, what, path, err, errlen);
	if (!rc && (fputs(text, o->f) == EOF || fputc('\n', o->f) == EOF)) {
		snprintf(err, errlen, "%s: cannot write %s: %s", what, path, strerror(errno));
		outfile_discard(o);
		rc = -1;
	}
	free(text);
	return rc;
}
