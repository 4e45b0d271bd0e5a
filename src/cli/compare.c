/* numasim compare: an mmtests compare-kernels style table of numasim
 * results (see docs/compare-and-plot.md).
 *
 *   Amean     tlb-irqs/s      20724.00 (   0.00%)    12345.67 *  40.43%*
 *
 * One column per result (the first is the baseline), one block of rows
 * (Min, Amean or Hmean, Stddev, CoeffVar, Max) per metric, the percentage
 * against the baseline where positive means better, and the significance
 * marker "*...*" on the mean row when |cidiff| > 1.  For run results an
 * "Ops" block of the vmstat counters follows. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/compare.h"
#include "cli/sweep.h"
#include "lib/escape.h"
#include "lib/outfile.h"
#include "report/mmstat.h"

#define MAX_FILES 32

/* where the tables go: stdout, or sweep collect's compare.txt */
static FILE *out;
#define MAX_COLS 64
#define MAX_METRICS 32

const char compare_usage[] =
	"usage: numasim compare A.json B.json... [OPTIONS]\n"
	"       numasim compare DIR [OPTIONS]\n"
	"       numasim compare DIR-A DIR-B [OPTIONS]\n"
	"\n"
	"Compare numasim results in the layout of mmtests' compare-kernels: one\n"
	"column per result, the first one the baseline.  Inputs are all 'numasim run\n"
	"--json' results (samples: the per-second values of the time series after\n"
	"the first second, and the throughput), all 'numasim ab --json' results (one\n"
	"column per kernel; samples: the per-pair values of each figure), or one\n"
	"sweep's directory ('numasim sweep'): a table per grid value and balancing\n"
	"setting, one column per kernel, one sample per seed (the run's mean over\n"
	"its seconds after the first, and its throughput).\n"
	"\n"
	"Two directories (mmtests' compare-kernels --baseline A --compare B), each a\n"
	"sweep's or a directory of run results: their results grouped into points\n"
	"(kernel, grid values, balancing; the seeds are the samples), each point of\n"
	"A beside the same point of B, one mean row per metric, and the points on one\n"
	"side only listed.  Kernels match by name; when no kernel is on both sides\n"
	"they pair in order (A's first with B's first: a baseline sweep against a\n"
	"patched one).  The marker is Welch's t-test at 95% over the seeds; a point\n"
	"with fewer than 2 seeds a side says it has too few for one.\n"
	"\n"
	"Rows per metric: Min, Amean (lower is better) or Hmean (higher is better),\n"
	"Gmean (not for per-second samples), Stddev, CoeffVar, Max.  The percentage\n"
	"is against the first column and positive always means better.  The mean\n"
	"row shows *x.xx%* instead of (x.xx%) when the difference is significant:\n"
	"|cidiff| > 1, cidiff = (new - base) / (sum of both 95% half-widths,\n"
	"qnorm(0.975) * sample stddev).  Run results end with a 'Duration' block\n"
	"(kernel and other CPU-seconds, simulated time) and an 'Ops' block of the\n"
	"vmstat counters, both summed over a column's runs.\n"
	"\n"
	"options:\n"
	"  --metric M[,M...]   only these metrics (name or JSON key; repeatable).\n"
	"                      run: tlb-irqs/s migrations/s pte-updates/s pass-ms\n"
	"                           throughput\n"
	"                      ab:  tput-loss-% kernel-cycles/pte tlb-irqs/migrated\n"
	"                           refill-cycles/pte scanner-flushes/55s gather-ms\n"
	"                           pending-migr-% pass-wall-% overlap-migr-%\n"
	"                           migrations/s pte-updates/s\n"
	"  -h, --help          this text\n"
	"\n"
	"exit status: 0 ok, 2 bad input (missing file, not a numasim result, run and\n"
	"ab results mixed, unknown metric, a directory without results, directories\n"
	"whose kernels neither match nor pair).\n";

static const struct compare_metric run_metrics[] = {
	{ "tlb-irqs/s", "tlb_irqs_per_s", SRC_SERIES, false, 1, false },
	{ "migrations/s", "migrations_per_s", SRC_SERIES, false, 1, false },
	{ "pte-updates/s", "pte_updates_per_s", SRC_SERIES, false, 1, false },
	{ "pass-ms", "pass_ms", SRC_SERIES, false, 1, true },
	{ "throughput", "throughput_ops_per_s", SRC_SCALAR, true, 1, false },
};

static const struct compare_metric ab_metrics[] = {
	{ "tput-loss-%", "throughput_loss", SRC_PAIRS, false, 100, false },
	{ "kernel-cycles/pte", "kernel_cycles_per_hinting_pte", SRC_PAIRS, false, 1, false },
	{ "tlb-irqs/migrated", "tlb_irqs_per_migrated_page", SRC_PAIRS, false, 1, false },
	{ "refill-cycles/pte", "user_refill_cycles_per_hinting_pte", SRC_PAIRS, false, 1, false },
	{ "scanner-flushes/55s", "scanner_full_flushes_per_55s", SRC_PAIRS, false, 1, false },
	{ "gather-ms", "mean_gather_ms", SRC_PAIRS, false, 1, false },
	{ "pending-migr-%", "pending_migration_share", SRC_PAIRS, false, 100, false },
	{ "pass-wall-%", "pass_wall_share", SRC_PAIRS, false, 100, false },
	{ "overlap-migr-%", "overlapping_migration_share", SRC_PAIRS, false, 100, false },
	{ "migrations/s", "migrations_per_s", SRC_PAIRS, false, 1, false },
	{ "pte-updates/s", "pte_updates_per_s", SRC_PAIRS, false, 1, false },
};

