/* numasim compare A B of two directories, as mmtests' `compare-kernels.sh
 * --baseline A --compare B`: A's and B's results grouped into points (a
 * kernel and the grid values, the seeds as samples), each point of A
 * beside the same point of B, one mean row per metric:
 *
 *   Amean     tlb-irqs/s       59317.50 (   0.00%)    48292.50 *  18.59%*
 *
 * A directory is a sweep's (manifest.json: its grid keys and points) or
 * one of run results (every *.json in it; the grid keys are the scenario
 * keys whose values differ between its results).  A point is named by its
 * kernel and the values of the grid keys of either side, read from each
 * result's recorded scenario, and balancing on or off; the seed is what
 * varies inside a point.  Kernels match by name when the sides share one;
 * when they share none (a baseline sweep and a patched one) they pair in
 * order, A's first kernel with B's first.  The marker is Welch's t-test
 * at 95% over the seeds (docs/compare-and-plot.md). */
#include "cli/compare.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/sweep.h"
#include "lib/escape.h"
#include "lib/outfile.h"
#include "report/mmstat.h"

#define MAX_KEYS (2 * SWEEP_MAX_GRID + 16)
#define MAX_KERNELS 64
#define MAX_WANTED 32
#define LABEL_MAX 1024

/* A scenario key, where a result records it: "scenario": {section: {key: v}} */
struct gkey {
	char section[64], key[96];
	char shown[160]; /* the scenario key's name ("numa_balancing.scan_size_mb") */
};

struct item {
	char *match;        /* what pairs it with the other side: kernel and label */
	char *label;        /* the grid values and balancing */
	const char *kernel; /* this side's kernel */
	size_t pos;         /* in the side's order */
	const json_t *run;
};

struct group {
	struct item *first; /* its items are first .. first + n - 1 */
	size_t n;
	bool matched;
};

struct side {
	const char *path;
	char head[256];      /* the column heading */
	struct sweep_manifest man;
	json_t **res;        /* the results, in the sweep's or the file names' order */
	size_t nr, cap;
	struct gkey key[MAX_KEYS];
	int nr_keys;
	const char *kernel[MAX_KERNELS]; /* in order of first appearance */
	int nr_kernels;
	struct item *items;
	struct group *groups;
	size_t nr_groups;
};

struct dirs {
	struct side s[2];
	struct gkey key[MAX_KEYS]; /* both sides' grid keys, A's first */
	int nr_keys;
	bool paired;               /* kernels paired in order, not by name */
	const struct compare_metric *metric[MAX_WANTED];
	int nr_metrics;
};

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);
	if (!p) {
		fprintf(stderr, "numasim compare: out of memory\n");
		exit(1);
	}
	return p;
}

static char *xstrdup(const char *s)
{
	char *p = xcalloc(strlen(s) + 1, 1);
	return strcpy(p, s);
}

static void add_result(struct side *sd, json_t *doc)
{
	if (sd->nr == sd->cap) {
		sd->cap = sd->cap ? 2 * sd->cap : 64;
		sd->res = realloc(sd->res, sd->cap * sizeof(*sd->res));
		if (!sd->res) {
			fprintf(stderr, "numasim compare: out of memory\n");
			exit(1);
		}
	}
	sd->res[sd->nr++] = doc;
}

/* ---- reading a side ------------------------------------------------------- */

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_json_name(const char *name)
{
	size_t n = strlen(name);
	return name[0] != '.' && n > 5 && !strcmp(name + n - 5, ".json");
}

/* The *.json files of @dir, sorted by name (readdir's order is the file
 * system's: sorting makes the output the same everywhere). */
