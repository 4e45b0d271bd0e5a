/* numasim ab: the A/B methodology of the published measurement (the
 * runner is cli/ab_run.c): for each kernel, N pairs of runs, balancing on
 * vs off on the same seed, and kernels compared with each other, run by
 * run on the same seeds, as a patch is judged.  This file prints the table
 * (the seed's with the published figures and their verdicts) and the JSON,
 * and reads the arguments. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/version.h"
#include "cli/ab.h"
#include "cli/cli.h"
#include "report/figures.h"
#include "report/published.h"
#include "report/report.h"

const char ab_usage[] =
	"usage: numasim ab SCENARIO|FILE --kernels A,B[,...] [OPTIONS]\n"
	"\n"
	"For each kernel, run N pairs (balancing on vs off, the same seed within a\n"
	"pair, seeds SEED..SEED+N-1 across pairs) and print the seed table's\n"
	"figures as min-max over the pairs, the instrumentation figures and where\n"
	"the balancing cycles went; then each kernel against the first, seed by\n"
	"seed.  Kernels that differ only where balancing goes share their\n"
	"balancing-off runs.  A fixed-work scenario (workload.work_mops) reports\n"
	"elapsed time, a timed one throughput.\n"
	"\n"
	"options:\n"
	"  --kernels A,B       kernels to compare (at most 8)\n"
	"  --pairs N           pairs per kernel (default 3)\n"
	"  --balancing MODE    both (default): pairs on vs off; on or off: only\n"
	"                      runs with balancing on (off), kernels against\n"
	"                      each other (e.g. migration calls, balancing off)\n"
	"  --duration S        simulated seconds per run (the most, for fixed work)\n"
	"  --seed N            seed of the first pair\n"
	"  --exact             every hint fault one by one (see 'numasim run --help')\n"
	"  --set KEY=VALUE     any scenario key (see 'numasim run --help')\n"
	"  --jobs N            runs at a time (default: online CPUs); results do not\n"
	"                      depend on it\n"
	"  --json FILE         per-pair values as JSON ('-': on standard output,\n"
	"                      instead of the table)\n"
	"  -q, --quiet         no progress line, no wall time\n"
	"  -h, --help          this text\n";

static const char *const ab_mode_names[] = { "both", "on", "off" };

static bool any_fixed_work(const struct ab *ab)
{
	return ab->base.w.work_mops > 0;
}

static bool any_calls(const struct ab *ab)
{
	return ab->base.w.migrate_call != MCALL_NONE;
}

/* Whether the table prints figure f. */
static bool figure_shown(const struct ab *ab, enum ab_figure f)
{
	if (ab_figures[f].pair && ab->mode != AB_BOTH)
		return false;
	if (f == FIG_ELAPSED || f == FIG_ELAPSED_OFF)
		return any_fixed_work(ab);
	if (f == FIG_CALL_RATE)
		return any_calls(ab);
	if (f >= FIG_PROMOTED_PER_S && f <= FIG_IRQ_PER_PROMOTED) /* memory tiering's */
		return ab->base.m.nr_memory_nodes > 0 && ab->mode != AB_OFF;
	if (f >= FIG_CONVERGED && f <= FIG_NUMA_SWAPS) /* balancing's own outcome */
		return ab->mode != AB_OFF;
	return true;
}

/* ---- the table -------------------------------------------------------- */

/* The published figures apply: the seed, both runs of each pair (as the
 * table's published column). */
static bool seed_published(const struct ab *ab)
{
	return !strcmp(ab->base.name, "seed") && ab->mode == AB_BOTH;
}

/* The published column's cell for @f, "v7.3 | +v2" with "-" where the
 * series gave nothing for a kernel; NULL when it gave nothing for @f. */
