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
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "lib/escape.h"
#include "report/mmstat.h"

#define MAX_FILES 32
#define MAX_COLS 64
#define MAX_METRICS 32

const char compare_usage[] =
	"usage: numasim compare A.json B.json... [OPTIONS]\n"
	"\n"
	"Compare numasim results in the layout of mmtests' compare-kernels: one\n"
	"column per result, the first one the baseline.  Inputs are all 'numasim run\n"
	"--json' results (samples: the per-second values of the time series, and the\n"
	"throughput) or all 'numasim ab --json' results (one column per kernel;\n"
	"samples: the per-pair values of each figure).\n"
	"\n"
	"Rows per metric: Min, Amean (lower is better) or Hmean (higher is better),\n"
	"Stddev, CoeffVar, Max.  The percentage is against the first column and\n"
	"positive always means better.  The mean row shows *x.xx%* instead of\n"
	"(x.xx%) when the difference is significant: |cidiff| > 1, cidiff = (new -\n"
	"base) / (sum of both 95% half-widths, qnorm(0.975) * sample stddev).\n"
	"Run results end with an 'Ops' block of the vmstat counters.\n"
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
	"ab results mixed, unknown metric).\n";

enum source { SRC_SERIES, SRC_SCALAR, SRC_PAIRS };

struct metric {
	const char *name;   /* row label */
	const char *key;    /* JSON key */
	enum source src;
	bool higher_better; /* Hmean and pdiff; else Amean and pndiff */
	double scale;       /* shown value = sample * scale */
	bool skip_zero;     /* a zero means "no sample" (no pass ended that second) */
};

static const struct metric run_metrics[] = {
	{ "tlb-irqs/s", "tlb_irqs_per_s", SRC_SERIES, false, 1, false },
	{ "migrations/s", "migrations_per_s", SRC_SERIES, false, 1, false },
	{ "pte-updates/s", "pte_updates_per_s", SRC_SERIES, false, 1, false },
	{ "pass-ms", "pass_ms", SRC_SERIES, false, 1, true },
	{ "throughput", "throughput_ops_per_s", SRC_SCALAR, true, 1, false },
};

static const struct metric ab_metrics[] = {
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
};

struct cmp {
	int kind;
	json_t *doc[MAX_FILES];
	const char *path[MAX_FILES];
	int nr_files;
	struct column col[MAX_COLS];
	int nr_cols;
	const struct metric *metric[MAX_METRICS];
	int nr_metrics;
	int width; /* of a value column: number + " (  x.xx%)" */
};

/* ---- samples and statistics --------------------------------------------- */

struct summary {
	size_t n;
	double min, mean, stddev, coeffvar, max, ci;
};

static size_t samples_of(const struct metric *m, const struct column *c, double **out)
{
	const json_t *arr = NULL, *scalar = NULL;
	switch (m->src) {
	case SRC_SERIES:
		arr = json_object_get(json_object_get(c->src, "timeseries"), m->key);
		break;
	case SRC_SCALAR:
		scalar = json_object_get(c->src, m->key);
		break;
	case SRC_PAIRS:
		arr = json_object_get(c->src, m->key);
		break;
	}
	size_t max = arr ? json_array_size(arr) : 1;
	double *v = malloc((max ? max : 1) * sizeof(*v));
	size_t n = 0;
	if (!v) {
		fprintf(stderr, "numasim compare: out of memory\n");
		exit(1);
	}
	if (arr) {
		n = mmstat_json_samples(arr, v, max, m->skip_zero);
	} else if (json_is_number(scalar) && isfinite(json_number_value(scalar))) {
		v[0] = json_number_value(scalar);
		n = !(m->skip_zero && v[0] == 0);
	}
	for (size_t i = 0; i < n; i++)
		v[i] *= m->scale;
	*out = v;
	return n;
}

static void summarise(const struct metric *m, const struct column *c, struct summary *s)
{
	double *v;
	size_t n = samples_of(m, c, &v);
	s->n = n;
	s->min = mmstat_min(v, n);
	s->max = mmstat_max(v, n);
	s->mean = m->higher_better ? mmstat_hmean(v, n) : mmstat_mean(v, n);
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
		printf("%*s", width, "n/a");
	else
		printf("%*.2f", width, x == 0 ? 0.0 : x); /* no "-0.00" */
}

static void print_pct(double pct, bool significant)
{
	char open = significant ? '*' : '(', close = significant ? '*' : ')';
	if (isnan(pct))
		printf(" %c%*s%c", open, PCT_WIDTH + 1, "n/a", close);
	else
		printf(" %c%*.2f%%%c", open, PCT_WIDTH, pct == 0 ? 0.0 : pct, close);
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
	printf("%*s", lead, "");
	for (int i = 0; i < c->nr_cols; i++)
		printf("%*s", width, c->col[i].head); /* escaped by name_columns */
	printf("\n");
}

enum stat_row { ROW_MIN, ROW_MEAN, ROW_STDDEV, ROW_COEFFVAR, ROW_MAX, NR_ROWS };

static double stat_of(const struct summary *s, enum stat_row r)
{
	switch (r) {
	case ROW_MIN: return s->min;
	case ROW_MEAN: return s->mean;
	case ROW_STDDEV: return s->stddev;
	case ROW_COEFFVAR: return s->coeffvar;
	case ROW_MAX: return s->max;
	default: return NAN;
	}
}