static char **json_names(const char *dir, size_t *nr)
{
	DIR *d = opendir(dir);
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	if (!d)
		return NULL;
	while ((e = readdir(d))) {
		if (!is_json_name(e->d_name))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			char **grown = realloc(names, cap * sizeof(*names));
			if (!grown) {
				fprintf(stderr, "numasim compare: out of memory\n");
				exit(1);
			}
			names = grown;
		}
		names[n++] = xstrdup(e->d_name);
	}
	closedir(d);
	if (!names)
		names = xcalloc(1, sizeof(*names)); /* none: an empty list, not a failure */
	qsort(names, n, sizeof(*names), cmp_names);
	*nr = n;
	return names;
}

/* A directory of run results: every *.json in it must be one. */
static int load_plain(struct side *sd)
{
	size_t n, i;
	char **names = json_names(sd->path, &n);
	int rc = 0;
	if (!names) {
		char err[OUTFILE_PATH_MAX + 128];
		snprintf(err, sizeof(err), "%s: cannot read the directory: %s", sd->path, strerror(errno));
		cli_error("numasim compare: ", err);
		return -1;
	}
	for (i = 0; i < n && !rc; i++) {
		char path[OUTFILE_PATH_MAX], err[OUTFILE_PATH_MAX + 1024];
		json_t *doc = NULL;
		snprintf(path, sizeof(path), "%s/%s", sd->path, names[i]);
		int kind = mmstat_load_result(path, &doc, err, sizeof(err));
		if (kind == MMSTAT_RESULT_AB)
			snprintf(err, sizeof(err), "%s: an ab result; two directories are compared by "
				 "their run results", path);
		if (kind != MMSTAT_RESULT_RUN) {
			json_decref(doc);
			cli_error("numasim compare: ", err);
			rc = -1;
		} else {
			add_result(sd, doc);
		}
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

/* A sweep's directory: its points' results, in the sweep's order. */
static int load_sweep(struct side *sd)
{
	char err[OUTFILE_PATH_MAX + 1024];
	if (sweep_manifest_load(sd->path, &sd->man, err, sizeof(err))) {
		cli_error("numasim compare: ", err);
		return -1;
	}
	size_t nr_points = json_array_size(sd->man.points);
	for (size_t k = 0; k < nr_points; k++) {
		const json_t *pt = json_array_get(sd->man.points, k);
		json_t *doc;
		int got = sweep_result_load(sd->path, json_string_value(json_object_get(pt, "id")), k, &doc,
					    err, sizeof(err));
		if (got < 0) {
			cli_error("numasim compare: ", err);
			return -1;
		}
		if (got)
			add_result(sd, doc);
	}
	if (sd->nr && sd->nr < nr_points) {
		fprintf(stderr, "numasim compare: ");
		fputs_escaped(sd->path, stderr);
		fprintf(stderr, ": %zu of %zu points have no result yet: left out\n", nr_points - sd->nr,
			nr_points);
	}
	return 0;
}

static int load_side(struct side *sd)
{
	char path[OUTFILE_PATH_MAX];
	struct stat st;
	snprintf(path, sizeof(path), "%s/manifest.json", sd->path);
	bool sweep = !(lstat(path, &st) && errno == ENOENT);
	if (sweep ? load_sweep(sd) : load_plain(sd))
		return -1;
	if (!sd->nr) {
		fprintf(stderr, "numasim compare: ");
		fputs_escaped(sd->path, stderr);
		fprintf(stderr, sweep ? ": no point of the sweep has a result yet (run the sweep first)\n"
				      : ": no results (neither a sweep's manifest.json nor any *.json "
					"run result)\n");
		return -1;
	}
	return 0;
}

/* ---- grid keys -------------------------------------------------------------- */

static bool has_key(const struct gkey *keys, int n, const char *section, const char *key)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(keys[i].section, section) && !strcmp(keys[i].key, key))
			return true;
	return false;
}