static const char *published_cell(enum ab_figure f, char *buf, size_t len)
{
	char r[NR_PUBLISHED_KERNELS][48];
	bool any = false;
	for (int c = 0; c < NR_PUBLISHED_KERNELS; c++) {
		const struct published *p = published_find(f, published_kernels[c]);
		snprintf(r[c], sizeof(r[c]), "-");
		if (p)
			published_format(p, r[c], sizeof(r[c]));
		any |= p != NULL;
	}
	if (!any)
		return NULL;
	snprintf(buf, len, "%s | %s", r[0], r[1]);
	return buf;
}

/* The verdict column's cell for @f, beside the published one: "in" or
 * "miss" for each published kernel the run has, blank for one it lacks or
 * that has no published value for @f.  False when both are blank. */
static bool verdict_cell(struct ab *ab, enum ab_figure f, char *buf, size_t len)
{
	const char *v[NR_PUBLISHED_KERNELS] = { "", "" };
	for (int k = 0; k < ab->nr_kernels; k++) {
		const struct published *p = published_find(f, ab->kernels[k]);
		double lo, hi;
		for (int c = 0; p && c < NR_PUBLISHED_KERNELS; c++)
			if (!strcmp(p->kernel, published_kernels[c]))
				v[c] = ab_figure_range(ab, f, k, &lo, &hi) && published_in(p, lo, hi) ? "in" : "miss";
	}
	snprintf(buf, len, "%-4s | %s", v[0], v[1]);
	for (size_t n = strlen(buf); n && buf[n - 1] == ' '; n--) /* no trailing blank */
		buf[n - 1] = '\0';
	return *v[0] || *v[1];
}

static void print_row(struct ab *ab, enum ab_figure f, bool show_published)
{
	const struct ab_figure_def *d = &ab_figures[f];
	printf("%-42s", d->label);
	for (int k = 0; k < ab->nr_kernels; k++) {
		double lo, hi;
		int seen = ab_figure_range(ab, f, k, &lo, &hi);
		char buf[64];
		if (!seen)
			snprintf(buf, sizeof(buf), "%s", f == FIG_CONVERGED ? "never" : "-");
		else
			ab_figure_format(buf, sizeof(buf), f, lo, hi);
		if (seen && seen < ab->pairs) {
			size_t len = strlen(buf);
			snprintf(buf + len, sizeof(buf) - len, " (%d %s)", ab->pairs - seen,
				 f == FIG_CONVERGED ? "never" : "none");
		}
		printf(" %-22s", buf);
	}
	char cell[112], verdict[32];
	const char *pub = show_published ? published_cell(f, cell, sizeof(cell)) : NULL;
	if (pub && verdict_cell(ab, f, verdict, sizeof(verdict)))
		printf(" %-24s %s", pub, verdict);
	else if (pub)
		printf(" %s", pub);
	printf("\n");
}

static void print_breakdown(struct ab *ab)
{
	printf("\nwhere the balancing time went (on - off, %% of all CPU time, mean of pairs)\n");
	printf("%-42s", "");
	for (int k = 0; k < ab->nr_kernels; k++)
		printf(" %-22s", ab->kernels[k]);
	printf("\n");
	for (int c = 0; c <= NR_COST_CAUSES; c++) {
		printf("%-42s", c < NR_COST_CAUSES ? cost_cause_names[c] : "remote_access (user)");
		for (int k = 0; k < ab->nr_kernels; k++) {
			double sum = 0;
			for (int p = 0; p < ab->pairs; p++) {
				const struct run_result *on = &ab_job_of(ab, k, p, true)->res;
				const struct run_result *off = &ab_job_of(ab, k, p, false)->res;
				double d = c < NR_COST_CAUSES ? on->cost_ns[c] - off->cost_ns[c]
							      : on->remote_ns - off->remote_ns;
				sum += d / ((double)on->nr_cpus * on->sim_s * 1e9);
			}
			printf(" %-22.3f", 100 * sum / ab->pairs);
		}
		printf("\n");
	}
}

/* ---- kernel against kernel -------------------------------------------- */

enum versus { VS_THROUGHPUT, VS_ELAPSED, VS_TLB_IRQS, VS_CALL_RATE, NR_VERSUS };