static void print_metric(const struct cmp *c, const struct metric *m, const struct summary *s, int opw)
{

	for (int r = 0; r < NR_ROWS; r++) {
		static const char *const names[NR_ROWS] = { "Min", NULL, "Stddev", "CoeffVar", "Max" };
		const char *stat = r == ROW_MEAN ? (m->higher_better ? "Hmean" : "Amean") : names[r];
		/* Spread is always better smaller. */
		bool higher = m->higher_better && r != ROW_STDDEV && r != ROW_COEFFVAR;
		printf("%-*s %-*s", STAT_WIDTH, stat, opw, m->name);
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
		printf("\n");
	}
}

/* ---- the Ops block (run results) ------------------------------------------ */

static double counter(const json_t *doc, const char *group, const char *key)
{
	const json_t *v = json_object_get(json_object_get(doc, group), key);
	return json_is_number(v) ? json_number_value(v) : NAN;
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

static double op_value(const json_t *doc, enum op_row r)
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

static void print_ops(const struct cmp *c)
{
	int lw = 0, w = 15;
	for (int r = 0; r < NR_OPS; r++)
		if ((int)strlen(op_names[r]) > lw)
			lw = (int)strlen(op_names[r]);
	for (int i = 0; i < c->nr_cols; i++) {
		if ((int)strlen(c->col[i].head) + 2 > w)
			w = (int)strlen(c->col[i].head) + 2;
		for (int r = 0; r < NR_OPS; r++) {
			char buf[64];
			int l = snprintf(buf, sizeof(buf), "%.2f", op_value(c->col[i].doc, (enum op_row)r));
			if (l + 2 > w)
				w = l + 2;
		}
	}
	print_header(c, lw, w);
	for (int r = 0; r < NR_OPS; r++) {
		printf("%-*s", lw, op_names[r]);
		for (int i = 0; i < c->nr_cols; i++)
			print_value(op_value(c->col[i].doc, (enum op_row)r), w);
		printf("\n");
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

static const struct metric *find_metric(const struct cmp *c, const char *name)
{
	const struct metric *tab = c->kind == MMSTAT_RESULT_RUN ? run_metrics : ab_metrics;
	size_t n = c->kind == MMSTAT_RESULT_RUN ? NR(run_metrics) : NR(ab_metrics);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(tab[i].name, name) || !strcmp(tab[i].key, name))
			return &tab[i];
	return NULL;
}

static int pick_metrics(struct cmp *c, char **wanted, int nr_wanted)
{
	if (!nr_wanted) {
		const struct metric *tab = c->kind == MMSTAT_RESULT_RUN ? run_metrics : ab_metrics;
		size_t n = c->kind == MMSTAT_RESULT_RUN ? NR(run_metrics) : NR(ab_metrics);
		for (size_t i = 0; i < n; i++)
			c->metric[c->nr_metrics++] = &tab[i];
		return 0;
	}
	for (int w = 0; w < nr_wanted; w++) {
		char *save = NULL;
		for (char *tok = strtok_r(wanted[w], ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			const struct metric *m = find_metric(c, tok);
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
							.kernel = str_of(doc, "kernel"), .file = f };
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
	printf("numasim compare: %s", same ? scen : "(several scenarios)");
	if (c->kind == MMSTAT_RESULT_RUN) {
		printf(", %d run%s; samples: one per simulated second (throughput: one per run)\n",
		       c->nr_files, c->nr_files == 1 ? "" : "s");
	} else {
		const json_t *d = c->doc[0];
		printf(", %d ab result%s; samples: one per pair (%lld pairs of %g s)\n",
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
			printf("note: %s ran a different scenario from %s: %s\n", c->path[f], c->path[0], diff);
		else if (n < 0 && (rec0 || recf))
			printf("note: %s has no record of its scenario: cannot tell whether it ran the "
			       "same one as %s\n", rec0 ? c->path[f] : c->path[0], rec0 ? c->path[0] : c->path[f]);
	}
	if (!same) {
		fprintf(stderr, "numasim compare: warning: the inputs are of different scenarios:");
		for (int f = 0; f < c->nr_files; f++)
			fprintf(stderr, " %s", mmstat_scenario_name(c->doc[f]));
		fprintf(stderr, "\n");
	}
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
	struct summary *sum = NULL;
	struct cmp *c = calloc(1, sizeof(*c));
	if (!c) {
		fprintf(stderr, "numasim compare: out of memory\n");
		return 1;
	}

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

	for (int i = optind; i < argc; i++) {
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
	name_columns(c);

	/* mmtests: a 12-wide number and " (%7.2f%%)"; wider for a long
	 * heading or a number that would touch its neighbour. */
	sum = calloc((size_t)c->nr_metrics * MAX_COLS, sizeof(*sum));
	if (!sum) {
		fprintf(stderr, "numasim compare: out of memory\n");
		rc = 1;
		goto out;
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
	print_title(c);
	printf("\n");
	print_header(c, STAT_WIDTH + 1 + opw, c->width);
	for (int m = 0; m < c->nr_metrics; m++)
		print_metric(c, c->metric[m], &sum[m * MAX_COLS], opw);
	if (c->kind == MMSTAT_RESULT_RUN) {
		printf("\n");
		print_ops(c);
	}
	rc = fflush(stdout) ? 1 : 0;
out:
	for (int f = 0; f < c->nr_files; f++)
		json_decref(c->doc[f]);
	free(sum);
	free(c);
	return rc;
}