#define NR(a) (sizeof(a) / sizeof((a)[0]))

struct column {
	char head[256];
	const char *path;
	const json_t *doc; /* the file's root */
	const json_t *src; /* run: the root; ab: the kernel's object */
	const char *kernel;
	int file;          /* index of the file, from 0 */
	/* run results: the runs of the column, one for a file, one per seed
	 * for a sweep's directory (per_seed: a sample per run) */
	const json_t **runs;
	int nr_runs;
	bool per_seed;
};

struct cmp {
	int kind;
	json_t *doc[MAX_FILES];
	const char *path[MAX_FILES];
	int nr_files;
	struct column col[MAX_COLS];
	int nr_cols;
	const struct compare_metric *metric[MAX_METRICS];
	int nr_metrics;
	int width; /* of a value column: number + " (  x.xx%)" */
	/* a sweep's directory */
	const char *dir;
	struct sweep_manifest man;
	json_t **points;   /* each point's result, or NULL */
	const json_t **runs; /* the columns' runs, grouped */
	int nr_points;
};

/* ---- samples and statistics --------------------------------------------- */

struct summary {
	size_t n;
	double min, mean, gmean, stddev, coeffvar, max, ci;
};

/* A run's per-second samples of @m, the first second left out: it is
 * the start-up (nothing scans before numa_balancing.scan_delay_ms), not
 * the workload's steady state. */
static size_t series_samples(const struct compare_metric *m, const json_t *run, double *v, size_t max)
{
	const json_t *arr = json_object_get(json_object_get(run, "timeseries"), m->key);
	size_t n = 0, i;
	const json_t *x;
	json_array_foreach(arr, i, x) {
		if (!i || n >= max || !json_is_number(x))
			continue;
		double d = json_number_value(x);
		if (isfinite(d) && !(m->skip_zero && d == 0))
			v[n++] = d;
	}
	return n;
}

static size_t series_len(const struct compare_metric *m, const json_t *run)
{
	return json_array_size(json_object_get(json_object_get(run, "timeseries"), m->key));
}

double compare_run_value(const struct compare_metric *m, const json_t *run)
{
	if (m->src == SRC_SCALAR) {
		const json_t *x = json_object_get(run, m->key);
		double d = json_is_number(x) ? json_number_value(x) : NAN;
		return isfinite(d) && !(m->skip_zero && d == 0) ? d : NAN;
	}
	size_t max = series_len(m, run);
	double *v = malloc((max ? max : 1) * sizeof(*v));
	if (!v) {
		fprintf(stderr, "numasim compare: out of memory\n");
		exit(1);
	}
	size_t n = series_samples(m, run, v, max);
	double mean = mmstat_mean(v, n);
	free(v);
	return mean;
}

const struct compare_metric *compare_run_metric(size_t i)
{
	return i < NR(run_metrics) ? &run_metrics[i] : NULL;
}

const struct compare_metric *compare_find_run_metric(const char *name)
{
	for (size_t i = 0; i < NR(run_metrics); i++)
		if (!strcmp(run_metrics[i].name, name) || !strcmp(run_metrics[i].key, name))
			return &run_metrics[i];
	return NULL;
}

static size_t samples_of(const struct compare_metric *m, const struct column *c, double **out)
{
	size_t max = 1, n = 0;
	if (c->per_seed)
		max = (size_t)c->nr_runs;
	else if (m->src == SRC_SERIES)
		max = series_len(m, c->src);
	else if (m->src == SRC_PAIRS)
		max = json_array_size(json_object_get(c->src, m->key));
	double *v = malloc((max ? max : 1) * sizeof(*v));
	if (!v) {
		fprintf(stderr, "numasim compare: out of memory\n");
		exit(1);
	}
	if (c->per_seed) {
		for (int r = 0; r < c->nr_runs; r++) {
			double x = compare_run_value(m, c->runs[r]);
			if (!isnan(x))
				v[n++] = x;
		}
	} else if (m->src == SRC_SERIES) {
		n = series_samples(m, c->src, v, max);
	} else if (m->src == SRC_PAIRS) {
		n = mmstat_json_samples(json_object_get(c->src, m->key), v, max, m->skip_zero);
	} else {
		double x = compare_run_value(m, c->src);
		if (!isnan(x))
			v[n++] = x;
	}
	for (size_t i = 0; i < n; i++)
		v[i] *= m->scale;
	*out = v;
	return n;
}

static void summarise(const struct compare_metric *m, const struct column *c, struct summary *s)
{
	double *v;
	size_t n = samples_of(m, c, &v);
	s->n = n;
	s->min = mmstat_min(v, n);
	s->max = mmstat_max(v, n);
	s->mean = m->higher_better ? mmstat_hmean(v, n) : mmstat_mean(v, n);
	s->gmean = mmstat_gmean(v, n);
	s->stddev = mmstat_stddev(v, n);
	s->coeffvar = n ? mmstat_coeffvar(v, n) : NAN;
	s->ci = mmstat_ci_halfwidth(v, n);
	free(v);
}