static const struct {
	const char *key, *label;
	bool percent;         /* a change in %, else a ratio */
} versus_defs[NR_VERSUS] = {
	[VS_THROUGHPUT] = { "throughput_change", "throughput", true },
	[VS_ELAPSED] = { "elapsed_change", "elapsed time", true },
	[VS_TLB_IRQS] = { "tlb_irqs_ratio", "TLB interrupts (ratio)", false },
	[VS_CALL_RATE] = { "call_rate_ratio", "migration calls' pages per s (ratio)", false },
};

static bool versus_shown(const struct ab *ab, enum versus v)
{
	if (v == VS_ELAPSED)
		return any_fixed_work(ab);
	if (v == VS_CALL_RATE)
		return any_calls(ab);
	return true;
}

/* Kernel k against the first kernel on the seed of pair p; NAN where the
 * first kernel's figure is 0 (no ratio). */
static double versus_value(struct ab *ab, enum versus v, int k, int p)
{
	const struct run_result *a = ab_main_run(ab, 0, p), *b = ab_main_run(ab, k, p);
	double ta = a->sim_s > 0 ? a->ops / a->sim_s : 0, tb = b->sim_s > 0 ? b->ops / b->sim_s : 0;
	switch (v) {
	case VS_THROUGHPUT:
		return ta > 0 ? tb / ta - 1 : NAN;
	case VS_ELAPSED:
		return a->sim_s > 0 ? b->sim_s / a->sim_s - 1 : NAN;
	case VS_TLB_IRQS:
		return a->tlb_irqs ? (double)b->tlb_irqs / (double)a->tlb_irqs : NAN;
	case VS_CALL_RATE:
		return a->call_pages > 0 && b->call_s > 0 ? (b->call_pages / b->call_s) / (a->call_pages / a->call_s)
							  : NAN;
	default:
		return NAN;
	}
}

static void print_versus(struct ab *ab)
{
	printf("\neach kernel against %s, balancing %s, seed by seed (min-max)\n", ab->kernels[0],
	       ab->mode == AB_OFF ? "off" : "on");
	for (int v = 0; v < NR_VERSUS; v++) {
		if (!versus_shown(ab, (enum versus)v))
			continue;
		printf("%-42s %-22s", versus_defs[v].label, "-");
		for (int k = 1; k < ab->nr_kernels; k++) {
			double lo = 0, hi = 0;
			bool none = false;
			for (int p = 0; p < ab->pairs; p++) {
				double x = versus_value(ab, (enum versus)v, k, p);
				none |= isnan(x);
				lo = !p || x < lo ? x : lo;
				hi = !p || x > hi ? x : hi;
			}
			char buf[64];
			if (none)
				snprintf(buf, sizeof(buf), "- (no figure to compare)");
			else if (versus_defs[v].percent)
				snprintf(buf, sizeof(buf), "%+.1f%%..%+.1f%%", 100 * lo, 100 * hi);
			else
				snprintf(buf, sizeof(buf), "%.2f-%.2fx", lo, hi);
			printf(" %-22s", buf);
		}
		printf("\n");
	}
}

/* Runs whose work did not finish: their elapsed time is the run's limit. */
static int unfinished_runs(struct ab *ab)
{
	int n = 0;
	for (int i = 0; i < ab->nr_todo; i++) {
		const struct run_result *r = &ab->job[ab->todo[i]].res;
		n += r->fixed_work && !r->finished;
	}
	return n;
}