static void add_key(struct gkey *keys, int *n, const char *section, const char *key)
{
	if (*n >= MAX_KEYS || has_key(keys, *n, section, key) || strlen(section) >= sizeof(keys->section) ||
	    strlen(key) >= sizeof(keys->key))
		return;
	snprintf(keys[*n].section, sizeof(keys->section), "%s", section);
	snprintf(keys[*n].key, sizeof(keys->key), "%s", key);
	/* a [tunables] key is named by itself; others by section.key */
	if (scenario_key_index(key) >= 0)
		snprintf(keys[*n].shown, sizeof(keys->shown), "%s", key);
	else
		snprintf(keys[*n].shown, sizeof(keys->shown), "%s.%s", section, key);
	(*n)++;
}

/* A sweep's grid keys, where its results record them. */
static void sweep_keys(struct side *sd)
{
	for (int g = 0; g < sd->man.nr_grid; g++) {
		char name[160];
		int k = sd->man.grid_key[g];
		const char *shown = scenario_key_name(k, name, sizeof(name)), *sec = scenario_key_section(k);
		size_t n = strlen(sec);
		add_key(sd->key, &sd->nr_keys, sec, !strncmp(shown, sec, n) && shown[n] == '.' ? shown + n + 1 : shown);
	}
}

/* Not a grid key: what a comparison varies on purpose (mmstat's
 * scenario_diff skips the same). */
static bool key_skipped(const char *section, const char *key)
{
	return !strcmp(section, "kernel") || (!strcmp(section, "run") && !strcmp(key, "seed"));
}

/* A directory of results: the keys whose values are not the same in all. */
static void varying_keys(struct side *sd)
{
	const json_t *first = json_object_get(sd->res[0], "scenario");
	for (size_t i = 1; i < sd->nr; i++) {
		const json_t *sc = json_object_get(sd->res[i], "scenario");
		const char *section, *key;
		const json_t *sec, *v;
		json_object_foreach((json_t *)sc, section, sec) {
			if (!json_is_object(sec))
				continue; /* name, source, overrides */
			json_object_foreach((json_t *)sec, key, v) {
				const json_t *w = json_object_get(json_object_get(first, section), key);
				if (!key_skipped(section, key) && (!w || !json_equal(v, w)))
					add_key(sd->key, &sd->nr_keys, section, key);
			}
		}
	}
}

/* ---- kernels: by name, or paired in order ---------------------------------------- */

static int kernel_index(const struct side *sd, const char *kernel)
{
	for (int i = 0; i < sd->nr_kernels; i++)
		if (!strcmp(sd->kernel[i], kernel))
			return i;
	return -1;
}

static int list_kernels(struct side *sd)
{
	for (size_t i = 0; i < sd->nr; i++) {
		const char *k = json_string_value(json_object_get(sd->res[i], "kernel"));
		if (kernel_index(sd, k) >= 0)
			continue;
		if (sd->nr_kernels == MAX_KERNELS) {
			fprintf(stderr, "numasim compare: at most %d kernels in a directory\n", MAX_KERNELS);
			return -1;
		}
		sd->kernel[sd->nr_kernels++] = k;
	}
	return 0;
}

static void print_kernels(const struct side *sd, FILE *f)
{
	for (int i = 0; i < sd->nr_kernels; i++)
		fprintf(f, "%s%s", i ? ", " : "", sd->kernel[i]); /* checked names (mmstat) */
}

/* By name when a kernel is on both sides; else in order when both have as
 * many; else there is no natural pairing. */
static int match_kernels(struct dirs *d)
{
	struct side *a = &d->s[0], *b = &d->s[1];
	for (int i = 0; i < a->nr_kernels; i++)
		if (kernel_index(b, a->kernel[i]) >= 0)
			return 0;
	if (a->nr_kernels == b->nr_kernels) {
		d->paired = true;
		return 0;
	}
	fprintf(stderr, "numasim compare: the directories share no kernel and cannot be paired in order: ");
	fputs_escaped(a->path, stderr);
	fprintf(stderr, " has %d (", a->nr_kernels);
	print_kernels(a, stderr);
	fprintf(stderr, "), ");
	fputs_escaped(b->path, stderr);
	fprintf(stderr, " %d (", b->nr_kernels);
	print_kernels(b, stderr);
	fprintf(stderr, ")\n");
	return -1;
}