/* ---- printing ------------------------------------------------------------- */

#define STAT_WIDTH 9 /* mmtests pads the statistic's name to 9 ("BAmean-99") */
#define PCT_WIDTH 7  /* "(   0.00%)": mmtests' compare length */

static void print_value(double x, int width)
{
	if (isnan(x))
		fprintf(out, "%*s", width, "n/a");
	else
		fprintf(out, "%*.2f", width, x == 0 ? 0.0 : x); /* no "-0.00" */
}

static void print_pct(double pct, bool significant)
{
	char open = significant ? '*' : '(', close = significant ? '*' : ')';
	if (isnan(pct))
		fprintf(out, " %c%*s%c", open, PCT_WIDTH + 1, "n/a", close);
	else
		fprintf(out, " %c%*.2f%%%c", open, PCT_WIDTH, pct == 0 ? 0.0 : pct, close);
}

static int op_width(const struct cmp *c)
{
	int w = 0;
	for (int i = 0; i < c->nr_metrics; i++) {
		int l = (int)strlen(c->metric[i]->name);
		if (l > w)
			w = l;
	}
	return w;
}

static void print_header(const struct cmp *c, int lead, int width)
{
	fprintf(out, "%*s", lead, "");
	for (int i = 0; i < c->nr_cols; i++)
		fprintf(out, "%*s", width, c->col[i].head); /* escaped by name_columns */
	fprintf(out, "\n");
}

enum stat_row { ROW_MIN, ROW_MEAN, ROW_GMEAN, ROW_STDDEV, ROW_COEFFVAR, ROW_MAX, NR_ROWS };

static double stat_of(const struct summary *s, enum stat_row r)
{
	switch (r) {
	case ROW_MIN: return s->min;
	case ROW_MEAN: return s->mean;
	case ROW_GMEAN: return s->gmean;
	case ROW_STDDEV: return s->stddev;
	case ROW_COEFFVAR: return s->coeffvar;
	case ROW_MAX: return s->max;
	default: return NAN;
	}
}

static void print_metric(const struct cmp *c, const struct compare_metric *m, const struct summary *s, int opw)
{

	for (int r = 0; r < NR_ROWS; r++) {
		/* of per-second samples, a second without any event makes it 0 */
		if (r == ROW_GMEAN && c->kind == MMSTAT_RESULT_RUN && !c->col[0].per_seed)
			continue;
		static const char *const names[NR_ROWS] = { "Min", NULL, "Gmean", "Stddev", "CoeffVar", "Max" };
		const char *stat = r == ROW_MEAN ? (m->higher_better ? "Hmean" : "Amean") : names[r];
		/* Spread is always better smaller. */
		bool higher = m->higher_better && r != ROW_STDDEV && r != ROW_COEFFVAR;
		fprintf(out, "%-*s %-*s", STAT_WIDTH, stat, opw, m->name);
		double base = stat_of(&s[0], (enum stat_row)r);
		for (int i = 0; i < c->nr_cols; i++) {
			double x = stat_of(&s[i], (enum stat_row)r);
			double pct = NAN;
			if (!isnan(x) && !isnan(base))
				pct = higher ? mmstat_pdiff(x, base) : mmstat_pndiff(x, base);
			bool sig = false;
			if (r == ROW_MEAN && i > 0 && s[i].n >= 2 && s[0].n >= 2 && !isnan(pct))
				sig = fabs(mmstat_cidiff(s[i].mean, s[i].ci, s[0].mean, s[0].ci)) > 1;
			print_value(x, c->width - (PCT_WIDTH + 4));
			print_pct(pct, sig);
		}
		fprintf(out, "\n");
	}
}

/* ---- the Ops block (run results) ------------------------------------------ */

/* A counter summed over the column's runs (mmtests: the whole benchmark,
 * every iteration). */
static double counter(const struct column *col, const char *group, const char *key)
{
	double sum = 0;
	for (int r = 0; r < col->nr_runs; r++) {
		const json_t *v = json_object_get(json_object_get(col->runs[r], group), key);
		if (!json_is_number(v))
			return NAN;
		sum += json_number_value(v);
	}
	return col->nr_runs ? sum : NAN;
}

enum op_row {
	OP_MIGRATE_SUCCESS,
	OP_MIGRATE_FAIL,
	OP_RANGE_UPDATES,
	OP_PTE_UPDATES,
	OP_PMD_UPDATES,
	OP_HINT_FAULTS,
	OP_HINT_LOCAL,
	OP_HINT_LOCAL_PCT,
	OP_PAGES_MIGRATED,
	OP_AUTONUMA_COST,
	OP_TLB_REMOTE_FLUSH,
	OP_TLB_REMOTE_RECEIVED,
	OP_TLB_LOCAL_ALL,
	OP_TLB_LOCAL_ONE,
	OP_TLB_SHOOTDOWNS,
	NR_OPS
};

/* compare-kernels' names (MonitorMmtestsvmstat.pm), then the TLB counters of
 * CONFIG_DEBUG_TLBFLUSH and the "TLB shootdowns" line of /proc/interrupts. */