static void print_table(struct ab *ab)
{
	bool seed = seed_published(ab);
	unsigned long long s0 = (unsigned long long)ab->seed0, s1 = s0 + (unsigned long long)ab->pairs - 1;
	if (ab->mode == AB_BOTH)
		printf("numasim ab: %s, %d pair%s of %g s per kernel (balancing on vs off, seed %llu..%llu)\n",
		       ab->base.name, ab->pairs, ab->pairs > 1 ? "s" : "", ab->base.duration_s, s0, s1);
	else
		printf("numasim ab: %s, %d run%s of %g s per kernel (balancing %s, seed %llu..%llu)\n",
		       ab->base.name, ab->pairs, ab->pairs > 1 ? "s" : "", ab->base.duration_s,
		       ab->mode == AB_ON ? "on" : "off", s0, s1);
	for (int k = 0; k < ab->nr_kernels; k++)
		if (ab->mode == AB_BOTH && ab->off_of[k] != k)
			printf("%s shares the balancing-off runs of %s\n", ab->kernels[k], ab->kernels[ab->off_of[k]]);
	for (int k = 0; k < ab->nr_kernels; k++) {
		int n = 0;
		for (int p = 0; ab->mode != AB_ON && ab->reuse_of[k] >= 0 && p < ab->pairs; p++)
			n += ab->job[ab_job_index(ab, k, p, false)].reused;
		if (n)
			printf("%s reuses %d of %d balancing-off runs of %s (they never reached the "
			       "switches the kernels differ in)\n", ab->kernels[k], n, ab->pairs,
			       ab->kernels[ab->reuse_of[k]]);
	}
	int n = unfinished_runs(ab);
	if (n)
		printf("%d run%s did not finish the work in %g s: elapsed times are lower bounds\n", n,
		       n > 1 ? "s" : "", ab->base.duration_s);
	printf("\n%-42s", ab->mode == AB_BOTH ? "figure (min-max over pairs)" : "figure (min-max over runs)");
	for (int k = 0; k < ab->nr_kernels; k++)
		printf(" %-22s", ab->kernels[k]);
	if (seed)
		printf(" %-24s verdict v7.3 | +v2", "published v7.3 | +v2");
	printf("\n");
	for (int f = 0; f < NR_AB_FIGURES; f++) {
		if (f == FIG_REFILL_CYCLES)
			printf("\ninstrumentation\n");
		if (figure_shown(ab, (enum ab_figure)f))
			print_row(ab, (enum ab_figure)f, seed);
	}
	if (ab->mode == AB_BOTH)
		print_breakdown(ab);
	if (ab->nr_kernels > 1)
		print_versus(ab);
	if (seed)
		printf("\nPublished figures: the patch series \"mm/migrate: don't batch the TLB flush\n"
		       "when there is nothing to batch\" (2026, v1/v2), v7.3 and v7.3 + the v2 patch,\n"
		       "2-socket 384-CPU x86, three A/B pairs of 180 s.  See docs/calibration.md.\n");
}

/* ---- JSON ------------------------------------------------------------- */

static json_t *per_pair(struct ab *ab, int k, double (*value)(struct ab *, int, int, int), int what)
{
	json_t *arr = json_array();
	for (int p = 0; p < ab->pairs; p++) {
		double x = value(ab, what, k, p);
		json_array_append_new(arr, isfinite(x) ? json_real(x) : json_null());
	}
	return arr;
}

static double figure_at(struct ab *ab, int f, int k, int p)
{
	return ab_pair_value(ab, (enum ab_figure)f, k, p);
}

static double versus_at(struct ab *ab, int v, int k, int p)
{
	return versus_value(ab, (enum versus)v, k, p);
}

static double extra_cost_at(struct ab *ab, int c, int k, int p)
{
	return ab_job_of(ab, k, p, true)->res.cost_ns[c] - ab_job_of(ab, k, p, false)->res.cost_ns[c];
}

/* "published": {"source": ..., "kernels": {KERNEL: {FIGURE: [min, max]}}},
 * the headline figures for the run's kernels that are the published ones
 * (whatever their spelling: by their switches), for `numasim plot`. */
