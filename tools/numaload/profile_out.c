/* numaload profile's outputs: the JSON (every figure: median, spread,
 * trials, raw curve, and what was not measured and why) and the INI
 * fragment of [machine] and [costs] keys numasim accepts, each key after a
 * comment with its spread.  Both written atomically (lib/outfile.h). */
#include "profile.h"

#include <errno.h>
#include <string.h>

#include "lib/outfile.h"
#include "report/report.h"

static json_t *stat_json(const struct nl_stat *st, json_t *o)
{
	json_object_set_new(o, "median", json_real(st->median));
	json_object_set_new(o, "p10", json_real(st->p10));
	json_object_set_new(o, "p90", json_real(st->p90));
	json_object_set_new(o, "min", json_real(st->min));
	json_object_set_new(o, "max", json_real(st->max));
	json_object_set_new(o, "trials", json_integer(st->trials));
	return o;
}

static json_t *curve_json(const struct nl_curve *c)
{
	json_t *o = json_object(), *pts = json_array();
	json_object_set_new(o, "x", json_string(c->x_name));
	for (int i = 0; i < c->n; i++) {
		json_t *pt = json_object();
		json_object_set_new(pt, c->x_name, json_real(c->x[i]));
		json_array_append_new(pts, stat_json(&c->y[i], pt));
	}
	json_object_set_new(o, "points", pts);
	return o;
}

/* Whether figure @i goes into the INI. */
static bool written(const struct nl_profile *p, int i)
{
	return nl_fig_defs[i].key && p->fig[i].measured && p->fig[i].clean;
}

static json_t *figure_json(const struct nl_profile *p, int i)
{
	const struct nl_fig_def *d = &nl_fig_defs[i];
	const struct nl_figure *f = &p->fig[i];
	json_t *o = json_object();
	char key[96];
	snprintf(key, sizeof(key), "%s.%s", d->section ? d->section : "", d->key ? d->key : "");
	json_object_set_new(o, "key", d->key ? json_string(key) : json_null());
	json_object_set_new(o, "unit", json_string(d->unit));
	json_object_set_new(o, "measured", json_boolean(f->measured));
	json_object_set_new(o, "written", json_boolean(written(p, i)));
	if (f->measured) {
		stat_json(&f->st, o);
		json_object_set_new(o, "method", json_string(f->why));
	} else {
		json_object_set_new(o, "not_measured", json_string(f->why));
	}
	if (f->has_curve)
		json_object_set_new(o, "curve", curve_json(&f->curve));
	return o;
}

json_t *nl_profile_json(const struct nl_profile *p)
{
	json_t *j = json_object(), *cpus = json_array(), *figs = json_object();
	json_object_set_new(j, "tool", json_string("numaload profile"));
	json_object_set_new(j, "kernel", json_string(p->release));
	json_object_set_new(j, "arch", json_string(p->arch));
	json_object_set_new(j, "quick", json_boolean(p->quick));
	for (int i = 0; i < p->ncpus; i++)
		json_array_append_new(cpus, json_integer(p->cpus[i]));
	json_object_set_new(j, "cpus", cpus);
	json_object_set_new(j, "numa_nodes", json_integer(p->nodes));
	for (int i = 0; i < NR_NLF; i++)
		json_object_set_new(figs, nl_fig_defs[i].name, figure_json(p, i));
	json_object_set_new(j, "figures", figs);
	return j;
}

/* A section's written keys, each after its spread; no header when none is. */
static int ini_section(const struct nl_profile *p, FILE *f, const char *section)
{
	bool header = false;
	for (int i = 0; i < NR_NLF; i++) {
		const struct nl_stat *st = &p->fig[i].st;
		if (!written(p, i) || strcmp(nl_fig_defs[i].section, section))
			continue;
		if (!header)
			fprintf(f, "\n[%s]\n", section);
		header = true;
		fprintf(f, "; median of %d, p10-p90 %.10g-%.10g %s, min-max %.10g-%.10g\n",
			st->trials, st->p10, st->p90, nl_fig_defs[i].unit, st->min, st->max);
		fprintf(f, "%s = %.10g\n", nl_fig_defs[i].key, st->median);
	}
	return ferror(f) ? -1 : 0;
}

int nl_profile_ini(const struct nl_profile *p, FILE *f)
{
	fprintf(f, "; numasim [machine] and [costs] measured by 'numaload profile%s' on Linux %s "
		"%s, %d CPUs, %d NUMA node%s.\n; Apply with: numasim run SCENARIO --costs FILE\n",
		p->quick ? " --quick" : "", p->release, p->arch, p->ncpus, p->nodes,
		p->nodes == 1 ? "" : "s");
	for (int i = 0; i < NR_NLF; i++)
		if (nl_fig_defs[i].key && !written(p, i))
			fprintf(f, "; %s.%s not written: %s\n", nl_fig_defs[i].section,
				nl_fig_defs[i].key, p->fig[i].why);
	if (ini_section(p, f, "machine") || ini_section(p, f, "costs"))
		return -1;
	return 0;
}

int nl_profile_write(const struct nl_profile *p, const char *json_path, const char *ini_path,
		     char *err, size_t errlen)
{
	struct outfile o[2];
	int n = 0;
	if (json_path) {
		json_t *j = nl_profile_json(p);
		int rc = report_open_json(j, "--json", json_path, &o[n], err, errlen);
		json_decref(j);
		if (rc)
			return -1;
		n++;
	}
	if (ini_path) {
		if (outfile_open(&o[n], "--ini", ini_path, err, errlen))
			goto fail;
		n++;
		if (nl_profile_ini(p, o[n - 1].f)) {
			snprintf(err, errlen, "--ini: cannot write %s: %s", ini_path, strerror(errno));
			goto fail;
		}
	}
	return n ? outfile_commit_group(o, n, err, errlen) : 0;
fail:
	for (int i = 0; i < n; i++)
		outfile_discard(&o[i]);
	return -1;
}