static const char *const op_names[NR_OPS] = {
	[OP_MIGRATE_SUCCESS] = "Ops Page migrate success",
	[OP_MIGRATE_FAIL] = "Ops Page migrate failure",
	[OP_RANGE_UPDATES] = "Ops NUMA base-page range updates",
	[OP_PTE_UPDATES] = "Ops NUMA PTE updates",
	[OP_PMD_UPDATES] = "Ops NUMA PMD updates",
	[OP_HINT_FAULTS] = "Ops NUMA hint faults",
	[OP_HINT_LOCAL] = "Ops NUMA hint local faults %",
	[OP_HINT_LOCAL_PCT] = "Ops NUMA hint local percent",
	[OP_PAGES_MIGRATED] = "Ops NUMA pages migrated",
	[OP_AUTONUMA_COST] = "Ops AutoNUMA cost",
	[OP_TLB_REMOTE_FLUSH] = "Ops TLB remote flush",
	[OP_TLB_REMOTE_RECEIVED] = "Ops TLB remote flush received",
	[OP_TLB_LOCAL_ALL] = "Ops TLB local flush all",
	[OP_TLB_LOCAL_ONE] = "Ops TLB local flush one",
	[OP_TLB_SHOOTDOWNS] = "Ops TLB shootdowns",
};

static double op_value(const struct column *doc, enum op_row r)
{
	double pte = counter(doc, "vmstat", "numa_pte_updates");
	double pmd = counter(doc, "vmstat", "numa_huge_pte_updates");
	double faults = counter(doc, "vmstat", "numa_hint_faults");
	double local = counter(doc, "vmstat", "numa_hint_faults_local");
	double migrated = counter(doc, "vmstat", "numa_pages_migrated");
	switch (r) {
	case OP_MIGRATE_SUCCESS: return counter(doc, "vmstat", "pgmigrate_success");
	case OP_MIGRATE_FAIL: return counter(doc, "vmstat", "pgmigrate_fail");
	/* mmtests: base pages covered, a PMD counting HPAGE_PMD_NR (512). */
	case OP_RANGE_UPDATES: return pte + 512 * pmd;
	case OP_PTE_UPDATES: return pte;
	case OP_PMD_UPDATES: return pmd;
	case OP_HINT_FAULTS: return faults;
	/* The count, under compare-kernels' (misleading) "%" name. */
	case OP_HINT_LOCAL: return local;
	case OP_HINT_LOCAL_PCT: return faults > 0 ? local * 100 / faults : 100;
	case OP_PAGES_MIGRATED: return migrated;
	/* mmtests' AutoNUMA cost model: Cpte = Ca = 56/8, a hint fault 5000,
	 * Ci = Ca + 12 per migrated page, in millions. */
	case OP_AUTONUMA_COST: return (56.0 / 8 * pte + 5000 * faults + (56.0 / 8 + 12) * migrated) / 1e6;
	case OP_TLB_REMOTE_FLUSH: return counter(doc, "vmstat", "nr_tlb_remote_flush");
	case OP_TLB_REMOTE_RECEIVED: return counter(doc, "vmstat", "nr_tlb_remote_flush_received");
	case OP_TLB_LOCAL_ALL: return counter(doc, "vmstat", "nr_tlb_local_flush_all");
	case OP_TLB_LOCAL_ONE: return counter(doc, "vmstat", "nr_tlb_local_flush_one");
	case OP_TLB_SHOOTDOWNS: return counter(doc, "interrupts", "tlb_shootdowns");
	default: return NAN;
	}
}

/* compare-kernels' Duration block (there: /usr/bin/time of the whole
 * benchmark): the kernel's CPU-seconds (every cost cause but the TLB
 * refills, which run in user mode), the tasks' other CPU-seconds, and the
 * simulated time (elapsed time for fixed work), summed over the runs. */
enum duration_row { DUR_USER, DUR_SYSTEM, DUR_ELAPSED, NR_DURATIONS };
static const char *const duration_names[NR_DURATIONS] = {
	[DUR_USER] = "Duration User", [DUR_SYSTEM] = "Duration System", [DUR_ELAPSED] = "Duration Elapsed",
};

static double run_system_s(const json_t *run)
{
	double ns = 0;
	const char *cause;
	const json_t *v;
	json_object_foreach((json_t *)json_object_get(run, "cost_ns"), cause, v) {
		if (!json_is_number(v))
			return NAN;
		if (strcmp(cause, "tlb_refill"))
			ns += json_number_value(v);
	}
	return ns / 1e9;
}

static double duration_value(const struct column *col, enum duration_row r)
{
	double sum = 0;
	for (int i = 0; i < col->nr_runs; i++) {
		const json_t *run = col->runs[i];
		double sys = run_system_s(run), x = NAN;
		if (r == DUR_SYSTEM) {
			x = sys;
		} else if (r == DUR_USER) {
			const json_t *nodes = json_object_get(run, "cpu_seconds_per_node"), *v;
			double cpu = json_is_array(nodes) ? 0 : NAN;
			size_t k;
			json_array_foreach(nodes, k, v)
				cpu += json_is_number(v) ? json_number_value(v) : NAN;
			x = isnan(cpu) || isnan(sys) ? NAN : cpu > sys ? cpu - sys : 0;
		} else {
			const json_t *e = json_object_get(run, "elapsed_seconds");
			x = json_number_value(json_is_number(e) ? e : json_object_get(run, "simulated_seconds"));
		}
		sum += x;
	}
	return col->nr_runs ? sum : NAN;
}