static json_t *published_json(const struct ab *ab)
{
	json_t *o = json_object(), *ks = json_object();
	json_object_set_new(o, "source", json_string(published_rows[0].source));
	for (int k = 0; k < ab->nr_kernels; k++) {
		json_t *figs = json_object();
		for (int f = 0; f < NR_AB_FIGURES; f++) {
			const struct published *p = published_find((enum ab_figure)f, ab->kernels[k]);
			if (!p || p->tol != PUB_HEADLINE)
				continue;
			json_t *r = json_array();
			json_array_append_new(r, json_real(p->lo));
			json_array_append_new(r, json_real(p->hi));
			json_object_set_new(figs, ab_figures[f].key, r);
		}
		if (json_object_size(figs))
			json_object_set_new(ks, ab->kernels[k], figs);
		else
			json_decref(figs);
	}
	json_object_set_new(o, "kernels", ks);
	return o;
}

static json_t *ab_json(struct ab *ab)
{
	json_t *root = json_object(), *res = json_object();
	json_object_set_new(root, "numasim_version", json_string(NUMASIM_VERSION));
	json_object_set_new(root, "numasim_build", json_string(numasim_build_id));
	json_t *scen = report_scenario_json(&ab->base, NULL), *names = json_array();
	for (int k = 0; k < ab->nr_kernels; k++)
		json_array_append_new(names, json_string(ab->kernels[k]));
	json_object_set_new(json_object_get(scen, "kernel"), "name", names);
	json_object_set_new(root, "scenario", scen);
	json_object_set_new(root, "balancing", json_string(ab_mode_names[ab->mode]));
	json_object_set_new(root, "pairs", json_integer(ab->pairs));
	json_object_set_new(root, "simulated_seconds", json_real(ab->base.duration_s));
	json_object_set_new(root, "first_seed", json_integer((json_int_t)ab->seed0));
	json_object_set_new(root, "unfinished_runs", json_integer(unfinished_runs(ab)));
	for (int k = 0; k < ab->nr_kernels; k++) {
		json_t *kj = json_object();
		for (int f = 0; f < NR_AB_FIGURES; f++)
			if (figure_shown(ab, (enum ab_figure)f))
				json_object_set_new(kj, ab_figures[f].key, per_pair(ab, k, figure_at, f));
		if (ab->mode == AB_BOTH) {
			json_t *costs = json_object();
			for (int c = 0; c < NR_COST_CAUSES; c++)
				json_object_set_new(costs, cost_cause_names[c], per_pair(ab, k, extra_cost_at, c));
			json_object_set_new(kj, "extra_cost_ns", costs);
			json_object_set_new(kj, "balancing_off_runs_of", json_string(ab->kernels[ab->off_of[k]]));
		}
		if (ab->mode != AB_ON && ab->reuse_of[k] >= 0) {
			int n = 0;
			for (int p = 0; p < ab->pairs; p++)
				n += ab->job[ab_job_index(ab, k, p, false)].reused;
			json_object_set_new(kj, "balancing_off_runs_reused_of", json_string(ab->kernels[ab->reuse_of[k]]));
			json_object_set_new(kj, "balancing_off_runs_reused", json_integer(n));
		}
		if (k) {
			json_t *vs = json_object();
			for (int v = 0; v < NR_VERSUS; v++)
				if (versus_shown(ab, (enum versus)v))
					json_object_set_new(vs, versus_defs[v].key, per_pair(ab, k, versus_at, v));
			json_object_set_new(kj, "versus_first", vs);
		}
		json_object_set_new(res, ab->kernels[k], kj);
	}
	json_object_set_new(root, "kernels", res);
	if (seed_published(ab))
		json_object_set_new(root, "published", published_json(ab));
	return root;
}

/* ---- arguments -------------------------------------------------------- */

enum { OPT_KERNELS = 256, OPT_PAIRS, OPT_BALANCING, OPT_DURATION, OPT_SEED, OPT_SET, OPT_JOBS, OPT_JSON, OPT_EXACT };

/* "A,B,...": every element non-empty. */
static int split_kernels(struct ab *ab, const char *list)
{
	char buf[1024];
	if (strlen(list) >= sizeof(buf))
		return -1;
	snprintf(buf, sizeof(buf), "%s", list);
	for (char *t = buf;; t++) {
		char *comma = strchr(t, ',');
		if (comma)
			*comma = '\0';
		if (!*t || ab->nr_kernels == AB_MAX_KERNELS || strlen(t) >= sizeof(ab->kernels[0]))
			return -1;
		strcpy(ab->kernels[ab->nr_kernels++], t);
		if (!comma)
			break;
		t = comma;
	}
	return 0;
}