/* ---- points ------------------------------------------------------------------------ */

static void value_text(const json_t *v, char *buf, size_t len)
{
	if (!v) {
		snprintf(buf, len, "(none)");
	} else if (json_is_string(v)) {
		snprintf(buf, len, "%s", json_string_value(v));
	} else if (json_is_integer(v)) {
		snprintf(buf, len, "%lld", (long long)json_integer_value(v));
	} else if (json_is_real(v)) {
		snprintf(buf, len, "%.10g", json_real_value(v));
	} else {
		char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
		snprintf(buf, len, "%s", s ? s : "?");
		free(s);
	}
}

/* "numa_balancing.scan_size_mb=64, balancing on" */
static void point_label(const struct dirs *d, const json_t *run, char *buf, size_t len)
{
	const json_t *sc = json_object_get(run, "scenario");
	size_t o = 0;
	for (int g = 0; g < d->nr_keys && o < len; g++) {
		char val[SWEEP_VALUE_MAX];
		value_text(json_object_get(json_object_get(sc, d->key[g].section), d->key[g].key), val, sizeof(val));
		o += (size_t)snprintf(buf + o, len - o, "%s=%s, ", d->key[g].shown, val);
	}
	const json_t *nb = json_object_get(json_object_get(run, "tunables"), "kernel.numa_balancing");
	if (o < len)
		snprintf(buf + o, len - o, "balancing %s", json_is_integer(nb) && !json_integer_value(nb) ? "off" : "on");
}

static int cmp_items(const void *x, const void *y)
{
	const struct item *a = x, *b = y;
	int c = strcmp(a->match, b->match);
	return c ? c : (a->pos > b->pos) - (a->pos < b->pos);
}

static int cmp_groups_pos(const void *x, const void *y)
{
	const struct group *a = x, *b = y;
	return (a->first->pos > b->first->pos) - (a->first->pos < b->first->pos);
}

/* Group side @s's results into points: its items sorted by what they
 * match on (then by position: the seeds in order), one group per run of
 * equal keys, the groups in order of their first result. */
static void group_side(struct dirs *d, int s)
{
	struct side *sd = &d->s[s];
	sd->items = xcalloc(sd->nr, sizeof(*sd->items));
	sd->groups = xcalloc(sd->nr, sizeof(*sd->groups));
	for (size_t i = 0; i < sd->nr; i++) {
		struct item *it = &sd->items[i];
		char label[LABEL_MAX], match[LABEL_MAX + 128];
		it->run = sd->res[i];
		it->pos = i;
		it->kernel = json_string_value(json_object_get(it->run, "kernel"));
		point_label(d, it->run, label, sizeof(label));
		/* paired kernels match by their place in the side's list */
		if (d->paired)
			snprintf(match, sizeof(match), "%d\n%s", kernel_index(sd, it->kernel), label);
		else
			snprintf(match, sizeof(match), "%s\n%s", it->kernel, label);
		it->label = xstrdup(label);
		it->match = xstrdup(match);
	}
	qsort(sd->items, sd->nr, sizeof(*sd->items), cmp_items);
	for (size_t i = 0; i < sd->nr; i++) {
		if (i && !strcmp(sd->items[i].match, sd->items[i - 1].match)) {
			sd->groups[sd->nr_groups - 1].n++;
			continue;
		}
		sd->groups[sd->nr_groups++] = (struct group){ .first = &sd->items[i], .n = 1 };
	}
}