static double block_value(const struct column *col, bool durations, int r)
{
	return durations ? duration_value(col, (enum duration_row)r) : op_value(col, (enum op_row)r);
}

/* The Duration block, or the Ops block: a row name, then a value per column. */
static void print_block(const struct cmp *c, bool durations)
{
	const char *const *names = durations ? duration_names : op_names;
	int n = durations ? NR_DURATIONS : NR_OPS, lw = 0, w = 15;
	for (int r = 0; r < NR_OPS; r++) /* the same name width for both blocks */
		if ((int)strlen(op_names[r]) > lw)
			lw = (int)strlen(op_names[r]);
	for (int i = 0; i < c->nr_cols; i++) {
		if ((int)strlen(c->col[i].head) + 2 > w)
			w = (int)strlen(c->col[i].head) + 2;
		for (int r = 0; r < n; r++) {
			char buf[64];
			int l = snprintf(buf, sizeof(buf), "%.2f", block_value(&c->col[i], durations, r));
			if (l + 2 > w)
				w = l + 2;
		}
	}
	print_header(c, lw, w);
	for (int r = 0; r < n; r++) {
		fprintf(out, "%-*s", lw, names[r]);
		for (int i = 0; i < c->nr_cols; i++)
			print_value(block_value(&c->col[i], durations, r), w);
		fprintf(out, "\n");
	}
}

/* ---- inputs -------------------------------------------------------------- */

static const char *str_of(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "?";
}

static bool heads_unique(const struct cmp *c, int i)
{
	for (int j = 0; j < c->nr_cols; j++)
		if (j != i && !strcmp(c->col[i].head, c->col[j].head))
			return false;
	return true;
}

/* Kernel names, or file names where two columns have the same kernel. */
static void name_columns(struct cmp *c)
{
	bool clash[MAX_COLS];
	for (int i = 0; i < c->nr_cols; i++) {
		snprintf(c->col[i].head, sizeof(c->col[i].head), "%s", c->col[i].kernel);
	}
	for (int i = 0; i < c->nr_cols; i++)
		clash[i] = !heads_unique(c, i);
	/* headings reach the terminal: file names may hold anything */
	for (int i = 0; i < c->nr_cols; i++) {
		char raw[sizeof(c->col[i].head)];
		memcpy(raw, c->col[i].head, sizeof(raw));
		term_escape(raw, c->col[i].head, sizeof(c->col[i].head));
	}
	/* Pass 0: the file's stem; 1: its path; 2: the stem and the file's
	 * position (the same file given twice). */
	for (int pass = 0; pass < 3; pass++) {
		for (int i = 0; i < c->nr_cols; i++) {
			struct column *col = &c->col[i];
			char name[200];
			if (!clash[i])
				continue;
			if (pass == 1)
				snprintf(name, sizeof(name), "%s", col->path);
			else
				mmstat_file_stem(col->path, name, sizeof(name));
			if (pass == 2)
				snprintf(name + strlen(name), sizeof(name) - strlen(name), "#%d", col->file + 1);
			char shown[200];
			term_escape(name, shown, sizeof(shown));
			if (c->kind == MMSTAT_RESULT_AB)
				snprintf(col->head, sizeof(col->head), "%s:%s", shown, col->kernel);
			else
				snprintf(col->head, sizeof(col->head), "%s", shown);
		}
		bool again = false;
		for (int i = 0; i < c->nr_cols; i++)
			if (clash[i] && !heads_unique(c, i))
				again = true;
		if (!again)
			break;
	}
}

static const struct compare_metric *find_metric(const struct cmp *c, const char *name)
{
	const struct compare_metric *tab = c->kind == MMSTAT_RESULT_RUN ? run_metrics : ab_metrics;
	size_t n = c->kind == MMSTAT_RESULT_RUN ? NR(run_metrics) : NR(ab_metrics);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(tab[i].name, name) || !strcmp(tab[i].key, name))
			return &tab[i];
	return NULL;
}