/* Options to the scenario, in order; returns 0 or an exit status. */
static int parse_ab(int argc, char **argv, struct ab *ab)
{
	static const struct option opts[] = {
		{ "kernels", required_argument, NULL, OPT_KERNELS },
		{ "pairs", required_argument, NULL, OPT_PAIRS },
		{ "balancing", required_argument, NULL, OPT_BALANCING },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "exact", no_argument, NULL, OPT_EXACT },
		{ "set", required_argument, NULL, OPT_SET },
		{ "jobs", required_argument, NULL, OPT_JOBS },
		{ "json", required_argument, NULL, OPT_JSON },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0, 0, 0, 0 },
	};
	char err[2048];
	const char *kernels = NULL;
	const char **sets = calloc((size_t)argc + 1, sizeof(*sets));
	const char *duration = NULL, *seed = NULL;
	bool exact = false;
	int nsets = 0, c, rc = 0;

	opterr = 0;
	while (!rc && (c = getopt_long(argc, argv, ":hq", opts, NULL)) != -1) {
		switch (c) {
		case 'h': fputs(ab_usage, stdout); free(sets); exit(0);
		case 'q': ab->quiet = true; break;
		case OPT_KERNELS: kernels = optarg; break;
		case OPT_PAIRS: rc = ab_parse_count(ab, "--pairs", optarg, 1, AB_MAX_PAIRS, &ab->pairs) ? EXIT_INPUT : 0; break;
		case OPT_BALANCING:
			rc = EXIT_INPUT;
			for (int m = 0; m < 3; m++)
				if (!strcmp(optarg, ab_mode_names[m])) {
					ab->mode = (enum ab_mode)m;
					rc = 0;
				}
			if (rc)
				fprintf(stderr, "numasim ab: --balancing: '%s' is not both, on or off\n", optarg);
			break;
		case OPT_JOBS: rc = ab_parse_count(ab, "--jobs", optarg, 1, 64, &ab->jobs) ? EXIT_INPUT : 0; break;
		case OPT_DURATION: duration = optarg; break;
		case OPT_SEED: seed = optarg; break;
		case OPT_EXACT: exact = true; break;
		case OPT_SET: sets[nsets++] = optarg; break;
		case OPT_JSON: ab->json = optarg; break;
		default:
			fprintf(stderr, "numasim ab: bad option '%s'\nTry 'numasim ab --help'.\n", argv[optind - 1]);
			rc = EXIT_INPUT;
		}
	}
	if (!rc && (optind != argc - 1 || !kernels)) {
		fprintf(stderr, "numasim ab: expected one SCENARIO and --kernels A,B\nTry 'numasim ab --help'.\n");
		rc = EXIT_INPUT;
	}
	if (!rc && split_kernels(ab, kernels)) {
		fprintf(stderr, "numasim ab: --kernels: '%s' is not a comma-separated list of 1-%d kernels\n",
			kernels, AB_MAX_KERNELS);
		rc = EXIT_INPUT;
	}
	if (!rc) {
		const struct ab_options o = { .duration = duration, .seed = seed, .exact = exact,
					      .sets = sets, .nr_sets = nsets };
		if (ab_load(ab, argv[optind], &o, err, sizeof(err))) {
			cli_error("numasim ab: ", err);
			rc = EXIT_INPUT;
		}
	}
	free(sets);
	return rc;
}

int cmd_ab(int argc, char **argv)
{
	struct ab *ab = ab_new("numasim ab");
	if (!ab)
		return 1;
	int rc = parse_ab(argc, argv, ab);
	if (!rc)
		rc = ab_execute(ab, print_table, ab_json);
	ab_free(ab);
	return rc;
}