/* B's group matching A's group @g (B's groups are in key order), or NULL. */
static struct group *find_match(struct side *b, const struct group *g)
{
	size_t lo = 0, hi = b->nr_groups;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(b->groups[mid].first->match, g->first->match);
		if (!c)
			return &b->groups[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* ---- printing ------------------------------------------------------------------------ */

#define STAT_WIDTH 9 /* as cli/compare.c: mmtests' layout */
#define PCT_WIDTH 7

struct row {
	double mean[2];
	size_t n[2];
	double pct;
	int sig; /* mmstat_welch: 1, 0, -1 (no test) */
};

static size_t group_samples(const struct compare_metric *m, const struct group *g, double *v)
{
	size_t n = 0;
	for (size_t i = 0; i < g->n; i++) {
		double x = compare_run_value(m, g->first[i].run);
		if (!isnan(x))
			v[n++] = x * m->scale;
	}
	return n;
}

static void compute_row(const struct compare_metric *m, const struct group *ga, const struct group *gb,
			struct row *r)
{
	const struct group *g[2] = { ga, gb };
	double sd[2], amean[2], t, df;
	for (int s = 0; s < 2; s++) {
		double *v = xcalloc(g[s]->n, sizeof(*v));
		size_t n = group_samples(m, g[s], v);
		r->n[s] = n;
		amean[s] = mmstat_mean(v, n);
		r->mean[s] = m->higher_better ? mmstat_hmean(v, n) : amean[s];
		sd[s] = mmstat_stddev(v, n);
		free(v);
	}
	r->pct = NAN;
	if (!isnan(r->mean[0]) && !isnan(r->mean[1]))
		r->pct = m->higher_better ? mmstat_pdiff(r->mean[1], r->mean[0]) : mmstat_pndiff(r->mean[1], r->mean[0]);
	r->sig = mmstat_welch(amean[0], sd[0], r->n[0], amean[1], sd[1], r->n[1], &t, &df);
}

static void print_cell(double x, double pct, bool sig, int width)
{
	char open = sig ? '*' : '(', close = sig ? '*' : ')';
	if (isnan(x))
		printf("%*s", width - (PCT_WIDTH + 4), "n/a");
	else
		printf("%*.2f", width - (PCT_WIDTH + 4), x == 0 ? 0.0 : x); /* no "-0.00" */
	if (isnan(pct))
		printf(" %c%*s%c", open, PCT_WIDTH + 1, "n/a", close);
	else
		printf(" %c%*.2f%%%c", open, PCT_WIDTH, pct == 0 ? 0.0 : pct, close);
}

static int name_width(const struct dirs *d)
{
	int w = 0;
	for (int i = 0; i < d->nr_metrics; i++)
		if ((int)strlen(d->metric[i]->name) > w)
			w = (int)strlen(d->metric[i]->name);
	return w;
}

/* "v7.3, numa_balancing.scan_size_mb=64, balancing on: 2 vs 2 seeds" */
static void print_point(const struct dirs *d, const struct group *ga, const struct group *gb)
{
	char shown[2 * LABEL_MAX];
	fputs_escaped(ga->first->kernel, stdout);
	if (d->paired) {
		printf(" vs ");
		fputs_escaped(gb->first->kernel, stdout);
	}
	term_escape(ga->first->label, shown, sizeof(shown));
	printf(", %s: %zu vs %zu seed%s", shown, ga->n, gb->n, gb->n == 1 ? "" : "s");
	if (ga->n < 2 || gb->n < 2)
		printf(", too few for a t-test (it needs 2 a side)");
	printf("\n");
}

static void print_block(const struct dirs *d, const struct group *ga, const struct group *gb)
{
	struct row r[MAX_WANTED];
	int width = 23, nw = name_width(d);
	for (int s = 0; s < 2; s++)
		if ((int)strlen(d->s[s].head) + 2 > width)
			width = (int)strlen(d->s[s].head) + 2;
	for (int m = 0; m < d->nr_metrics; m++) {
		compute_row(d->metric[m], ga, gb, &r[m]);
		for (int s = 0; s < 2; s++) {
			char buf[64];
			int l = snprintf(buf, sizeof(buf), "%.2f", r[m].mean[s]);
			if (l + 1 + PCT_WIDTH + 4 > width)
				width = l + 1 + PCT_WIDTH + 4;
		}
	}
	print_point(d, ga, gb);
	printf("%*s%*s%*s\n", STAT_WIDTH + 1 + nw, "", width, d->s[0].head, width, d->s[1].head);
	for (int m = 0; m < d->nr_metrics; m++) {
		const struct compare_metric *mt = d->metric[m];
		printf("%-*s %-*s", STAT_WIDTH, mt->higher_better ? "Hmean" : "Amean", nw, mt->name);
		print_cell(r[m].mean[0], isnan(r[m].mean[0]) ? NAN : 0, false, width);
		print_cell(r[m].mean[1], r[m].pct, r[m].sig == 1, width);
		printf("\n");
	}
}

static void print_only(const struct side *sd, const struct group *g)
{
	char shown[2 * LABEL_MAX];
	printf("only in ");
	fputs_escaped(sd->path, stdout);
	printf(": ");
	fputs_escaped(g->first->kernel, stdout);
	term_escape(g->first->label, shown, sizeof(shown));
	printf(", %s (%zu seed%s)\n", shown, g->n, g->n == 1 ? "" : "s");
}

/* @ga, @gb: the first point on both sides (NULL if none) */
static void print_title(const struct dirs *d, const struct group *ga, const struct group *gb)
{
	printf("numasim compare: ");
	fputs_escaped(d->s[0].path, stdout);
	printf(" (%s) vs ", mmstat_scenario_name(d->s[0].res[0]));
	fputs_escaped(d->s[1].path, stdout);
	printf(" (%s); samples: one per seed (the mean over each run's simulated seconds after the first; "
	       "throughput: the run's)\n", mmstat_scenario_name(d->s[1].res[0]));
	if (d->paired) {
		printf("kernels: paired in order, none being on both sides: ");
		for (int i = 0; i < d->s[0].nr_kernels; i++) {
			printf("%s", i ? ", " : "");
			fputs_escaped(d->s[0].kernel[i], stdout);
			printf(" with ");
			fputs_escaped(d->s[1].kernel[i], stdout);
		}
		printf("\n");
	} else {
		printf("kernels: matched by name\n");
	}
	/* what differs apart from the kernel and the seed, in a matched point */
	char diff[1024];
	if (ga && mmstat_scenario_diff(ga->first->run, gb->first->run, diff, sizeof(diff), false) > 0) {
		printf("note: ");
		fputs_escaped(d->s[1].path, stdout);
		printf(" ran a different scenario from ");
		fputs_escaped(d->s[0].path, stdout);
		printf(": %s\n", diff); /* escaped by mmstat */
	}
	printf("significance: *x.xx%%* marks a difference of the means at 95%% (Welch's two-sample "
	       "t-test over the seeds, two-sided)\n");
}

static int report(struct dirs *d)
{
	struct side *a = &d->s[0], *b = &d->s[1];
	struct group *first_a = NULL, *first_b = NULL;
	int blocks = 0;
	/* A's points in A's order; B's in key order, to find them */
	qsort(a->groups, a->nr_groups, sizeof(*a->groups), cmp_groups_pos);
	for (size_t i = 0; i < a->nr_groups && !first_b; i++)
		if ((first_b = find_match(b, &a->groups[i])))
			first_a = &a->groups[i];
	print_title(d, first_a, first_b);
	for (size_t i = 0; i < a->nr_groups; i++) {
		struct group *g = find_match(b, &a->groups[i]);
		if (!g)
			continue;
		g->matched = a->groups[i].matched = true;
		printf("\n");
		print_block(d, &a->groups[i], g);
		blocks++;
	}
	qsort(b->groups, b->nr_groups, sizeof(*b->groups), cmp_groups_pos);
	bool gap = true;
	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < d->s[s].nr_groups; i++)
			if (!d->s[s].groups[i].matched) {
				if (gap)
					printf("\n");
				gap = false;
				print_only(&d->s[s], &d->s[s].groups[i]);
			}
	if (!blocks)
		fprintf(stderr, "numasim compare: warning: no point is in both directories\n");
	return fflush(stdout) ? 1 : 0;
}

/* ---- the command ------------------------------------------------------------------------ */

static int pick_metrics(struct dirs *d, char **wanted, int nr_wanted)
{
	if (!nr_wanted) {
		for (size_t i = 0; compare_run_metric(i) && d->nr_metrics < MAX_WANTED; i++)
			d->metric[d->nr_metrics++] = compare_run_metric(i);
		return 0;
	}
	for (int w = 0; w < nr_wanted; w++) {
		char *save = NULL;
		for (char *tok = strtok_r(wanted[w], ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			const struct compare_metric *m = compare_find_run_metric(tok);
			bool dup = false;
			if (!m) {
				fprintf(stderr, "numasim compare: unknown metric '%s' for run results\n"
					"Try 'numasim compare --help'.\n", tok);
				return -1;
			}
			for (int i = 0; i < d->nr_metrics; i++)
				dup |= d->metric[i] == m;
			if (!dup && d->nr_metrics < MAX_WANTED)
				d->metric[d->nr_metrics++] = m;
		}
	}
	return 0;
}

/* The column headings: the paths as given (without a trailing '/'). */
static void name_heads(struct dirs *d)
{
	for (int s = 0; s < 2; s++) {
		char raw[sizeof(d->s[s].head)];
		snprintf(raw, sizeof(raw), "%s", d->s[s].path);
		size_t n = strlen(raw);
		while (n > 1 && raw[n - 1] == '/')
			raw[--n] = '\0';
		term_escape(raw, d->s[s].head, sizeof(d->s[s].head));
	}
	if (!strcmp(d->s[0].head, d->s[1].head))
		for (int s = 0; s < 2; s++) {
			size_t n = strlen(d->s[s].head);
			snprintf(d->s[s].head + (n < sizeof(d->s[s].head) - 5 ? n : sizeof(d->s[s].head) - 5), 5,
				 " (%c)", s ? 'B' : 'A');
		}
}

static void free_side(struct side *sd)
{
	for (size_t i = 0; i < sd->nr; i++)
		json_decref(sd->res[i]);
	for (size_t i = 0; sd->items && i < sd->nr; i++) {
		free(sd->items[i].match);
		free(sd->items[i].label);
	}
	free(sd->res);
	free(sd->items);
	free(sd->groups);
	json_decref(sd->man.doc);
}

static int prepare(struct dirs *d, char **wanted, int nr_wanted)
{
	if (pick_metrics(d, wanted, nr_wanted))
		return -1;
	for (int s = 0; s < 2; s++) {
		struct side *sd = &d->s[s];
		if (load_side(sd) || list_kernels(sd))
			return -1;
		if (sd->man.doc)
			sweep_keys(sd);
		else
			varying_keys(sd);
		for (int k = 0; k < sd->nr_keys; k++)
			add_key(d->key, &d->nr_keys, sd->key[k].section, sd->key[k].key);
	}
	if (match_kernels(d))
		return -1;
	for (int s = 0; s < 2; s++)
		group_side(d, s);
	name_heads(d);
	return 0;
}

int compare_dirs(const char *a, const char *b, char **wanted, int nr_wanted)
{
	struct dirs *d = xcalloc(1, sizeof(*d));
	d->s[0].path = a;
	d->s[1].path = b;
	int rc = prepare(d, wanted, nr_wanted) ? EXIT_INPUT : report(d);
	for (int s = 0; s < 2; s++)
		free_side(&d->s[s]);
	free(d);
	return rc;
}