static int pick_metrics(struct cmp *c, char **wanted, int nr_wanted)
{
	if (!nr_wanted) {
		const struct compare_metric *tab = c->kind == MMSTAT_RESULT_RUN ? run_metrics : ab_metrics;
		size_t n = c->kind == MMSTAT_RESULT_RUN ? NR(run_metrics) : NR(ab_metrics);
		for (size_t i = 0; i < n; i++)
			c->metric[c->nr_metrics++] = &tab[i];
		return 0;
	}
	for (int w = 0; w < nr_wanted; w++) {
		char *save = NULL;
		for (char *tok = strtok_r(wanted[w], ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			const struct compare_metric *m = find_metric(c, tok);
			if (!m) {
				fprintf(stderr, "numasim compare: unknown metric '%s' for %s results\n"
					"Try 'numasim compare --help'.\n",
					tok, c->kind == MMSTAT_RESULT_RUN ? "run" : "ab");
				return -1;
			}
			bool dup = false;
			for (int i = 0; i < c->nr_metrics; i++)
				dup |= c->metric[i] == m;
			if (!dup && c->nr_metrics < MAX_METRICS)
				c->metric[c->nr_metrics++] = m;
		}
	}
	return 0;
}

static int add_columns(struct cmp *c, int f)
{
	json_t *doc = c->doc[f];
	if (c->kind == MMSTAT_RESULT_RUN) {
		if (c->nr_cols >= MAX_COLS)
			return -1;
		c->col[c->nr_cols++] = (struct column){ .path = c->path[f], .doc = doc, .src = doc,
							.kernel = str_of(doc, "kernel"), .file = f,
							.runs = (const json_t **)&c->doc[f], .nr_runs = 1 };
		return 0;
	}
	const char *name;
	json_t *k;
	json_object_foreach(json_object_get(doc, "kernels"), name, k) {
		if (c->nr_cols >= MAX_COLS)
			return -1;
		c->col[c->nr_cols++] = (struct column){ .path = c->path[f], .doc = doc, .src = k,
							.kernel = name, .file = f };
	}
	return 0;
}

static void print_title(const struct cmp *c)
{
	const char *scen = mmstat_scenario_name(c->doc[0]);
	bool same = true;
	for (int f = 1; f < c->nr_files; f++)
		same &= !strcmp(scen, mmstat_scenario_name(c->doc[f]));
	fprintf(out, "numasim compare: %s", same ? scen : "(several scenarios)");
	if (c->kind == MMSTAT_RESULT_RUN) {
		fprintf(out, ", %d run%s; samples: one per simulated second (throughput: one per run)\n",
		       c->nr_files, c->nr_files == 1 ? "" : "s");
	} else {
		const json_t *d = c->doc[0];
		fprintf(out, ", %d ab result%s; samples: one per pair (%lld pairs of %g s)\n",
		       c->nr_files, c->nr_files == 1 ? "" : "s",
		       (long long)json_integer_value(json_object_get(d, "pairs")),
		       json_number_value(json_object_get(d, "simulated_seconds")));
	}
	/* the resolved scenarios, key by key: the same name may hide a --set */
	for (int f = 1; f < c->nr_files; f++) {
		char diff[1024];
		int n = mmstat_scenario_diff(c->doc[0], c->doc[f], diff, sizeof(diff), false);
		bool rec0 = json_is_object(json_object_get(c->doc[0], "scenario"));
		bool recf = json_is_object(json_object_get(c->doc[f], "scenario"));
		if (n > 0)
			fprintf(out, "note: %s ran a different scenario from %s: %s\n", c->path[f], c->path[0], diff);
		else if (n < 0 && (rec0 || recf))
			fprintf(out, "note: %s has no record of its scenario: cannot tell whether it ran the "
			       "same one as %s\n", rec0 ? c->path[f] : c->path[0], rec0 ? c->path[0] : c->path[f]);
	}
	if (!same) {
		fprintf(stderr, "numasim compare: warning: the inputs are of different scenarios:");
		for (int f = 0; f < c->nr_files; f++)
			fprintf(stderr, " %s", mmstat_scenario_name(c->doc[f]));
		fprintf(stderr, "\n");
	}
}

/* The table (and for run results the Duration and Ops blocks) of the
 * columns in c->col; @title: a title line of its own, else print_title. */
static int report(struct cmp *c, const char *title)
{
	name_columns(c);
	/* mmtests: a 12-wide number and " (%7.2f%%)"; wider for a long
	 * heading or a number that would touch its neighbour. */
	struct summary *sum = calloc((size_t)c->nr_metrics * MAX_COLS, sizeof(*sum));
	if (!sum) {
		fprintf(stderr, "numasim compare: out of memory\n");
		return 1;
	}
	c->width = 23;
	for (int i = 0; i < c->nr_cols; i++)
		if ((int)strlen(c->col[i].head) + 2 > c->width)
			c->width = (int)strlen(c->col[i].head) + 2;
	for (int m = 0; m < c->nr_metrics; m++)
		for (int i = 0; i < c->nr_cols; i++) {
			struct summary *x = &sum[m * MAX_COLS + i];
			summarise(c->metric[m], &c->col[i], x);
			for (int r = 0; r < NR_ROWS; r++) {
				char buf[64];
				int l = snprintf(buf, sizeof(buf), "%.2f", stat_of(x, (enum stat_row)r));
				if (l + 1 + PCT_WIDTH + 4 > c->width)
					c->width = l + 1 + PCT_WIDTH + 4;
			}
		}

	int opw = op_width(c);
	if (title)
		fputs(title, out);
	else
		print_title(c);
	fprintf(out, "\n");
	print_header(c, STAT_WIDTH + 1 + opw, c->width);
	for (int m = 0; m < c->nr_metrics; m++)
		print_metric(c, c->metric[m], &sum[m * MAX_COLS], opw);
	if (c->kind == MMSTAT_RESULT_RUN) {
		fprintf(out, "\n");
		print_block(c, true);
		fprintf(out, "\n");
		print_block(c, false);
	}
	free(sum);
	return 0;
}

/* A sweep's directory: every point's result (those not run yet left out). */
static int load_dir(struct cmp *c, const char *dir)
{
	char err[OUTFILE_PATH_MAX + 1024];
	struct stat st;
	snprintf(err, sizeof(err), "%s/manifest.json", dir);
	if (lstat(err, &st) && errno == ENOENT) {
		snprintf(err, sizeof(err), "%s: is a directory, and not a sweep's (no manifest.json)", dir);
		cli_error("numasim compare: ", err);
		return -1;
	}
	if (sweep_manifest_load(dir, &c->man, err, sizeof(err))) {
		cli_error("numasim compare: ", err);
		return -1;
	}
	c->dir = dir;
	c->kind = MMSTAT_RESULT_RUN;
	c->nr_points = (int)json_array_size(c->man.points);
	c->points = calloc((size_t)c->nr_points + 1, sizeof(*c->points));
	c->runs = calloc((size_t)c->nr_points + 1, sizeof(*c->runs));
	if (!c->points || !c->runs) {
		fprintf(stderr, "numasim compare: out of memory\n");
		return -1;
	}
	int have = 0;
	for (int k = 0; k < c->nr_points; k++) {
		const json_t *pt = json_array_get(c->man.points, (size_t)k);
		const char *id = json_string_value(json_object_get(pt, "id"));
		int got = sweep_result_load(dir, id, (size_t)k, &c->points[k], err, sizeof(err));
		if (got < 0) {
			cli_error("numasim compare: ", err);
			return -1;
		}
		have += got;
	}
	if (!have) {
		fprintf(stderr, "numasim compare: ");
		fputs_escaped(dir, stderr);
		fprintf(stderr, ": no point has a result yet (run the sweep first)\n");
		return -1;
	}
	if (have < c->nr_points)
		fprintf(stderr, "numasim compare: %d of %d points have no result yet: left out\n",
			c->nr_points - have, c->nr_points);
	return 0;
}

/* What groups a sweep's points into one table: the grid values and
 * balancing, as the result recorded them ("numa_balancing.scan_size_mb=64,
 * balancing on"); kernels are the columns and seeds the samples. */
static int group_of(const struct cmp *c, const json_t *run, char *buf, size_t len)
{
	const json_t *sc = json_object_get(run, "scenario");
	size_t o = 0;
	buf[0] = '\0';
	for (int g = 0; g < c->man.nr_grid && o < len; g++) {
		char name[160], val[128];
		int k = c->man.grid_key[g];
		const char *shown = scenario_key_name(k, name, sizeof(name)), *sec = scenario_key_section(k);
		size_t n = strlen(sec);
		const char *jname = !strncmp(shown, sec, n) && shown[n] == '.' ? shown + n + 1 : shown;
		const json_t *v = json_object_get(json_object_get(sc, sec), jname);
		if (json_is_string(v)) {
			if (!is_printable_ascii(json_string_value(v)))
				return -1;
			snprintf(val, sizeof(val), "%s", json_string_value(v));
		} else if (json_is_integer(v)) {
			snprintf(val, sizeof(val), "%lld", (long long)json_integer_value(v));
		} else if (json_is_real(v)) {
			snprintf(val, sizeof(val), "%.10g", json_real_value(v));
		} else if (json_is_boolean(v)) {
			snprintf(val, sizeof(val), "%s", json_is_true(v) ? "true" : "false");
		} else {
			return -1;
		}
		o += (size_t)snprintf(buf + o, len - o, "%s=%s, ", shown, val);
	}
	const json_t *nb = json_object_get(json_object_get(run, "tunables"), "kernel.numa_balancing");
	if (o < len)
		snprintf(buf + o, len - o, "balancing %s", json_is_integer(nb) && !json_integer_value(nb) ? "off" : "on");
	return 0;
}

static int report_dir(struct cmp *c)
{
	char (*group)[512] = calloc((size_t)c->nr_points, sizeof(*group));
	bool *done = calloc((size_t)c->nr_points, sizeof(*done));
	int rc = 0, blocks = 0, used = 0;
	if (!group || !done) {
		free(group);
		free(done);
		fprintf(stderr, "numasim compare: out of memory\n");
		return 1;
	}
	for (int k = 0; k < c->nr_points; k++)
		if (c->points[k] && group_of(c, c->points[k], group[k], sizeof(group[k]))) {
			fprintf(stderr, "numasim compare: point %d: a grid value the result cannot have\n", k);
			free(group);
			free(done);
			return EXIT_INPUT;
		}
	/* groups in the order of their first point; in a group, kernels in
	 * the order of their first point, and each kernel's runs (seeds) */
	for (int k = 0; k < c->nr_points && !rc; k++) {
		if (!c->points[k] || done[k])
			continue;
		c->nr_cols = 0;
		int seeds = 0;
		for (int j = k; j < c->nr_points; j++) {
			if (!c->points[j] || done[j] || strcmp(group[j], group[k]))
				continue;
			const char *kernel = json_string_value(json_object_get(c->points[j], "kernel"));
			if (c->nr_cols == MAX_COLS) {
				fprintf(stderr, "numasim compare: at most %d kernels in a group\n", MAX_COLS);
				rc = EXIT_INPUT;
				break;
			}
			struct column *col = &c->col[c->nr_cols++];
			*col = (struct column){ .path = c->dir, .doc = c->points[j], .src = c->points[j],
						.kernel = kernel, .runs = &c->runs[used], .per_seed = true };
			for (int i = j; i < c->nr_points; i++) {
				if (!c->points[i] || done[i] || strcmp(group[i], group[k]) ||
				    strcmp(kernel, json_string_value(json_object_get(c->points[i], "kernel"))))
					continue;
				c->runs[used++] = c->points[i];
				col->nr_runs++;
				done[i] = true;
			}
			seeds = col->nr_runs > seeds ? col->nr_runs : seeds;
		}
		if (rc)
			break;
		char title[2048], shown_dir[512], shown_group[1024];
		term_escape(c->dir, shown_dir, sizeof(shown_dir));
		term_escape(group[k], shown_group, sizeof(shown_group));
		snprintf(title, sizeof(title),
			 "numasim compare: %s (%s), %s; samples: one per seed (%d; the mean over each run's "
			 "simulated seconds after the first; throughput: the run's)\n",
			 shown_dir, mmstat_scenario_name(c->points[k]), shown_group, seeds);
		if (blocks++)
			fprintf(out, "\n\n");
		rc = report(c, title);
	}
	free(group);
	free(done);
	return rc;
}

static void free_cmp(struct cmp *c)
{
	for (int f = 0; f < c->nr_files; f++)
		json_decref(c->doc[f]);
	for (int k = 0; k < c->nr_points; k++)
		json_decref(c->points[k]);
	free(c->points);
	free(c->runs);
	json_decref(c->man.doc);
	free(c);
}

int cmd_compare(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "metric", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ 0, 0, 0, 0 },
	};
	char *wanted[MAX_METRICS];
	int nr_wanted = 0, ch, rc = EXIT_INPUT;
	struct cmp *c = calloc(1, sizeof(*c));
	if (!c) {
		fprintf(stderr, "numasim compare: out of memory\n");
		return 1;
	}

	out = stdout;
	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (ch) {
		case 'h':
			fputs(compare_usage, stdout);
			free(c);
			return 0;
		case 'm':
			if (nr_wanted >= MAX_METRICS) {
				fprintf(stderr, "numasim compare: too many --metric options\n");
				goto out;
			}
			wanted[nr_wanted++] = optarg;
			break;
		case ':':
			fprintf(stderr, "numasim compare: option '%s' needs a value\n"
				"Try 'numasim compare --help'.\n", argv[optind - 1]);
			goto out;
		default:
			fprintf(stderr, "numasim compare: unknown option '%s'\n"
				"Try 'numasim compare --help'.\n", argv[optind - 1]);
			goto out;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "numasim compare: expected one or more result files (A.json B.json...)\n"
			"Try 'numasim compare --help'.\n");
		goto out;
	}
	if (argc - optind > MAX_FILES) {
		fprintf(stderr, "numasim compare: at most %d files\n", MAX_FILES);
		goto out;
	}

	struct stat st;
	bool dir0 = !stat(argv[optind], &st) && S_ISDIR(st.st_mode);
	bool dir1 = argc - optind == 2 && !stat(argv[optind + 1], &st) && S_ISDIR(st.st_mode);
	if (dir0 && dir1) {
		rc = compare_dirs(argv[optind], argv[optind + 1], wanted, nr_wanted);
		goto out;
	}
	if (dir0 || dir1) {
		if (argc - optind != 1) {
			fprintf(stderr, "numasim compare: a directory is compared alone (a sweep's kernels) "
				"or with another directory (A B), not with files\n");
			goto out;
		}
		if (load_dir(c, argv[optind]))
			goto out;
	}
	for (int i = optind; !c->dir && i < argc; i++) {
		char err[1024];
		int f = c->nr_files;
		int kind = mmstat_load_result(argv[i], &c->doc[f], err, sizeof(err));
		if (!kind) {
			cli_error("numasim compare: ", err);
			goto out;
		}
		c->path[f] = argv[i];
		c->nr_files++;
		if (c->kind && kind != c->kind) {
			fprintf(stderr,
				"numasim compare: cannot mix run and ab results: %s is a%s result, %s a%s one\n",
				c->path[0], c->kind == MMSTAT_RESULT_RUN ? " run" : "n ab", argv[i],
				kind == MMSTAT_RESULT_RUN ? " run" : "n ab");
			goto out;
		}
		c->kind = kind;
		if (add_columns(c, f)) {
			fprintf(stderr, "numasim compare: at most %d columns\n", MAX_COLS);
			goto out;
		}
	}
	if (pick_metrics(c, wanted, nr_wanted))
		goto out;
	if (c->dir)
		rc = report_dir(c);
	else
		rc = report(c, NULL);
	if (!rc)
		rc = fflush(stdout) ? 1 : 0;
out:
	free_cmp(c);
	return rc;
}

int compare_sweep_dir(const char *dir, FILE *f)
{
	struct cmp *c = calloc(1, sizeof(*c));
	if (!c) {
		fprintf(stderr, "numasim: out of memory\n");
		return 1;
	}
	out = f;
	int rc = load_dir(c, dir) || pick_metrics(c, NULL, 0) ? EXIT_INPUT : report_dir(c);
	free_cmp(c);
	return rc;
}
