/* numaload's JSON (see out.h). */
#include "lib/version.h"
#include "out.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/report.h"

static json_t *jreal(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

static json_t *jcount(bool have, uint64_t x)
{
	return have ? json_integer((json_int_t)x) : json_null();
}

static json_t *series(const double *v, int n)
{
	json_t *a = json_array();
	for (int i = 0; i < n; i++)
		json_array_append_new(a, v ? jreal(v[i]) : json_null());
	return a;
}

static json_t *timeseries(const struct nl_result *res)
{
	json_t *o = json_object(), *t = json_array();
	for (int i = 0; i < res->nsec; i++)
		json_array_append_new(t, json_integer(i + 1));
	json_object_set_new(o, "t_s", t);
	json_object_set_new(o, "tlb_irqs_per_s", series(res->tlb_s, res->nsec));
	json_object_set_new(o, "migrations_per_s", series(res->mig_s, res->nsec));
	json_object_set_new(o, "pte_updates_per_s", series(res->pte_s, res->nsec));
	/* not observable from user space without more tracing */
	json_object_set_new(o, "pass_ms", series(NULL, res->nsec));
	json_object_set_new(o, "scan_period_ms", series(NULL, res->nsec));
	json_object_set_new(o, "hint_faults_per_s", series(res->fault_s, res->nsec));
	return o;
}

static json_t *trace_json(const struct nl_trace *t)
{
	json_t *o = json_object();
	if (t->tlb_ok) {
		json_t *f = json_object(), *by = json_object(), *full = json_object();
		json_t *lp = json_object(), *ip = json_object();
		for (int i = 0; i < NL_TLB_REASONS; i++) {
			json_object_set_new(by, nl_tlb_reason_names[i], json_integer((json_int_t)t->tlb_reason[i]));
			json_object_set_new(full, nl_tlb_reason_names[i], json_integer((json_int_t)t->tlb_full[i]));
		}
		for (int i = 0; i < NL_NR_PATHS; i++) {
			json_object_set_new(lp, nl_flush_path_names[i], json_integer((json_int_t)t->local_path[i]));
			json_object_set_new(ip, nl_flush_path_names[i], json_integer((json_int_t)t->ipi_path[i]));
		}
		json_object_set_new(f, "by_reason", by);
		json_object_set_new(f, "full_flushes_by_reason", full);
		json_object_set_new(f, "local_flushes_by_path", lp);
		json_object_set_new(f, "ipi_rounds_by_path", ip);
		json_object_set_new(o, "tlb_flush", f);
	}
	if (t->migrate_ok) {
		json_t *m = json_object();
		json_object_set_new(m, "numa_misplaced_calls", json_integer((json_int_t)t->migrate_calls));
		json_object_set_new(m, "numa_misplaced_succeeded", json_integer((json_int_t)t->migrate_succeeded));
		json_object_set_new(m, "numa_misplaced_failed", json_integer((json_int_t)t->migrate_failed));
		json_object_set_new(m, "other_calls", json_integer((json_int_t)t->migrate_other_calls));
		json_object_set_new(o, "mm_migrate_pages", m);
	}
	if (t->skip_ok) {
		static const char *const names[8] = { "unsuitable", "shared_ro", "inaccessible", "scan_delay",
						      "pid_inactive", "ignore_pid", "seq_completed", "other" };
		json_t *s = json_object();
		for (int i = 0; i < 8; i++)
			json_object_set_new(s, names[i], json_integer((json_int_t)t->skip_reason[i]));
		json_object_set_new(o, "sched_skip_vma_numa", s);
	}
	if (t->sched_ok[0] && t->sched_ok[1] && t->sched_ok[2]) {
		json_t *s = json_object();
		json_object_set_new(s, "moves", json_integer((json_int_t)t->numa_moves));
		json_object_set_new(s, "swaps", json_integer((json_int_t)t->numa_swaps));
		json_object_set_new(s, "sticks", json_integer((json_int_t)t->numa_sticks));
		json_object_set_new(o, "sched_numa", s);
	}
	return o;
}

static json_t *real_json(const struct nl_real *r, const struct nl_opts *o, const struct nl_result *res)
{
	json_t *j = json_object(), *a = json_array(), *b = json_array(), *ids = json_array();
	json_object_set_new(j, "generator", json_string("numaload"));
	json_object_set_new(j, "kernel_release", json_string(r->release));
	json_object_set_new(j, "arch", json_string(r->machine));
	json_object_set_new(j, "threads", json_string(nl_threads_names[o->threads]));
	json_object_set_new(j, "spin_iterations_per_op", jreal(res->spin_iters_per_op));
	for (int k = 0; k < r->nr_nodes; k++) {
		json_array_append_new(ids, json_integer(r->node_id[k]));
		json_array_append_new(a, jcount(res->have_node_pages, res->node_pages_start[k]));
		json_array_append_new(b, jcount(res->have_node_pages, res->node_pages_end[k]));
	}
	json_object_set_new(j, "node_ids", ids);
	json_object_set_new(j, "workload_pages_per_node_start", a);
	json_object_set_new(j, "workload_pages_per_node_end", b);
	json_object_set_new(j, "trace", res->traced ? trace_json(&res->trace) : json_null());
	return j;
}

json_t *nl_result_json(const struct scenario *sc, const struct nl_real *r, const struct nl_opts *o,
		       const struct nl_result *res)
{
	json_t *j = json_object(), *m = json_object(), *t = json_object(), *v = json_object();
	json_t *irq = json_object();
	char kernel[160];
	snprintf(kernel, sizeof(kernel), "linux-%s", r->release);
	json_object_set_new(j, "numasim_version", json_string(NUMASIM_VERSION));
	json_object_set_new(j, "numasim_build", json_string(numasim_build_id));
	json_object_set_new(j, "scenario", json_string(sc->name));
	json_object_set_new(j, "source", json_string(sc->source));
	json_object_set_new(j, "kernel", json_string(kernel));
	json_object_set_new(j, "seed", json_integer((json_int_t)sc->seed));
	/* the measured interval, under numasim's key */
	json_object_set_new(j, "simulated_seconds", jreal(res->seconds));
	json_object_set_new(m, "sockets", json_integer(sc->m.nr_sockets));
	json_object_set_new(m, "nodes", json_integer(sc->m.nr_nodes));
	json_object_set_new(m, "cpus", json_integer(sc->m.nr_cpus));
	json_object_set_new(m, "flush_engine", json_string(flush_engine_names[sc->m.engine]));
	json_object_set_new(j, "machine", m);
	for (int i = 0; i < NL_NR_TUNABLES; i++)
		json_object_set_new(t, nl_tunable_key(i), jcount(res->tun.have[i], (uint64_t)res->tun.value[i]));
	json_object_set_new(j, "tunables", t);
	for (int i = 0; i < NR_VM_EVENT_ITEMS; i++)
		json_object_set_new(v, vm_event_names[i], jcount(res->delta.have_vm[i], res->delta.vm[i]));
	json_object_set_new(j, "vmstat", v);
	json_object_set_new(irq, "tlb_shootdowns", jcount(res->delta.have_tlb, res->delta.tlb_irqs));
	json_object_set_new(j, "interrupts", irq);
	json_object_set_new(j, "stats", json_object());
	json_object_set_new(j, "throughput_ops_per_s", jreal(res->seconds > 0 ? res->ops / res->seconds : NAN));
	json_object_set_new(j, "cost_ns", json_object());
	json_object_set_new(j, "timeseries", timeseries(res));
	json_object_set_new(j, "real", real_json(r, o, res));
	return j;
}

int nl_write_json(json_t *j, const char *path, char *err, size_t errlen)
{
	return report_write_json(j, "--json", path, err, errlen); /* numasim's atomic output */
}
