/* numasim validate --realcheck DIR: the rows of a make realcheck result
 * directory (scripts/realcheck.sh --out DIR): for each kernel series with
 * a guest's result (real-SERIES.json) and numasim's run at the guest's
 * measured costs (sim-guest-costs-SERIES.json), every compared figure of
 * report/realfig.h, "in" within a factor of 1.5; with both 6.1 and 6.12,
 * the ratio of their TLB shootdowns per migrated page too. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/validate.h"
#include "report/mmstat.h"
#include "report/realfig.h"

#define NR_SERIES 2
static const char *const series[NR_SERIES] = { "6.1", "6.12" };

static json_t *load(const char *dir, const char *what, const char *s, char *err, size_t errlen)
{
	char path[4096];
	json_t *d = NULL;
	snprintf(path, sizeof(path), "%s/%s-%s.json", dir, what, s);
	if (mmstat_load_result(path, &d, err, errlen) != MMSTAT_RESULT_RUN) {
		if (d)
			snprintf(err, errlen, "%s: expected a run result", path);
		json_decref(d);
		return NULL;
	}
	return d;
}

static void add_row(struct realcheck_rows *r, const char *label, const char *key, const char *s,
		    double real, double model, enum realfig_verdict v, double q)
{
	if (r->n == REALCHECK_MAX_ROWS)
		return;
	struct realcheck_row *w = &r->rows[r->n++];
	snprintf(w->label, sizeof(w->label), "%s", label);
	snprintf(w->key, sizeof(w->key), "%s", key);
	snprintf(w->series, sizeof(w->series), "%s", s);
	w->real = real;
	w->model = model;
	w->ratio = q;
	w->in = v == RFV_IN || v == RFV_BOTH_ZERO;
	r->miss += !w->in;
}

int realcheck_rows_load(const char *dir, struct realcheck_rows *r, char *err, size_t errlen)
{
	double per_migr[NR_SERIES][2]; /* [series][real, model] */
	int have = 0;
	memset(r, 0, sizeof(*r));
	for (int i = 0; i < NR_SERIES; i++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/real-%s.json", dir, series[i]);
		FILE *probe = fopen(path, "r");
		per_migr[i][0] = per_migr[i][1] = NAN;
		if (!probe)
			continue; /* this series was not run */
		fclose(probe);
		json_t *real = load(dir, "real", series[i], err, errlen), *sim = NULL;
		if (real)
			sim = load(dir, "sim-guest-costs", series[i], err, errlen);
		if (!real || !sim) {
			json_decref(real);
			return -1;
		}
		double rc_cpus = realfig_machine(real, "cpus"), sim_cpus = realfig_machine(sim, "cpus");
		if (rc_cpus != sim_cpus || realfig_machine(real, "nodes") != realfig_machine(sim, "nodes")) {
			snprintf(err, errlen, "%s: real-%s.json ran on %.0f CPUs, sim-guest-costs-%s.json "
				 "simulated %.0f: the counts do not compare", dir, series[i], rc_cpus,
				 series[i], sim_cpus);
			json_decref(real);
			json_decref(sim);
			return -1;
		}
		for (int f = 0; f < NR_REALFIGS; f++) {
			double a = realfig_value(real, true, (enum realfig)f);
			double b = realfig_value(sim, false, (enum realfig)f), q;
			enum realfig_verdict v = realfig_judge((enum realfig)f, a, b, &q);
			if (v == RFV_SHOWN || v == RFV_NA)
				continue;
			add_row(r, realfigs[f].name, realfigs[f].key, series[i], a, b, v, q);
		}
		per_migr[i][0] = realfig_value(real, true, RF_TLB_PER_MIGR);
		per_migr[i][1] = realfig_value(sim, false, RF_TLB_PER_MIGR);
		have++;
		json_decref(real);
		json_decref(sim);
	}
	if (!have) {
		snprintf(err, errlen, "%s: no real-6.1.json or real-6.12.json (a make realcheck result "
			 "directory, scripts/realcheck.sh --out DIR)", dir);
		return -1;
	}
	double a = per_migr[1][0] / per_migr[0][0], b = per_migr[1][1] / per_migr[0][1];
	if (!isnan(a) && !isnan(b) && !isinf(a) && !isinf(b)) {
		double q = a > 0 ? b / a : NAN;
		bool in = q <= REALFIG_AGREE && q >= 1 / REALFIG_AGREE;
		add_row(r, "TLB shootdowns per migrated page, 6.12 / 6.1", "tlb_per_migrated_6_12_over_6_1",
			"both", a, b, in ? RFV_IN : RFV_MISS, q);
	}
	return 0;
}

void realcheck_rows_print(const struct realcheck_rows *r, const char *dir)
{
	printf("\nmake realcheck (%s): the guest against numasim at the guest's measured costs\n\n", dir);
	printf("%-46s %-6s %13s %13s %9s  %s\n", "figure", "series", "real", "numasim", "ratio", "verdict (0.67-1.5x)");
	for (int i = 0; i < r->n; i++) {
		const struct realcheck_row *w = &r->rows[i];
		char q[32] = "";
		if (!isnan(w->ratio))
			snprintf(q, sizeof(q), "%.2f", w->ratio);
		printf("%-46s %-6s %13.6g %13.6g %9s  %s\n", w->label, w->series, w->real, w->model, q,
		       w->in ? "in" : "miss");
	}
	printf("\n%d rows: %d in, %d miss (docs/realcheck.md says what each miss comes from)\n", r->n,
	       r->n - r->miss, r->miss);
}

json_t *realcheck_rows_json(const struct realcheck_rows *r)
{
	json_t *a = json_array();
	for (int i = 0; i < r->n; i++) {
		const struct realcheck_row *w = &r->rows[i];
		json_t *o = json_object();
		json_object_set_new(o, "figure", json_string(w->key));
		json_object_set_new(o, "label", json_string(w->label));
		json_object_set_new(o, "series", json_string(w->series));
		json_object_set_new(o, "real", json_real(w->real));
		json_object_set_new(o, "model", json_real(w->model));
		json_object_set_new(o, "ratio", isnan(w->ratio) ? json_null() : json_real(w->ratio));
		json_object_set_new(o, "verdict", json_string(w->in ? "in" : "miss"));
		json_array_append_new(a, o);
	}
	return a;
}
