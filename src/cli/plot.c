/* numasim plot: draw numasim results with gnuplot (see
 * docs/compare-and-plot.md), at a paper's column or page width.
 *
 * Run results: time-series panels (TLB interrupts/s, migrations/s, scan
 * pass duration, scan period) and two histograms, one line per file.
 * ab results: bar charts of the headline figures per kernel, the bar the
 * mean over the pairs and the error bar their min-max.  A sweep's
 * directory: one figure against a grid key, a line per kernel.
 *
 * gnuplot runs as a child (popen) and reads the script, data included as
 * datablocks, on its standard input.  It writes the output's temporary
 * (lib/outfile.h), renamed into place only when gnuplot succeeded, so a
 * failed plot never leaves a partial or stale-looking file. */
#define _DEFAULT_SOURCE /* realpath */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/sweep.h"
#include "lib/outfile.h"
#include "report/convergence.h"
#include "report/mmstat.h"

#define EXIT_NO_GNUPLOT 3
#define MAX_FILES 16
#define MAX_BARS 128

const char plot_usage[] =
	"usage: numasim plot RESULT.json... -o FILE.svg|.png|.pdf|.txt|- [OPTIONS]\n"
	"       numasim plot DIR.sweep -o FILE [--figure F] [--x KEY] [OPTIONS]\n"
	"\n"
	"Draw numasim results with gnuplot, sized for a paper: a column (3.5 in)\n"
	"or a page (7 in) wide, text at 8 pt (9 pt the title) as printed; every\n"
	"axis in one unit and one tick format, the unit (and a multiple such as\n"
	"thousands) in its label.\n"
	"  run results ('numasim run --json'): time-series panels from the second\n"
	"    simulated second on (the first is the start-up), TLB interrupts/s,\n"
	"    migrations/s, scan pass duration (ms) and scan period (ms), and\n"
	"    histograms of task_numa_work's mmu_gather durations and of the\n"
	"    batched unmaps' migration-to-flush delays; one line per file\n"
	"    (legend: kernel and seed, or the file name).\n"
	"  ab results ('numasim ab --json'): bar charts per kernel, the bar the\n"
	"    mean over the pairs and the error bar their min-max.  The first panel\n"
	"    is the headline the result holds: elapsed time (fixed work), else the\n"
	"    migration calls' pages per second (a workload calling migrate_pages),\n"
	"    else throughput loss (%), else throughput; then kernel cycles per\n"
	"    hinting PTE and TLB interrupts per migrated page where it has them.\n"
	"    The title gives the runs' real lengths.\n"
	"  run results with --kind nodes: the per-node NUMA allocation counters\n"
	"    (node_vmstat: numa_hit, numa_miss, numa_foreign, numa_interleave,\n"
	"    numa_local, numa_other) and nr_free_pages, one panel each, bars per\n"
	"    node, one per file; a counter zero on every node of every file has\n"
	"    no panel (the title names it).\n"
	"  run results with --kind convergence: per process (the first 8 of a\n"
	"    file), the share of its hint faults that ended local (the page on\n"
	"    the task's node after the fault) and of its memory touches that are\n"
	"    local, per second, with the 90% line of the criterion and when each\n"
	"    process converged in the legend; the task node moves per second below.\n"
	"  run results with --kind tiering (a machine with CPU-less nodes): memory\n"
	"    in use on the top and slow tiers, pages promoted and demoted, the\n"
	"    promotion candidates against the rate limit, the hot threshold, and\n"
	"    the share of the touches on the top tier, per second.\n"
	"  a sweep's directory ('numasim sweep'): one figure of its points against\n"
	"    a grid key, one line per kernel (and balancing, and value of any other\n"
	"    grid key), the mean over the seeds with min-max error bars.\n"
	"Run and ab results cannot be mixed in one plot.\n"
	"\n"
	"options:\n"
	"  -o, --output FILE   .svg (gnuplot's svg terminal), .png (pngcairo at 150\n"
	"                      dpi, else gnuplot's png terminal), .pdf (pdfcairo),\n"
	"                      .txt (ASCII art, gnuplot's dumb terminal, for a mail),\n"
	"                      or - (the ASCII art on stdout)\n"
	"  --width W           column (3.5 in) or page (7 in); default: column for a\n"
	"                      one-panel figure (a sweep), page otherwise.  Panels\n"
	"                      are about 3.5 in wide (two side by side on a page, an\n"
	"                      ab plot's in one row); the height follows the rows\n"
	"  --keep-script FILE  also write the gnuplot script, its data inline, to\n"
	"                      FILE: 'gnuplot FILE' draws the figure again (run it\n"
	"                      where numasim ran, or beside the figure when FILE is\n"
	"                      in the figure's directory), to restyle it\n"
	"  --title T           the title above the panels\n"
	"  --kind K            run results: series (the default: time series and\n"
	"                      histograms), nodes (per-node counters),\n"
	"                      convergence (per-process locality over time) or\n"
	"                      tiering (promotion and demotion over time)\n"
	"  --figure F          a sweep: throughput (ops/s), elapsed (s), tlb-irqs/s,\n"
	"                      migrations/s, pte-updates/s (each a run's mean from\n"
	"                      its second second) or tlb-shootdowns (the run's\n"
	"                      total); default: elapsed where the results have it\n"
	"                      (fixed work), else throughput\n"
	"  --x KEY             a sweep: the [grid] key along the x axis (default:\n"
	"                      the first); a numeric key's axis is log2 where its\n"
	"                      values span 16x or more\n"
	"  -h, --help          this text\n"
	"\n"
	"examples:\n"
	"  numasim plot a.json b.json --width column -o runs.pdf\n"
	"  numasim plot ab.json -o ab.pdf --keep-script ab.gp\n"
	"  numasim plot scan.sweep --figure tlb-irqs/s --x numa_balancing.scan_size_mb -o scan.pdf\n"
	"\n"
	"Needs gnuplot (Debian: gnuplot-nox, installed by 'scripts/deps.sh --optional').\n"
	"exit status: 0 ok, 1 gnuplot failed, 2 bad input (missing or non-numasim\n"
	"file, mixed inputs, unknown extension, a sweep without results or without\n"
	"the --x key), 3 gnuplot not found or without the terminal needed.  On\n"
	"failure no output file (nor kept script) is written.\n";

/* Line colours: distinguishable, and readable on white. */
static const char *const colours[] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
};
#define NR_COLOURS (sizeof(colours) / sizeof(colours[0]))

enum format { FMT_SVG, FMT_PNG, FMT_PDF, FMT_TXT };
enum view { VIEW_SERIES, VIEW_NODES, VIEW_CONVERGENCE, VIEW_TIERING, VIEW_SWEEP }; /* --kind; a sweep's directory */
enum width { WIDTH_DEFAULT, WIDTH_COLUMN, WIDTH_PAGE };  /* --width */

/* A paper's column and page widths (inches): ACM, IEEE and USENIX
 * two-column layouts are all within a few points of these. */
#define COLUMN_IN 3.5
#define PAGE_IN 7.0
/* Text size on the page, in points: 8 for tics, keys and panel titles,
 * 9 for the figure's title. */
#define FONT_PT 8
#define TITLE_PT 9
#define PNG_DPI 150
#define MAX_PANELS 8

struct plot {
	const char *out;        /* "-": ASCII art on stdout */
	const char *title;
	const char *keep;       /* --keep-script FILE, or NULL */
	enum format fmt;
	enum width width;
	int kind;
	int view;               /* --kind: enum view */
	json_t *doc[MAX_FILES];
	const char *path[MAX_FILES];
	int nr_files;
	/* the panels drawn (ab: ab_panels[], nodes: node_keys[]), chosen
	 * from the data before the page is sized */
	int panel[MAX_PANELS];
	int nr_panels;
	/* the page: rows x cols panels on w_in x h_in inches (characters for
	 * the text terminal); a title line holds line_chars characters */
	int rows, cols;
	double w_in, h_in;
	int line_chars;
	struct sweep_plot *sw;  /* a sweep's directory: its lines */
};

struct sweep_plot;
static void sweep_script(FILE *f, const struct plot *p);

/* ---- helpers -------------------------------------------------------------- */

/* Strings reach gnuplot only as data: printable ASCII, anything else a
 * '?'.  A line end (or a carriage return) inside a string would end the
 * command or the datablock ("EOD") and let the rest run as gnuplot script,
 * system() included; result files are validated on loading
 * (mmstat_load_result), and this keeps labels and titles safe whatever
 * their source (file names, --title). */
static int gp_char(int c)
{
	return c >= 0x20 && c < 0x7f ? c : '?';
}

/* A gnuplot double-quoted string.  Not single-quoted: gnuplot 5.4 reads
 * only one doubled quote ('') per single-quoted string, and a second one
 * ends the string early.  In double quotes a backquote would run a shell
 * command (gnuplot substitutes `...` before it parses the line), and '"'
 * and '\' are syntax: those three go as octal escapes, which the
 * substitution never sees.  @exact (file names): every other byte outside
 * printable ASCII as an octal escape too, so the name is the one asked
 * for; else as a '?' (labels and titles may reach a terminal). */
static void put_gp_chars(FILE *f, const char *s, size_t n, bool exact)
{
	for (const unsigned char *c = (const unsigned char *)s; n && *c; c++, n--) {
		bool plain = *c >= 0x20 && *c < 0x7f && !strchr("\"\\`", *c);
		if (plain)
			fputc(*c, f);
		else if (exact || strchr("\"\\`", *c))
			fprintf(f, "\\%03o", *c);
		else
			fputc(gp_char(*c), f);
	}
}

static void put_gp_quoted(FILE *f, const char *s, bool exact)
{
	fputc('"', f);
	put_gp_chars(f, s, strlen(s), exact);
	fputc('"', f);
}

/* A title as a gnuplot string broken at blanks into lines of at most
 * @width characters ("\n" between them: gnuplot does not wrap, and a
 * long title runs off a column-wide page).  A word longer than a line
 * stays whole.  Returns the lines; with a NULL @f, only counts them. */
static int put_gp_wrapped(FILE *f, const char *s, int width)
{
	int lines = 1;
	if (f)
		fputc('"', f);
	while (*s) {
		size_t n = strlen(s), cut = n;
		if (width > 10 && n > (size_t)width) {
			cut = (size_t)width;
			while (cut > 0 && s[cut] != ' ')
				cut--;
			if (!cut)
				cut = strcspn(s, " ");
		}
		if (f)
			put_gp_chars(f, s, cut, false);
		s += cut;
		if (*s) {
			if (f)
				fputs("\\n", f);
			lines++;
			while (*s == ' ')
				s++;
		}
	}
	if (f)
		fputc('"', f);
	return lines;
}

static void put_gp_string(FILE *f, const char *s)
{
	put_gp_quoted(f, s, false);
}

/* A string inside a datablock: double-quoted, without double quotes, and
 * without backslashes (gnuplot drops some of them in data strings). */
static void put_data_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++)
		fputc(*s == '"' ? '\'' : *s == '\\' ? '?' : gp_char((unsigned char)*s), f);
	fputc('"', f);
}

static void put_number(FILE *f, double x)
{
	if (isfinite(x))
		fprintf(f, " %.10g", x);
	else
		fprintf(f, " NaN");
}

/* One unit per axis: values up to @max are drawn divided by the returned
 * divisor, every tic in the one format '%g', and the multiple goes in the
 * axis label, "interrupts/s (thousands)".  (gnuplot's '%.0s%c' put "500"
 * and "1k" on one axis, and '%g' alone "800000" beside "1.4e+06".) */
static double axis_unit(double max, const char *unit, char *label, size_t len)
{
	static const struct {
		double div;
		const char *name;
	} m[] = { { 1e9, "billions" }, { 1e6, "millions" }, { 1e3, "thousands" } };
	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++)
		if (max >= 10 * m[i].div) {
			snprintf(label, len, "%s (%s)", unit, m[i].name);
			return m[i].div;
		}
	snprintf(label, len, "%s", unit);
	return 1;
}

/* A tic step of 1, 2 or 5 times a power of ten, the smallest at least
 * @raw. */
static double tic_step(double raw)
{
	double p = pow(10, floor(log10(raw)));
	double m = raw / p;
	return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

/* The y axis of a panel whose values reach @max: its label, format and
 * tics; returns the divisor the plot's columns must be divided by.  The
 * step is at least a fifth of @max, so a panel has five or six labels
 * however short it is: gnuplot's own choice follows the range alone, and
 * gave the first panel of a column-wide run plot (shortened by the
 * legend above it) ten labels one on another. */
static double y_axis(FILE *f, const char *unit, double max)
{
	char label[200];
	double div = axis_unit(max, unit, label, sizeof(label));
	fprintf(f, "set ylabel ");
	put_gp_string(f, label);
	fprintf(f, "\nset format y '%%g'\n");
	if (max > 0 && isfinite(max))
		fprintf(f, "set ytics %.10g\n", tic_step(max / div / 5));
	else
		fprintf(f, "set ytics autofreq\n");
	return div;
}

/* "N" or "(column(N)/DIV)": column @n of a datablock in the axis's unit. */
static const char *col_expr(int n, double div, char *buf, size_t len)
{
	if (div == 1)
		snprintf(buf, len, "%d", n);
	else
		snprintf(buf, len, "(column(%d)/%g)", n, div);
	return buf;
}

static const char *str_of(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "?";
}

/* The gnuplot executable on PATH, or NULL. */
static char *find_gnuplot(void)
{
	const char *path = getenv("PATH");
	if (!path || !*path)
		return NULL;
	char *dirs = strdup(path), *save = NULL;
	if (!dirs)
		return NULL;
	for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		size_t len = strlen(d) + sizeof("/gnuplot");
		char *exe = malloc(len);
		struct stat st;
		if (!exe)
			break;
		snprintf(exe, len, "%s/gnuplot", *d ? d : ".");
		if (!stat(exe, &st) && S_ISREG(st.st_mode) && !access(exe, X_OK)) {
			free(dirs);
			return exe;
		}
		free(exe);
	}
	free(dirs);
	return NULL;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n > m && !strcasecmp(s + n - m, suffix);
}

/* The figure's panels, rows x cols, under @title (9 pt where fonts have
 * sizes, wrapped to the page). */
static void multiplot_at(FILE *f, const struct plot *p, const char *title, const char *layout)
{
	fprintf(f, "set multiplot layout %d,%d title ", p->rows, p->cols);
	put_gp_wrapped(f, title, p->line_chars);
	if (p->fmt != FMT_TXT)
		fprintf(f, " font ',%d'", TITLE_PT);
	fprintf(f, "%s\n", layout ? layout : "");
}

static void multiplot(FILE *f, const struct plot *p, const char *title)
{
	multiplot_at(f, p, title, NULL);
}

/* Results whose recorded scenarios differ (beyond kernel and seed): say so
 * on stderr, and in the title. */
static void scenario_note(const struct plot *p, char *title, size_t len)
{
	char keys[512] = "", diff[1024];
	for (int i = 1; i < p->nr_files; i++) {
		if (mmstat_scenario_diff(p->doc[0], p->doc[i], diff, sizeof(diff), false) <= 0)
			continue;
		fprintf(stderr, "numasim plot: note: %s ran a different scenario from %s: %s\n",
			p->path[i], p->path[0], diff);
		if (!keys[0])
			mmstat_scenario_diff(p->doc[0], p->doc[i], keys, sizeof(keys), true);
	}
	if (keys[0]) {
		size_t n = strlen(title);
		snprintf(title + n, len - n, " (scenarios differ: %.120s)", keys);
	}
}

/* The title of a run plot: --title, or "numasim: SCENARIO, N runs, @what"
 * with the scenario note. */
static void run_title(const struct plot *p, char *title, size_t len, const char *what)
{
	if (p->title) {
		snprintf(title, len, "%s", p->title);
		return;
	}
	const char *scen = mmstat_scenario_name(p->doc[0]);
	bool same = true;
	for (int i = 1; i < p->nr_files; i++)
		same &= !strcmp(scen, mmstat_scenario_name(p->doc[i]));
	snprintf(title, len, "numasim: %s, %d run%s, %s", same ? scen : "several scenarios", p->nr_files,
		 p->nr_files == 1 ? "" : "s", what);
	scenario_note(p, title, len);
}

/* ---- the run plot ---------------------------------------------------------- */

/* Legends: "kernel, seed N"; the file name where two are the same. */
static void run_labels(const struct plot *p, char label[][256])
{
	for (int i = 0; i < p->nr_files; i++) {
		const json_t *seed = json_object_get(p->doc[i], "seed");
		snprintf(label[i], 256, "%s, seed %lld", str_of(p->doc[i], "kernel"),
			 (long long)json_integer_value(seed));
	}
	bool clash[MAX_FILES] = { false };
	for (int i = 0; i < p->nr_files; i++)
		for (int j = 0; j < p->nr_files; j++)
			if (i != j && !strcmp(label[i], label[j]))
				clash[i] = true;
	for (int i = 0; i < p->nr_files; i++)
		if (clash[i])
			mmstat_file_stem(p->path[i], label[i], 256);
	for (int i = 0; i < p->nr_files; i++)
		for (int j = 0; j < i; j++)
			if (clash[i] && !strcmp(label[i], label[j]))
				snprintf(label[i], 256, "%s", p->path[i]);
}

/* What a file's series hold: gnuplot must not be asked to draw a panel
 * without a single point, nor to autoscale an all-zero axis. */
enum { COL_TLB, COL_MIG, COL_PERIOD, COL_PASS, COL_HIST, COL_DELAY, NR_RUN_COLS };
#define MAX_BUCKETS 64

/* The run plot's histograms: the gathers' durations and the batched PTEs'
 * migration-to-flush delays, both log2 buckets in the result JSON. */
enum { HIST_GATHER, HIST_DELAY, NR_HISTS };
static const struct {
	const char *key;      /* under "histograms" */
	const char *block;    /* the datablock's prefix */
	int col;
	const char *title, *ylabel, *xlabel, *empty;
	bool ns;              /* bucket bounds in ns (else us) */
} hists[NR_HISTS] = {
	[HIST_GATHER] = { "numa_gather_us", "h", COL_HIST,
			  "task_numa_work mmu_gather durations", "gathers",
			  "duration", "no mmu_gather durations in these results",
			  false },
	[HIST_DELAY] = { "migrate_flush_delay_ns", "d", COL_DELAY,
			 "batched unmap to the end of its flush, per PTE",
			 "PTEs", "delay",
			 "no batched unmaps in these results (or results older than the delay histogram)",
			 true },
};

struct extent {
	double tmax;
	int hist_lo[NR_HISTS], hist_hi[NR_HISTS];  /* each histogram's first and last non-empty bucket */
	int hist_n[NR_HISTS];                      /* its buckets */
	double ymax[NR_RUN_COLS];
	int points[NR_RUN_COLS];
};

static void note(struct extent *e, int col, double y)
{
	if (!isfinite(y))
		return;
	e->points[col]++;
	if (y > e->ymax[col])
		e->ymax[col] = y;
}

static void series_block(FILE *f, const json_t *doc, int i, struct extent *e)
{
	const json_t *ts = json_object_get(doc, "timeseries");
	const json_t *t = json_object_get(ts, "t_s");
	static const char *const keys[] = { [COL_TLB] = "tlb_irqs_per_s",
					    [COL_MIG] = "migrations_per_s",
					    [COL_PERIOD] = "scan_period_ms" };
	const json_t *col[COL_PASS];
	(void)COL_HIST;
	for (int k = 0; k < COL_PASS; k++)
		col[k] = json_object_get(ts, keys[k]);
	const json_t *pass = json_object_get(ts, "pass_ms");
	memset(e, 0, sizeof(*e));

	/* $s<i>: t, TLB interrupts/s, migrations/s, scan period. */
	fprintf(f, "$s%d << EOD\n", i);
	int rows = 0;
	/* From the second second: the first is the start-up, before
	 * scan_delay_ms, all zeros (and a scan period not yet set); compare
	 * leaves it out too. */
	for (size_t r = 1; r < json_array_size(t); r++) {
		const json_t *tv = json_array_get(t, r);
		if (!json_is_number(tv))
			continue;
		double x = json_number_value(tv);
		fprintf(f, "%.10g", x);
		for (int k = 0; k < COL_PASS; k++) {
			const json_t *v = json_array_get(col[k], r);
			double y = json_is_number(v) ? json_number_value(v) : NAN;
			if (k == COL_PERIOD && !(y > 0))
				y = NAN; /* no scan period yet: no point, not a 0 */
			put_number(f, y);
			note(e, k, y);
		}
		fputc('\n', f);
		if (x > e->tmax)
			e->tmax = x;
		rows++;
	}
	if (!rows)
		fprintf(f, "1 NaN NaN NaN\n");
	fprintf(f, "EOD\n");
	/* $p<i>: t, mean pass duration, for the seconds in which a pass ended. */
	fprintf(f, "$p%d << EOD\n", i);
	for (size_t r = 1; r < json_array_size(t) && r < json_array_size(pass); r++) {
		const json_t *v = json_array_get(pass, r), *tv = json_array_get(t, r);
		if (!json_is_number(v) || !json_is_number(tv) || !(json_number_value(v) > 0))
			continue;
		fprintf(f, "%.10g", json_number_value(tv));
		put_number(f, json_number_value(v));
		fputc('\n', f);
		note(e, COL_PASS, json_number_value(v));
	}
	if (!e->points[COL_PASS])
		fprintf(f, "1 NaN\n");
	fprintf(f, "EOD\n");
	/* $h<i>: bucket, gathers: the histogram of mmu_gather durations;
	 * $d<i>: bucket, PTEs: the migration-to-flush delays */
	for (int k = 0; k < NR_HISTS; k++) {
		const json_t *h = json_object_get(json_object_get(doc, "histograms"), hists[k].key);
		const json_t *count = json_object_get(h, "count");
		fprintf(f, "$%s%d << EOD\n", hists[k].block, i);
		e->hist_lo[k] = -1;
		e->hist_n[k] = (int)(json_array_size(count) < MAX_BUCKETS ? json_array_size(count)
									  : MAX_BUCKETS);
		for (size_t b = 0; b < json_array_size(count) && b < MAX_BUCKETS; b++) {
			const json_t *v = json_array_get(count, b);
			double y = json_is_number(v) ? json_number_value(v) : NAN;
			fprintf(f, "%zu", b);
			put_number(f, y);
			fputc('\n', f);
			if (y > 0) {
				if (e->hist_lo[k] < 0)
					e->hist_lo[k] = (int)b;
				e->hist_hi[k] = (int)b;
				note(e, hists[k].col, y);
			}
		}
		if (!json_array_size(count))
			fprintf(f, "0 NaN\n");
		fprintf(f, "EOD\n");
	}
}

static void run_panel(FILE *f, const struct plot *p, char label[][256], const struct extent *e,
		      const char *title, const char *unit, int col, int panel, const char *empty)
{
	/* One legend, above the first panel, for all four. */
	if (panel == 0)
		fprintf(f, "set key outside top center horizontal samplen 3 spacing 1.2 width 1\n");
	else
		fprintf(f, "unset key\n");
	fprintf(f, "set title ");
	put_gp_string(f, title);
	fprintf(f, "\n");
	/* the time axis labelled under the bottom row's panels */
	if (panel >= 4 - p->cols)
		fprintf(f, "set xlabel 'simulated time (s)'\n");
	else
		fprintf(f, "unset xlabel\n");

	double ymax = 0;
	int drawn = 0;
	for (int i = 0; i < p->nr_files; i++) {
		drawn += e[i].points[col] > 0;
		if (e[i].ymax[col] > ymax)
			ymax = e[i].ymax[col];
	}
	fprintf(f, ymax > 0 ? "set yrange [0:*]\n" : "set yrange [0:1]\n");
	double div = y_axis(f, unit, ymax);
	if (!drawn) {
		fprintf(f, "set label 1 ");
		put_gp_string(f, empty);
		fprintf(f, " at graph 0.5, graph 0.5 center\nplot -1 notitle\nunset label 1\n");
		return;
	}
	const char *block = col == COL_PASS ? "p" : "s";
	char y[64];
	col_expr(col == COL_PASS ? 2 : 2 + col, div, y, sizeof(y));
	fprintf(f, "plot ");
	for (int i = 0, n = 0; i < p->nr_files; i++) {
		if (!e[i].points[col])
			continue;
		fprintf(f, "%s$%s%d using 1:%s with linespoints lw 1.5 pt %d ps 0.5 dt %d lc rgb '%s' title ",
			n++ ? ", \\\n     " : "", block, i, y, 7 + (i % 3) * 2,
			1 + (i / (int)NR_COLOURS) % 4, colours[i % NR_COLOURS]);
		put_gp_string(f, label[i]);
	}
	fprintf(f, "\n");
}

/* The unit of a log2 histogram's axis: the smallest of ns, us, ms, s
 * (from the histogram's own, @base) in which bucket @hi's lower bound is
 * below 10000, so that every tic is one '%.4g' of one unit. */
static const char *bucket_unit(int hi, int base, double *div)
{
	static const char *const names[] = { "ns", "us", "ms", "s" };
	double v = hi ? (double)(1ull << (hi - 1)) : 1;
	int u = base;
	*div = 1;
	while (u < 3 && v / *div >= 10000) {
		*div *= 1000;
		u++;
	}
	return names[u];
}

/* A bucket's lower bound as a tic label, in the axis's unit: "<1" for
 * bucket 0 (below one of the histogram's own unit). */
static void bucket_tic(FILE *f, int b, double div)
{
	double v = b ? (double)(1ull << (b - 1)) : 1;
	fprintf(f, "'%s%.4g'", b ? "" : "<", v / div);
}

/* A histogram of the results (hists[@k]), one outline per file over the
 * log2 buckets the results record. */
static void hist_panel(FILE *f, const struct plot *p, char label[][256], const struct extent *e, int k)
{
	int lo = -1, hi = -1, nb = 0;
	double ymax = 0;
	for (int i = 0; i < p->nr_files; i++) {
		nb = e[i].hist_n[k] > nb ? e[i].hist_n[k] : nb;
		ymax = e[i].ymax[hists[k].col] > ymax ? e[i].ymax[hists[k].col] : ymax;
	}
	for (int i = 0; i < p->nr_files; i++)
		if (e[i].hist_lo[k] >= 0) {
			lo = lo < 0 || e[i].hist_lo[k] < lo ? e[i].hist_lo[k] : lo;
			hi = e[i].hist_hi[k] > hi ? e[i].hist_hi[k] : hi;
		}
	fprintf(f, "unset key\nset title ");
	put_gp_string(f, hists[k].title);
	fprintf(f, "\n");
	double ydiv = y_axis(f, hists[k].ylabel, ymax);
	fprintf(f, "set yrange [0:*]\n");
	if (lo < 0) {
		fprintf(f, "unset xlabel\nset xrange [0:1]\nset yrange [0:1]\nset xtics autofreq\nset label 1 ");
		put_gp_string(f, hists[k].empty);
		fprintf(f, " at graph 0.5, graph 0.5 center\nplot -1 notitle\nunset label 1\n");
		return;
	}
	/* an empty bucket each side, so the outline comes down to 0 */
	lo = lo > 0 ? lo - 1 : lo;
	hi = hi + 1 < nb ? hi + 1 : hi;
	double div;
	char xlabel[200], y[64];
	const char *unit = bucket_unit(hi, hists[k].ns ? 0 : 1, &div);
	snprintf(xlabel, sizeof(xlabel), "%s (%s, log2 bucket lower bound)", hists[k].xlabel, unit);
	fprintf(f, "set xlabel ");
	put_gp_string(f, xlabel);
	/* every other bucket's tic where they would crowd a column's width */
	int step = hi - lo > (p->cols == 1 && p->w_in <= COLUMN_IN ? 12 : 8) ? 2 : 1;
	fprintf(f, "\nset xrange [%g:%g]\nset xtics (", lo - 0.5, hi + 0.5);
	for (int b = lo; b <= hi; b += step) {
		fprintf(f, "%s", b > lo ? ", " : "");
		bucket_tic(f, b, div);
		fprintf(f, " %d", b);
	}
	fprintf(f, ")\nplot ");
	col_expr(2, ydiv, y, sizeof(y));
	for (int i = 0, n = 0; i < p->nr_files; i++) {
		if (e[i].hist_lo[k] < 0)
			continue;
		fprintf(f, "%s$%s%d using 1:%s with histeps lw 1.5 dt %d lc rgb '%s' title ",
			n++ ? ", \\\n     " : "", hists[k].block, i, y, 1 + (i / (int)NR_COLOURS) % 4,
			colours[i % NR_COLOURS]);
		put_gp_string(f, label[i]);
	}
	fprintf(f, "\n");
}

static void run_script(FILE *f, const struct plot *p)
{
	char label[MAX_FILES][256];
	struct extent e[MAX_FILES];
	double tmax = 0;
	run_labels(p, label);
	for (int i = 0; i < p->nr_files; i++) {
		series_block(f, p->doc[i], i, &e[i]);
		if (e[i].tmax > tmax)
			tmax = e[i].tmax;
	}

	char title[512];
	run_title(p, title, sizeof(title), "per simulated second from the second second");
	multiplot(f, p, title);
	/* the left margin fixed, so the panels of a column line up */
	fprintf(f, "set grid\n"
		   "set xrange [1:%.10g]\n"
		   "set lmargin 9\n"
		   "set rmargin 2\n",
		tmax > 1 ? tmax : 2);
	run_panel(f, p, label, e, "TLB shootdown interrupts per second", "interrupts/s", COL_TLB, 0,
		  "no data");
	run_panel(f, p, label, e, "pages migrated/s (numa_pages_migrated)", "pages/s", COL_MIG, 1,
		  "no data");
	run_panel(f, p, label, e, "scan pass duration (passes ending each second)", "ms", COL_PASS, 2,
		  "no scan pass ended in these runs");
	run_panel(f, p, label, e, "scan period (numa_scan_period)", "ms", COL_PERIOD, 3, "no data");
	hist_panel(f, p, label, e, HIST_GATHER);
	hist_panel(f, p, label, e, HIST_DELAY);
	fprintf(f, "unset multiplot\n");
}

/* ---- memory tiering ---------------------------------------------------------- */

/* The tiering series of a run on a machine with a slow tier (docs/tiering.md),
 * as columns 2.. of datablock $t<i>; the first is the time. */
static const char *const tier_keys[] = {
	"top_tier_gib", "slow_tier_gib", "promoted_per_s", "demoted_per_s",
	"promote_candidates_per_s", "hot_threshold_ms", "top_tier_touch_share",
};
#define NR_TIER_KEYS (sizeof(tier_keys) / sizeof(tier_keys[0]))
enum { TK_TOP, TK_SLOW, TK_PROMOTED, TK_DEMOTED, TK_CAND, TK_THRESHOLD, TK_SHARE };

/* $t<i> from @doc; each column's largest value into @ymax; false if the
 * run has no tiering series. */
static bool tier_block(FILE *f, const json_t *doc, int i, double *ymax, double *tmax)
{
	const json_t *ts = json_object_get(doc, "timeseries"), *t = json_object_get(ts, "t_s");
	const json_t *col[NR_TIER_KEYS];
	for (size_t k = 0; k < NR_TIER_KEYS; k++)
		if (!json_is_array(col[k] = json_object_get(ts, tier_keys[k])))
			return false;
	fprintf(f, "$t%d << EOD\n", i);
	for (size_t r = 0; r < json_array_size(t); r++) {
		const json_t *tv = json_array_get(t, r);
		if (!json_is_number(tv))
			continue;
		fprintf(f, "%.10g", json_number_value(tv));
		for (size_t k = 0; k < NR_TIER_KEYS; k++) {
			const json_t *v = json_array_get(col[k], r);
			double y = json_is_number(v) ? json_number_value(v) : NAN;
			if (k == TK_SHARE && y >= 0)
				y *= 100; /* per cent */
			put_number(f, y);
			if (isfinite(y) && y > ymax[k])
				ymax[k] = y;
		}
		fputc('\n', f);
		if (json_number_value(tv) > *tmax)
			*tmax = json_number_value(tv);
	}
	fprintf(f, "EOD\n");
	return true;
}

/* One panel: for each file, the columns @a and (if >= 0) @b of its $t
 * block, @b dashed; @limit a horizontal line (0: none). */
static void tier_panel(FILE *f, const struct plot *p, char label[][256], const bool *has,
		       const double *ymax, const char *title, const char *unit, int a, int b,
		       const char *a_name, const char *b_name, double limit, int panel)
{
	fprintf(f, panel == 0 ? "set key outside top center horizontal samplen 3 spacing 1.2 width 1\n"
			      : "unset key\n");
	fprintf(f, "set title ");
	put_gp_string(f, title);
	fprintf(f, "\n");
	fprintf(f, panel >= p->nr_panels - p->cols ? "set xlabel 'simulated time (s)'\n" : "unset xlabel\n");
	double max = fmax(ymax[a], b >= 0 ? ymax[b] : 0);
	if (limit > 0 && limit < 4 * max)
		max = fmax(max, limit);
	fprintf(f, max > 0 ? "set yrange [0:*]\n" : "set yrange [0:1]\n");
	double div = y_axis(f, unit, max);
	char y[64];
	fprintf(f, "plot ");
	int n = 0;
	for (int i = 0; i < p->nr_files; i++) {
		if (!has[i])
			continue;
		for (int k = 0; k < 2; k++) {
			int c = k ? b : a;
			if (c < 0)
				continue;
			col_expr(2 + c, div, y, sizeof(y));
			fprintf(f, "%s$t%d using 1:%s with lines lw 1.5 dt %d lc rgb '%s' title ", n++ ? ", \\\n     " : "",
				i, y, k ? 2 : 1, colours[i % NR_COLOURS]);
			char t[300];
			snprintf(t, sizeof(t), "%s%s%s", label[i], b >= 0 ? ", " : "", b >= 0 ? (k ? b_name : a_name) : "");
			put_gp_string(f, t);
		}
	}
	if (limit > 0 && limit < 4 * fmax(ymax[a], 1)) {
		fprintf(f, ", \\\n     %.10g with lines lw 1 dt 3 lc rgb 'black' title ", limit / div);
		put_gp_string(f, "rate limit");
	}
	fprintf(f, "\n");
}

/* --kind tiering: memory per tier, pages promoted and demoted a second,
 * the promotion candidates against the rate limit, the hot threshold, the
 * touches on the top tier. */
static void tiering_script(FILE *f, const struct plot *p)
{
	char label[MAX_FILES][256], title[512];
	double ymax[NR_TIER_KEYS] = { 0 }, tmax = 0, limit = 0;
	bool has[MAX_FILES];
	run_labels(p, label);
	for (int i = 0; i < p->nr_files; i++) {
		has[i] = tier_block(f, p->doc[i], i, ymax, &tmax);
		const json_t *l = json_object_get(json_object_get(p->doc[i], "tiering"),
						  "promote_rate_limit_pages_per_s");
		/* the lowest of the files' limits: the one a line could reach */
		if (json_is_number(l) && (limit == 0 || json_number_value(l) < limit))
			limit = json_number_value(l);
	}
	run_title(p, title, sizeof(title), "memory tiering per simulated second");
	multiplot(f, p, title);
	fprintf(f, "set grid\nset xrange [0:%.10g]\nset lmargin 9\nset rmargin 2\n", tmax > 1 ? tmax : 2);
	tier_panel(f, p, label, has, ymax, "memory in use per tier", "GiB", TK_TOP, TK_SLOW, "top",
		   "slow", 0, 0);
	tier_panel(f, p, label, has, ymax, "pages promoted and demoted", "pages/s", TK_PROMOTED,
		   TK_DEMOTED, "promoted", "demoted", 0, 1);
	tier_panel(f, p, label, has, ymax, "promotion candidates (pgpromote_candidate)", "pages/s",
		   TK_CAND, -1, NULL, NULL, limit, 2);
	tier_panel(f, p, label, has, ymax, "hot threshold", "ms", TK_THRESHOLD, -1, NULL, NULL, 0, 3);
	tier_panel(f, p, label, has, ymax, "touches on the top tier", "%", TK_SHARE, -1, NULL, NULL, 0, 4);
	fprintf(f, "unset multiplot\n");
}

/* ---- the per-node counters --------------------------------------------------- */

/* The counters of a result's node_vmstat the model counts, as the kernel's
 * /sys/devices/system/node/nodeN/vmstat names them. */
static const char *const node_keys[] = {
	"numa_hit", "numa_miss", "numa_foreign", "numa_interleave", "numa_local", "numa_other",
	"nr_free_pages",
};
#define NR_NODE_KEYS (sizeof(node_keys) / sizeof(node_keys[0]))
#define MAX_NODES 64

/* A counter's largest value over the nodes of every file. */
static double node_key_max(const struct plot *p, size_t k)
{
	double max = 0;
	for (int i = 0; i < p->nr_files; i++) {
		size_t n;
		const json_t *o;
		json_array_foreach(json_object_get(p->doc[i], "node_vmstat"), n, o) {
			const json_t *v = json_object_get(o, node_keys[k]);
			double y = json_is_number(v) ? json_number_value(v) : NAN;
			if (n < MAX_NODES && isfinite(y) && fabs(y) > max)
				max = fabs(y);
		}
	}
	return max;
}

/* The panels of the nodes plot: the counters non-zero on some node of
 * some file (a panel of zeros says nothing a line in the title cannot);
 * numa_hit alone where every counter is zero or missing. */
static void nodes_panels(struct plot *p)
{
	p->nr_panels = 0;
	for (size_t k = 0; k < NR_NODE_KEYS; k++)
		if (node_key_max(p, k) > 0)
			p->panel[p->nr_panels++] = (int)k;
	if (!p->nr_panels)
		p->panel[p->nr_panels++] = 0;
}

/* One panel per counter drawn; in each, a group of bars per node, one bar
 * per file (its colour the legend's). */
static void nodes_script(FILE *f, const struct plot *p)
{
	char label[MAX_FILES][256];
	int nn[MAX_FILES], nodes = 0;
	double ymax[NR_NODE_KEYS] = { 0 };
	run_labels(p, label);
	for (int i = 0; i < p->nr_files; i++) {
		const json_t *a = json_object_get(p->doc[i], "node_vmstat");
		nn[i] = (int)(json_array_size(a) < MAX_NODES ? json_array_size(a) : MAX_NODES);
		nodes = nn[i] > nodes ? nn[i] : nodes;
		/* $n<i>: node, then each counter */
		fprintf(f, "$n%d << EOD\n", i);
		for (int n = 0; n < nn[i]; n++) {
			const json_t *o = json_array_get(a, (size_t)n);
			fprintf(f, "%d", n);
			for (size_t k = 0; k < NR_NODE_KEYS; k++) {
				const json_t *v = json_object_get(o, node_keys[k]);
				double y = json_is_number(v) ? json_number_value(v) : NAN;
				put_number(f, y);
				if (isfinite(y) && y > ymax[k])
					ymax[k] = y;
			}
			fputc('\n', f);
		}
		if (!nn[i]) {
			fprintf(f, "0");
			for (size_t k = 0; k < NR_NODE_KEYS; k++)
				fprintf(f, " NaN");
			fprintf(f, "\n");
		}
		fprintf(f, "EOD\n");
	}

	/* the counters left out, named in the title */
	char title[1024], what[512] = "per-node allocation counters (nodeN/vmstat)";
	bool shown[NR_NODE_KEYS] = { false }, zeros = false;
	for (int q = 0; q < p->nr_panels; q++)
		shown[p->panel[q]] = true;
	for (size_t k = 0; k < NR_NODE_KEYS; k++) {
		if (shown[k])
			continue;
		size_t n = strlen(what);
		snprintf(what + n, sizeof(what) - n, "%s%s", zeros ? ", " : "; all zero, not drawn: ",
			 node_keys[k]);
		zeros = true;
	}
	run_title(p, title, sizeof(title), what);
	multiplot(f, p, title);
	double w = 0.8 / p->nr_files;
	fprintf(f, "set style fill %s\nset boxwidth %g\nset grid ytics\nset xtics nomirror scale 0\n",
		p->fmt == FMT_TXT ? "empty border -1" : "solid 0.55 border -1", w);
	fprintf(f, "set xrange [-0.6:%g]\nset xtics (", nodes ? nodes - 0.4 : 0.6);
	for (int n = 0; n < nodes; n++)
		fprintf(f, "%s'node %d' %d", n ? ", " : "", n, n);
	fprintf(f, ")\n");
	for (int q = 0; q < p->nr_panels; q++) {
		size_t k = (size_t)p->panel[q];
		if (q == 0)
			fprintf(f, "set key outside top center horizontal samplen 2\n");
		else
			fprintf(f, "unset key\n");
		fprintf(f, "set title ");
		put_gp_string(f, node_keys[k]);
		fprintf(f, "\n%s\n", ymax[k] > 0 ? "set yrange [0:*]" : "set yrange [0:1]");
		if (!strcmp(node_keys[k], "nr_free_pages"))
			fprintf(f, "set title 'nr_free_pages (at the end of the run)'\n");
		double div = y_axis(f, "pages", ymax[k]);
		char y[64];
		col_expr((int)k + 2, div, y, sizeof(y));
		if (!nodes) {
			fprintf(f, "set label 1 'no per-node counters in these results (older than node_vmstat)' "
				   "at graph 0.5, graph 0.5 center\nplot -1 notitle\nunset label 1\n");
			continue;
		}
		fprintf(f, "plot ");
		for (int i = 0, n = 0; i < p->nr_files; i++) {
			if (!nn[i])
				continue;
			double off = (i - (p->nr_files - 1) / 2.0) * w;
			fprintf(f, "%s$n%d using ($1%+g):%s with boxes lc rgb '%s' title ", n++ ? ", \\\n     " : "",
				i, off, y, colours[i % NR_COLOURS]);
			put_gp_string(f, label[i]);
		}
		fprintf(f, "\n");
	}
	fprintf(f, "unset multiplot\n");
}

/* ---- convergence -------------------------------------------------------------- */

#define MAX_PROCS_DRAWN 8 /* per file; the JSON has them all */

/* The per-process series of one result (convergence.processes): $c<i>_<m>
 * holds t, ended-local hint-fault share (%), memory local share (%); $m<i> the
 * run's task node moves per second.  Returns the processes written. */
static int convergence_blocks(FILE *f, const json_t *doc, int i, double *tmax)
{
	const json_t *t = json_object_get(json_object_get(doc, "timeseries"), "t_s");
	const json_t *procs = json_object_get(json_object_get(doc, "convergence"), "processes");
	const json_t *moves = json_object_get(json_object_get(doc, "timeseries"), "task_node_moves_per_s");
	int n = (int)(json_array_size(procs) < MAX_PROCS_DRAWN ? json_array_size(procs) : MAX_PROCS_DRAWN);
	for (int m = 0; m < n; m++) {
		const json_t *pr = json_array_get(procs, (size_t)m);
		const json_t *lf = json_object_get(pr, "ended_local_fault_share");
		const json_t *mem = json_object_get(pr, "memory_local_share");
		fprintf(f, "$c%d_%d << EOD\n", i, m);
		for (size_t r = 0; r < json_array_size(t); r++) {
			double x = json_number_value(json_array_get(t, r));
			const json_t *a = json_array_get(lf, r), *b = json_array_get(mem, r);
			fprintf(f, "%.10g", x);
			put_number(f, json_is_number(a) ? 100 * json_number_value(a) : NAN);
			put_number(f, json_is_number(b) ? 100 * json_number_value(b) : NAN);
			fputc('\n', f);
			*tmax = x > *tmax ? x : *tmax;
		}
		if (!json_array_size(t))
			fprintf(f, "1 NaN NaN\n");
		fprintf(f, "EOD\n");
	}
	fprintf(f, "$m%d << EOD\n", i);
	for (size_t r = 0; r < json_array_size(t); r++) {
		const json_t *v = json_array_get(moves, r);
		fprintf(f, "%.10g", json_number_value(json_array_get(t, r)));
		put_number(f, json_is_number(v) ? json_number_value(v) : NAN);
		fputc('\n', f);
	}
	if (!json_array_size(t))
		fprintf(f, "1 NaN\n");
	fprintf(f, "EOD\n");
	return n;
}

/* A line's legend: the file's label, the process, when it converged. */
static void convergence_label(char *buf, size_t len, const char *label, const json_t *doc, int m,
			      int procs)
{
	const json_t *pr = json_array_get(json_object_get(json_object_get(doc, "convergence"), "processes"),
					  (size_t)m);
	const json_t *c = json_object_get(pr, "converged_s");
	char when[48];
	if (json_is_number(c))
		snprintf(when, sizeof(when), "converged at %g s", json_number_value(c));
	else
		snprintf(when, sizeof(when), "not converged");
	if (procs > 1)
		snprintf(buf, len, "%s, process %d: %s", label, m, when);
	else
		snprintf(buf, len, "%s: %s", label, when);
}

/* Panels of the shares (column @col of $c) with the criterion's line. */
static void share_panel(FILE *f, const struct plot *p, char label[][256], const int *procs, int col,
			const char *title)
{
	fprintf(f, "set title ");
	put_gp_string(f, title);
	fprintf(f, "\nset ylabel 'share (%%)'\nset yrange [0:105]\nset format y '%%g'\nplot ");
	int lines = 0;
	for (int i = 0; i < p->nr_files; i++)
		for (int m = 0; m < procs[i]; m++) {
			char buf[400];
			convergence_label(buf, sizeof(buf), label[i], p->doc[i], m, procs[i]);
			fprintf(f, "%s$c%d_%d using 1:%d with linespoints lw 2 pt %d ps 0.6 dt %d lc rgb '%s' title ",
				lines ? ", \\\n     " : "", i, m, col, 7 + (m % 3) * 2, 1 + m % 4,
				colours[i % NR_COLOURS]);
			put_gp_string(f, buf);
			lines++;
		}
	fprintf(f, "%s%g with lines dt 2 lw 1 lc rgb '#555555' title '%g%% (the criterion)'\n",
		lines ? ", \\\n     " : "", 100 * CONVERGED_SHARE, 100 * CONVERGED_SHARE);
}

/* --kind convergence: per process, the local share of its hint faults and
 * of its memory touches per second, and the task node moves per second. */
static void convergence_script(FILE *f, const struct plot *p)
{
	char label[MAX_FILES][256];
	int procs[MAX_FILES];
	double tmax = 0;
	run_labels(p, label);
	for (int i = 0; i < p->nr_files; i++)
		procs[i] = convergence_blocks(f, p->doc[i], i, &tmax);
	char title[512];
	run_title(p, title, sizeof(title), "convergence per process");
	multiplot(f, p, title);
	fprintf(f, "set grid\nset xrange [0:%.10g]\nset lmargin 9\nset rmargin 2\n", tmax > 1 ? tmax : 2);
	fprintf(f, "set key outside top center horizontal samplen 3 spacing 1.2 width 0\n");
	share_panel(f, p, label, procs, 2, "hint faults that left the page local, per second");
	fprintf(f, "unset key\n");
	share_panel(f, p, label, procs, 3, "local memory touches (mean over threads)");
	double moves = 0;
	for (int i = 0; i < p->nr_files; i++) {
		size_t r;
		const json_t *v;
		json_array_foreach(json_object_get(json_object_get(p->doc[i], "timeseries"), "task_node_moves_per_s"),
				   r, v)
			if (json_is_number(v) && json_number_value(v) > moves)
				moves = json_number_value(v);
	}
	fprintf(f, "set title 'task node moves per second, all processes'\n");
	char y[64];
	col_expr(2, y_axis(f, "moves/s", moves), y, sizeof(y));
	/* no move at all: a fixed range (gnuplot warns of an empty one) */
	fprintf(f, "set yrange [0:%s]\nset xlabel 'simulated time (s)'\nplot ", moves > 0 ? "*" : "1");
	for (int i = 0; i < p->nr_files; i++) {
		fprintf(f, "%s$m%d using 1:%s with linespoints lw 1.5 pt 7 ps 0.5 lc rgb '%s' title ",
			i ? ", \\\n     " : "", i, y, colours[i % NR_COLOURS]);
		put_gp_string(f, label[i]);
	}
	fprintf(f, "\nunset xlabel\nunset multiplot\n");
}

/* ---- the ab plot ------------------------------------------------------------ */

/* The figures an ab plot draws.  The first of the headlines the result
 * holds leads (numasim ab writes elapsed_s only for fixed work, and
 * call_pages_per_s only where the workload makes migration calls, so the
 * data say which), then the others that it holds. */
enum { AB_ELAPSED, AB_CALL_RATE, AB_LOSS, AB_THROUGHPUT, AB_KCYCLES, AB_IRQS, NR_AB_PANELS };
static const struct {
	const char *key, *title, *unit;
	double scale;
	bool headline;
} ab_panels[NR_AB_PANELS] = {
	[AB_ELAPSED] = { "elapsed_s", "elapsed time (fixed work)", "s", 1, true },
	[AB_CALL_RATE] = { "call_pages_per_s", "migration calls: pages moved per second", "pages/s", 1, true },
	[AB_LOSS] = { "throughput_loss", "throughput loss from balancing", "%", 100, true },
	[AB_THROUGHPUT] = { "throughput_mops_per_s", "throughput", "Mops/s", 1e-6, true },
	[AB_KCYCLES] = { "kernel_cycles_per_hinting_pte", "kernel cycles per hinting PTE", "cycles", 1, false },
	[AB_IRQS] = { "tlb_irqs_per_migrated_page", "TLB interrupts per migrated page", "interrupts", 1,
		      false },
};

/* Does some kernel of some file have a number for figure @key? */
static bool ab_has(const struct plot *p, const char *key)
{
	for (int i = 0; i < p->nr_files; i++) {
		const char *name;
		json_t *k;
		json_object_foreach(json_object_get(p->doc[i], "kernels"), name, k) {
			size_t j;
			const json_t *v;
			json_array_foreach(json_object_get(k, key), j, v)
				if (json_is_number(v))
					return true;
		}
	}
	return false;
}

static void ab_choose_panels(struct plot *p)
{
	p->nr_panels = 0;
	for (int q = 0; q < NR_AB_PANELS && !p->nr_panels; q++)
		if (ab_panels[q].headline && ab_has(p, ab_panels[q].key))
			p->panel[p->nr_panels++] = q;
	for (int q = 0; q < NR_AB_PANELS; q++)
		if (!ab_panels[q].headline && ab_has(p, ab_panels[q].key))
			p->panel[p->nr_panels++] = q;
	if (!p->nr_panels)
		p->panel[p->nr_panels++] = AB_LOSS; /* drawn with "no data" */
}

/* The shortest and longest run of the results: the elapsed times where
 * the work was fixed, else the duration asked for (every timed run lasts
 * it). */
static void ab_run_span(const struct plot *p, double *lo, double *hi)
{
	static const char *const keys[] = { "elapsed_s", "elapsed_off_s" };
	*lo = INFINITY;
	*hi = -INFINITY;
	for (int i = 0; i < p->nr_files; i++) {
		const char *name;
		json_t *k;
		bool fixed = false;
		json_object_foreach(json_object_get(p->doc[i], "kernels"), name, k)
			for (size_t q = 0; q < 2; q++) {
				size_t j;
				const json_t *v;
				json_array_foreach(json_object_get(k, keys[q]), j, v) {
					if (!json_is_number(v))
						continue;
					fixed = true;
					*lo = fmin(*lo, json_number_value(v));
					*hi = fmax(*hi, json_number_value(v));
				}
			}
		const json_t *d = json_object_get(p->doc[i], "simulated_seconds");
		if (!fixed && json_is_number(d)) {
			*lo = fmin(*lo, json_number_value(d));
			*hi = fmax(*hi, json_number_value(d));
		}
	}
}

/* "numasim ab: SCENARIO, N pairs per kernel (balancing on and off), runs
 * of 2.8-3.1 s; bar: mean, error bar: min-max" from the results
 * themselves: a fixed-work run ends when its work does. */
static void ab_title(const struct plot *p, char *title, size_t len)
{
	if (p->title) {
		snprintf(title, len, "%s", p->title);
		return;
	}
	const json_t *d = p->doc[0];
	const char *bal = json_string_value(json_object_get(d, "balancing"));
	long long n = (long long)json_integer_value(json_object_get(d, "pairs"));
	double lo, hi;
	char runs[128], span[96] = "";
	if (!bal || !strcmp(bal, "both"))
		snprintf(runs, sizeof(runs), "%lld pair%s per kernel (balancing on and off)", n, n == 1 ? "" : "s");
	else
		snprintf(runs, sizeof(runs), "%lld run%s per kernel, balancing %s", n, n == 1 ? "" : "s", bal);
	ab_run_span(p, &lo, &hi);
	if (lo <= hi)
		snprintf(span, sizeof(span), lo == hi ? ", runs of %.3g s" : ", runs of %.3g-%.3g s", lo, hi);
	snprintf(title, len, "numasim ab: %s, %s%s%s; bar: mean, error bar: min-max", mmstat_scenario_name(d),
		 runs, span, ab_has(p, "elapsed_s") ? " (fixed work)" : "");
	scenario_note(p, title, len);
}

/* The footnote naming the published ranges' source, under the panels,
 * its @lines lines counted up from the page's foot. */
static void ab_footnote(FILE *f, const struct plot *p, const char *note, int lines)
{
	fprintf(f, "set label 98 ");
	put_gp_wrapped(f, note, p->line_chars);
	fprintf(f, " at character 1, character %d left\n", lines);
}

/* The ab figure's panels at fixed places (gnuplot's layout margins and
 * spacing, as screen fractions): every plot area the same size, the
 * title's lines above, @bottom text lines under the lowest row (the
 * kernel names and the footnote), and between @stacked rows the next
 * panel's title only (their bars share the lowest row's names).  A layout
 * that gives each panel its own margins instead left the stacked panels of
 * a column-wide figure a sliver each: every one kept room for the names
 * and the footnote.  @turned: the @n names @label are turned 35 degrees
 * and end at their bar, so the room left of each panel (the page's left
 * margin, the spacing between panels) must hold the part of a name that
 * reaches past the panel's left edge. */
static void ab_layout(const struct plot *p, const char *title, int bottom, bool stacked, bool turned,
		      char label[][256], int n, char *buf, size_t len)
{
	const double line = FONT_PT * 1.3 / 72, title_line = TITLE_PT * 1.3 / 72, chr = FONT_PT * 0.6 / 72;
	double top = put_gp_wrapped(NULL, title, p->line_chars) * title_line + 2.6 * line;
	double below = (bottom + 0.5) * line, gap = stacked ? 2.6 * line : 0;
	/* on the right, room for a panel title a little wider than its panel */
	double left = 9 * chr, right = 3 * chr;
	for (int it = 0; turned && it < 3; it++) {
		/* bar b at x = b of [-0.7, n - 0.1]; a name's run to the left
		 * of its bar, cos 35 of its length */
		double w = (p->w_in - left - right - (p->cols - 1) * (left + chr)) / p->cols, need = 0;
		for (int b = 0; b < n; b++)
			need = fmax(need, (double)strlen(label[b]) * chr * 0.82 - (b + 0.7) / (n + 0.6) * w);
		/* at most a third of a panel's share of the page: a longer
		 * name is cut rather than the bars squeezed to nothing */
		left = fmin(fmax(9 * chr, need + chr), p->w_in / p->cols / 3);
	}
	/* the plot areas' share of the page, at least a fifth of it: names
	 * or footnotes too long for the page take from the room under the
	 * panels (they then crowd), never from the titles' */
	double spare = p->h_in - top - below - (p->rows - 1) * gap;
	if (spare < p->h_in / 5)
		below = fmax(line, below - (p->h_in / 5 - spare));
	snprintf(buf, len, " margins %.4f,%.4f,%.4f,%.4f spacing %.4f,%.4f", left / p->w_in,
		 1 - right / p->w_in, below / p->h_in, 1 - top / p->h_in,
		 p->cols > 1 ? (left + chr) / p->w_in : 0, gap / p->h_in);
}

static int ab_script(FILE *f, const struct plot *p)
{
	char label[MAX_BARS][256];
	const json_t *kobj[MAX_BARS];
	const char *kname[MAX_BARS];
	int file_of[MAX_BARS];
	int n = 0;
	size_t longest = 0;
	for (int i = 0; i < p->nr_files; i++) {
		const char *name;
		json_t *k;
		json_object_foreach(json_object_get(p->doc[i], "kernels"), name, k) {
			if (n == MAX_BARS)
				break;
			kobj[n] = k;
			kname[n] = name;
			file_of[n] = i;
			snprintf(label[n], 256, "%s", name);
			n++;
		}
	}
	/* The same kernel from two files: "kernel (file)". */
	for (int i = 0; i < n; i++) {
		bool clash = false;
		for (int j = 0; j < n; j++)
			clash |= i != j && !strcmp(kname[i], kname[j]);
		if (clash) {
			char stem[200];
			mmstat_file_stem(p->path[file_of[i]], stem, sizeof(stem));
			snprintf(label[i], 256, "%s (%s)", kname[i], stem);
		}
		longest = strlen(label[i]) > longest ? strlen(label[i]) : longest;
	}

	/* $ab: label, then mean, min, max of every figure of ab_panels[]. */
	double lo[NR_AB_PANELS] = { 0 }, hi[NR_AB_PANELS] = { 0 };
	int bars[NR_AB_PANELS] = { 0 };
	fprintf(f, "$ab << EOD\n");
	for (int b = 0; b < n; b++) {
		put_data_string(f, label[b]);
		for (size_t q = 0; q < NR_AB_PANELS; q++) {
			const json_t *arr = json_object_get(kobj[b], ab_panels[q].key);
			size_t max = json_array_size(arr);
			double *v = malloc((max ? max : 1) * sizeof(*v));
			if (!v)
				return -1;
			size_t m = mmstat_json_samples(arr, v, max, false);
			double sc = ab_panels[q].scale;
			double mean = mmstat_mean(v, m) * sc, vmin = mmstat_min(v, m) * sc;
			double vmax = mmstat_max(v, m) * sc;
			put_number(f, mean);
			put_number(f, vmin);
			put_number(f, vmax);
			if (m) {
				bars[q]++;
				lo[q] = vmin < lo[q] ? vmin : lo[q];
				hi[q] = vmax > hi[q] ? vmax : hi[q];
			}
			free(v);
		}
		fputc('\n', f);
	}
	fprintf(f, "EOD\n");

	/* $pub: x (beside the bar), then mid, min, max of each figure's
	 * published range for the bar's kernel, where the ab result carries
	 * one ("published": numasim ab writes it for the scenario the figures
	 * were published for); NaN, no point, elsewhere. */
	int pubs[NR_AB_PANELS] = { 0 };
	const char *source = NULL;
	bool sources_differ = false;
	fprintf(f, "$pub << EOD\n");
	for (int b = 0; b < n; b++) {
		const json_t *pub = json_object_get(p->doc[file_of[b]], "published");
		const json_t *pk = json_object_get(json_object_get(pub, "kernels"), kname[b]);
		fprintf(f, "%g", b + 0.42);
		for (size_t q = 0; q < NR_AB_PANELS; q++) {
			const json_t *r = json_object_get(pk, ab_panels[q].key);
			const json_t *a = json_array_get(r, 0), *z = json_array_get(r, 1);
			double sc = ab_panels[q].scale;
			double vlo = json_is_number(a) ? json_number_value(a) * sc : NAN;
			double vhi = json_is_number(z) ? json_number_value(z) * sc : NAN;
			if (json_array_size(r) != 2 || !isfinite(vlo) || !isfinite(vhi) || vlo > vhi) {
				fprintf(f, " NaN NaN NaN");
				continue;
			}
			put_number(f, (vlo + vhi) / 2);
			put_number(f, vlo);
			put_number(f, vhi);
			pubs[q]++;
			lo[q] = vlo < lo[q] ? vlo : lo[q];
			hi[q] = vhi > hi[q] ? vhi : hi[q];
			const char *src = json_string_value(json_object_get(pub, "source"));
			if (src && !source)
				source = src;
			else if (src && strcmp(src, source))
				sources_differ = true;
		}
		fputc('\n', f);
	}
	fprintf(f, "EOD\n");

	char title[1024];
	ab_title(p, title, sizeof(title));
	/* kernel names turned where they would run into each other: a
	 * panel's width in characters, shared by the bars */
	int panel_chars = p->fmt == FMT_TXT ? 150 / p->cols
					    : (int)(p->w_in / p->cols * 72 / (FONT_PT * 0.6));
	bool turn = n > 1 && (int)longest * n > panel_chars * 3 / 4;
	char note[700];
	snprintf(note, sizeof(note), "published (diamond, min-max), from %s%s", source ? source : "",
		 sources_differ ? "; other files name other sources" : "");
	int foot = source ? put_gp_wrapped(NULL, note, p->line_chars) : 0;
	/* the lines under the lowest panels: their kernel names, then the
	 * footnote */
	int bottom = (turn ? 2 + (int)(longest * 0.22) : 3) + foot;
	/* Turned names end at their bar (rotated up to the right): turned
	 * the other way, the last bar's ran off the page's right edge.  The
	 * dumb terminal turns nothing: its names start at their bar, where
	 * they overlap least. */
	const char *xtics = !turn ? "" : p->fmt == FMT_TXT ? " rotate by -35 left" : " rotate by 35 right";
	char layout[200] = "";
	bool stacked = p->fmt != FMT_TXT && p->cols == 1 && p->rows > 1;
	if (p->fmt != FMT_TXT)
		ab_layout(p, title, bottom, stacked, turn, label, n, layout, sizeof(layout));
	multiplot_at(f, p, title, layout);
	fprintf(f, "set style fill %s\n"
		   "set boxwidth 0.6\n"
		   "set grid ytics\n"
		   "set xrange [-0.7:%f]\n",
		/* text has no shades: outlined bars */
		p->fmt == FMT_TXT ? "empty border -1" : "solid 0.55 border -1", n - 0.3 + 0.2);
	if (p->fmt == FMT_TXT)
		fprintf(f, "set lmargin 8\nset rmargin 1\nset bmargin %d\n", bottom);
	fprintf(f, "set linetype cycle %d\n", (int)NR_COLOURS);
	for (size_t c = 0; c < NR_COLOURS; c++)
		fprintf(f, "set linetype %zu lc rgb '%s'\n", c + 1, colours[c]);
	for (int i = 0; i < p->nr_panels; i++) {
		int q = p->panel[i];
		int mean = 2 + 3 * q;
		/* stacked panels share their bars' order: the names under the
		 * lowest only */
		bool names = !stacked || i == p->nr_panels - 1;
		if (names)
			fprintf(f, "set xtics nomirror scale 0%s\n", xtics);
		else
			fprintf(f, "unset xtics\n");
		fprintf(f, "set title ");
		put_gp_string(f, ab_panels[q].title);
		fprintf(f, "\n");
		double div = y_axis(f, ab_panels[q].unit, fmax(fabs(lo[q]), fabs(hi[q])));
		/* Bars start at 0: keep 0 in range, and below it only if a
		 * figure is negative (balancing can gain throughput). */
		if (hi[q] == lo[q])
			fprintf(f, "set yrange [0:1]\n");
		else
			fprintf(f, "set yrange [%s:%s]\n", lo[q] < 0 ? "*" : "0", hi[q] > 0 ? "*" : "0");
		/* Room for the value labels above the bars. */
		fprintf(f, "set offsets 0, 0, graph %s, graph %s\n", hi[q] > 0 ? "0.15" : "0.05",
			lo[q] < 0 ? "0.05" : "0");
		if (!bars[q]) {
			fprintf(f, "unset xtics\nset label 1 'no data' at graph 0.5, graph 0.5 center\n"
				   "plot -1 notitle\nunset label 1\n");
			continue;
		}
		/* the published ranges' source, once, under the first panel */
		bool footnote = source && i == 0;
		if (footnote)
			ab_footnote(f, p, note, foot);
		fprintf(f, pubs[q] ? "set key top left samplen 1\n" : "unset key\n");
		char m[64], lo_c[64], hi_c[64];
		col_expr(mean, div, m, sizeof(m));
		snprintf(lo_c, sizeof(lo_c), "(column(%d)/%g)", mean + 1, div);
		snprintf(hi_c, sizeof(hi_c), "(column(%d)/%g)", mean + 2, div);
		/* gnuplot's dumb terminal draws no box of a variable colour */
		const char *xtic = names ? ":xtic(1)" : "";
		if (p->fmt == FMT_TXT)
			fprintf(f, "plot $ab using 0:%s%s with boxes notitle, \\\n", m, xtic);
		else
			fprintf(f, "plot $ab using 0:%s:(column(0)+1)%s with boxes lc variable notitle, \\\n",
				m, xtic);
		/* the value over the bar (or over its error bar's top), in the
		 * axis's unit and format */
		/* the min-max as a line (gnuplot 5.4's yerrorbars blank a disc
		 * around the bar's top) */
		fprintf(f, "     $ab using 0:%s:(0):(%s-%s) with vectors nohead lc rgb 'black' lw 1 notitle, \\\n"
			   "     $ab using 0:(column(%d) > 0 ? column(%d)/%g : 0):(sprintf('%%.4g', column(%d)/%g)) "
			   "with labels offset 0,0.7 notitle%s\n",
			lo_c, hi_c, lo_c, mean + 2, mean + 2, div, mean, div, pubs[q] ? ", \\" : "");
		if (pubs[q]) {
			char a[64], b[64], c[64];
			fprintf(f, "     $pub using 1:%s:%s:%s with yerrorbars lc rgb '#b00000' lw 1.5 pt 12 ps 1 "
				   "title 'published'\n", col_expr(mean, div, a, sizeof(a)),
				col_expr(mean + 1, div, b, sizeof(b)), col_expr(mean + 2, div, c, sizeof(c)));
		}
		if (footnote)
			fprintf(f, "unset label 98\n");
	}
	fprintf(f, "unset multiplot\n");
	return 0;
}

/* ---- a sweep's directory ---------------------------------------------------- */

/* What a sweep plot can draw of each point's run result: a scalar, or
 * the mean of a time series from its second second on (the first is the
 * start-up, as in 'numasim compare'). */
static const struct {
	const char *name, *key, *unit, *title;
	bool series;
} sweep_figures[] = {
	{ "throughput", "throughput_ops_per_s", "ops/s", "throughput", false },
	{ "elapsed", "elapsed_seconds", "s", "elapsed time (fixed work)", false },
	{ "tlb-irqs/s", "tlb_irqs_per_s", "interrupts/s", "TLB shootdown interrupts per second", true },
	{ "migrations/s", "migrations_per_s", "pages/s", "pages migrated per second", true },
	{ "pte-updates/s", "pte_updates_per_s", "PTEs/s", "NUMA hinting PTE updates per second", true },
	{ "tlb-shootdowns", "tlb_shootdowns", "interrupts", "TLB shootdown interrupts", false },
};
#define NR_SWEEP_FIGURES (sizeof(sweep_figures) / sizeof(sweep_figures[0]))
#define MAX_SWEEP_LINES 16

/* One line: the points of one kernel (and balancing, and value of every
 * other grid key), by the value of the x key; each x's samples are the
 * seeds. */
struct sweep_line {
	char label[256];
	double mean[SWEEP_MAX_VALUES], min[SWEEP_MAX_VALUES], max[SWEEP_MAX_VALUES];
	int n[SWEEP_MAX_VALUES];
};

struct sweep_plot {
	const char *scenario;
	int figure;                  /* sweep_figures[] */
	const char *xkey;
	const char *xval[SWEEP_MAX_VALUES];
	double x[SWEEP_MAX_VALUES];  /* the values as numbers, where all are */
	int nr_x;
	bool numeric, logx;
	int seeds;                   /* the most samples of one line's x */
	struct sweep_line line[MAX_SWEEP_LINES];
	int nr_lines;
	json_t *manifest;            /* the strings above point into it */
};

/* A point's value of the figure, NAN where its result has none. */
static double sweep_value(const json_t *doc, int fig)
{
	const char *key = sweep_figures[fig].key;
	if (!sweep_figures[fig].series) {
		const json_t *v = json_object_get(doc, key);
		if (!v)
			v = json_object_get(json_object_get(doc, "interrupts"), key);
		return json_is_number(v) ? json_number_value(v) : NAN;
	}
	const json_t *arr = json_object_get(json_object_get(doc, "timeseries"), key), *v;
	double sum = 0;
	size_t i, n = 0;
	json_array_foreach(arr, i, v)
		if (i && json_is_number(v)) {
			sum += json_number_value(v);
			n++;
		}
	return n ? sum / (double)n : NAN;
}

/* The line of point @x: its kernel, balancing (where the sweep has both)
 * and the other grid keys' values.  -1 when there are too many. */
static int sweep_line_of(struct sweep_plot *sw, const struct sweep_manifest *m, const json_t *x, bool both)
{
	char label[256];
	int n = snprintf(label, sizeof(label), "%s", str_of(x, "kernel"));
	if (both)
		n += snprintf(label + n, sizeof(label) - (size_t)n, ", balancing %s", str_of(x, "balancing"));
	for (int g = 0; g < m->nr_grid && n < (int)sizeof(label); g++)
		if (strcmp(m->grid_name[g], sw->xkey))
			n += snprintf(label + n, sizeof(label) - (size_t)n, ", %s=%s", m->grid_name[g],
				      str_of(json_object_get(x, "grid"), m->grid_name[g]));
	for (int l = 0; l < sw->nr_lines; l++)
		if (!strcmp(sw->line[l].label, label))
			return l;
	if (sw->nr_lines == MAX_SWEEP_LINES)
		return -1;
	struct sweep_line *ln = &sw->line[sw->nr_lines];
	snprintf(ln->label, sizeof(ln->label), "%s", label);
	for (int i = 0; i < SWEEP_MAX_VALUES; i++) {
		ln->min[i] = INFINITY;
		ln->max[i] = -INFINITY;
	}
	return sw->nr_lines++;
}

/* The x key's values, in the sweep file's order, and whether they are all
 * numbers (then a numeric axis, log2 where they span 16x or more). */
static int sweep_axis(struct sweep_plot *sw, const struct sweep_manifest *m, char *err, size_t errlen)
{
	size_t i;
	const json_t *g;
	json_array_foreach(json_object_get(m->doc, "grid"), i, g)
		if (!strcmp(str_of(g, "key"), sw->xkey)) {
			size_t j;
			const json_t *v;
			json_array_foreach(json_object_get(g, "values"), j, v)
				if (j < SWEEP_MAX_VALUES && json_is_string(v))
					sw->xval[sw->nr_x++] = json_string_value(v);
		}
	if (!sw->nr_x) {
		snprintf(err, errlen, "--x %s: not a [grid] key of this sweep", sw->xkey);
		return -1;
	}
	sw->numeric = true;
	double lo = INFINITY, hi = -INFINITY;
	for (int k = 0; k < sw->nr_x; k++) {
		char *end;
		sw->x[k] = strtod(sw->xval[k], &end);
		sw->numeric &= end != sw->xval[k] && !*end && isfinite(sw->x[k]);
		lo = fmin(lo, sw->x[k]);
		hi = fmax(hi, sw->x[k]);
	}
	sw->logx = sw->numeric && lo > 0 && hi >= 16 * lo;
	return 0;
}

/* Read a sweep's directory into @sw: every point with a result, by line
 * and x.  0, or -1 with @err. */
static int sweep_load(struct sweep_plot *sw, const char *dir, const char *figure, const char *xkey, char *err,
		      size_t errlen)
{
	struct sweep_manifest m = { 0 };
	int rc = -1, have = 0;
	if (sweep_manifest_load(dir, &m, err, errlen))
		goto out;
	sw->scenario = str_of(m.doc, "scenario");
	if (!m.nr_grid) {
		snprintf(err, errlen, "%s: the sweep has no [grid] key to draw against", dir);
		goto out;
	}
	sw->xkey = xkey ? xkey : m.grid_name[0];
	if (sweep_axis(sw, &m, err, errlen))
		goto out;
	bool both = !strcmp(str_of(m.doc, "balancing"), "both");
	sw->figure = -1;
	size_t k;
	const json_t *x;
	json_array_foreach(m.points, k, x) {
		json_t *doc;
		const char *id = json_string_value(json_object_get(x, "id"));
		int got = sweep_result_load(dir, id, k, &doc, err, errlen);
		if (got < 0)
			goto out;
		if (!got)
			continue;
		if (sw->figure < 0) {
			/* the default: elapsed time where the work is fixed */
			const char *want = figure ? figure
				: json_object_get(doc, "elapsed_seconds") ? "elapsed" : "throughput";
			for (size_t f = 0; f < NR_SWEEP_FIGURES; f++)
				if (!strcmp(sweep_figures[f].name, want))
					sw->figure = (int)f;
			if (sw->figure < 0) {
				snprintf(err, errlen, "--figure %s: expected throughput, elapsed, tlb-irqs/s, "
					 "migrations/s, pte-updates/s or tlb-shootdowns", want);
				json_decref(doc);
				goto out;
			}
		}
		const char *xv = str_of(json_object_get(x, "grid"), sw->xkey);
		int l = sweep_line_of(sw, &m, x, both), xi = -1;
		for (int j = 0; j < sw->nr_x; j++)
			if (!strcmp(sw->xval[j], xv))
				xi = j;
		double v = sweep_value(doc, sw->figure);
		json_decref(doc);
		if (l < 0) {
			snprintf(err, errlen, "more than %d lines (kernels x other grid values): pick another --x",
				 MAX_SWEEP_LINES);
			goto out;
		}
		if (xi < 0 || !isfinite(v))
			continue;
		struct sweep_line *ln = &sw->line[l];
		ln->mean[xi] += v; /* a sum until the end */
		ln->min[xi] = fmin(ln->min[xi], v);
		ln->max[xi] = fmax(ln->max[xi], v);
		ln->n[xi]++;
		have++;
	}
	if (!have) {
		snprintf(err, errlen, "%s: no point has a result with this figure yet (run the sweep first)", dir);
		goto out;
	}
	for (int l = 0; l < sw->nr_lines; l++)
		for (int j = 0; j < sw->nr_x; j++) {
			struct sweep_line *ln = &sw->line[l];
			ln->mean[j] = ln->n[j] ? ln->mean[j] / ln->n[j] : NAN;
			sw->seeds = ln->n[j] > sw->seeds ? ln->n[j] : sw->seeds;
		}
	rc = 0;
out:
	/* the strings point into the manifest: keep it with the plot */
	sw->manifest = m.doc;
	return rc;
}

static void sweep_script(FILE *f, const struct plot *p)
{
	const struct sweep_plot *sw = p->sw;
	double ymax = 0;
	for (int l = 0; l < sw->nr_lines; l++) {
		/* $w<l>: x, mean, min, max over the seeds */
		fprintf(f, "$w%d << EOD\n", l);
		for (int j = 0; j < sw->nr_x; j++) {
			const struct sweep_line *ln = &sw->line[l];
			if (!ln->n[j])
				continue;
			fprintf(f, "%.10g", sw->numeric ? sw->x[j] : (double)j);
			put_number(f, ln->mean[j]);
			put_number(f, ln->min[j]);
			put_number(f, ln->max[j]);
			fputc('\n', f);
			ymax = fmax(ymax, fabs(ln->max[j]));
		}
		fprintf(f, "EOD\n");
	}
	char title[1024];
	if (p->title)
		snprintf(title, sizeof(title), "%s", p->title);
	else
		snprintf(title, sizeof(title), "numasim sweep: %s, %s; mean of %d seed%s, error bars min-max",
			 sw->scenario ? sw->scenario : "?", sweep_figures[sw->figure].title, sw->seeds,
			 sw->seeds == 1 ? "" : "s");
	multiplot(f, p, title);
	fprintf(f, "set grid\nset key below samplen 2\nset xlabel ");
	put_gp_string(f, sw->xkey);
	fprintf(f, "\n");
	if (sw->numeric) {
		double lo = INFINITY, hi = -INFINITY;
		for (int j = 0; j < sw->nr_x; j++) {
			lo = fmin(lo, sw->x[j]);
			hi = fmax(hi, sw->x[j]);
		}
		/* tics at the grid's values, as the sweep file wrote them */
		if (sw->logx)
			fprintf(f, "set logscale x 2\nset xrange [%.10g:%.10g]\n", lo / 1.3, hi * 1.3);
		else
			fprintf(f, "set xrange [%.10g:%.10g]\n", lo - (hi - lo) * 0.05 - (hi == lo),
				hi + (hi - lo) * 0.05 + (hi == lo));
	} else {
		fprintf(f, "set xrange [-0.5:%g]\n", sw->nr_x - 0.5);
	}
	fprintf(f, "set xtics (");
	for (int j = 0; j < sw->nr_x; j++) {
		fprintf(f, "%s", j ? ", " : "");
		put_gp_string(f, sw->xval[j]);
		fprintf(f, " %.10g", sw->numeric ? sw->x[j] : (double)j);
	}
	fprintf(f, ")\nset yrange [0:*]\n");
	double div = y_axis(f, sweep_figures[sw->figure].unit, ymax);
	char m[64], lo[64], hi[64];
	col_expr(2, div, m, sizeof(m));
	col_expr(3, div, lo, sizeof(lo));
	col_expr(4, div, hi, sizeof(hi));
	fprintf(f, "plot ");
	for (int l = 0; l < sw->nr_lines; l++) {
		fprintf(f, "%s$w%d using 1:%s:%s:%s with yerrorlines lw 1.5 pt %d ps 0.6 dt %d lc rgb '%s' title ",
			l ? ", \\\n     " : "", l, m, lo, hi, 7 + (l % 3) * 2, 1 + (l / (int)NR_COLOURS) % 4,
			colours[l % NR_COLOURS]);
		put_gp_string(f, sw->line[l].label);
	}
	fprintf(f, "\nunset multiplot\n");
}

/* ---- running gnuplot -------------------------------------------------------- */

/* A terminal gnuplot may lack: say so and exit with EXIT_NO_GNUPLOT. */
static void need_terminal(FILE *f, const char *term, const char *what)
{
	fprintf(f, "if (strstrt(GPVAL_TERMINALS, ' %s ') == 0) {\n"
		   "    print 'numasim plot: this gnuplot has no %s terminal (%s): write .svg instead, or "
		   "install gnuplot-nox'\n"
		   "    exit status %d\n"
		   "}\n", term, term, what, EXIT_NO_GNUPLOT);
}

/* The panels and the page they share.  Panels are about 3.5 in wide
 * whatever the width: one column of them on a column-wide page, two (an
 * ab plot's three in a row) on a page-wide one; their height shrinks
 * with their rows so that a column of six still fits a page. */
static void page_layout(struct plot *p)
{
	bool ab = p->kind == MMSTAT_RESULT_AB;
	if (ab)
		ab_choose_panels(p);
	else if (p->view == VIEW_NODES)
		nodes_panels(p);
	else
		p->nr_panels = p->view == VIEW_SERIES ? 6 : p->view == VIEW_SWEEP ? 1
			     : p->view == VIEW_TIERING ? 5 : 3;
	int n = p->nr_panels;
	enum width w = p->width ? p->width : n == 1 ? WIDTH_COLUMN : WIDTH_PAGE;
	if (p->fmt == FMT_TXT) {
		/* ASCII art: 100 characters a panel (50 an ab panel), in one row
		 * for ab, else one above the other */
		p->cols = ab ? n : 1;
		p->rows = (n + p->cols - 1) / p->cols;
		p->w_in = ab ? 50 * n < 100 ? 100 : 50 * n : 100;
		p->h_in = p->rows * (ab ? 28 : 24) + 4;
		p->line_chars = (int)p->w_in - 4;
		return;
	}
	bool page = w == WIDTH_PAGE;
	p->w_in = page ? PAGE_IN : COLUMN_IN;
	p->cols = !page ? 1 : ab ? n : n < 2 ? n : 2;
	p->rows = (n + p->cols - 1) / p->cols;
	double panel_h = ab ? (page ? 2.9 : 1.9) : n == 1 ? (page ? 3.5 : 2.4) : fmin(2.0, 8.4 / p->rows);
	p->h_in = p->rows * panel_h + 0.5;
	/* a title line: the page's width in 9 pt characters (0.55 em wide) */
	p->line_chars = (int)(p->w_in * 72 / (TITLE_PT * 0.55)) - 2;
}

/* The terminal: the page's size; text at FONT_PT points on paper.  The
 * cairo terminals scale fonts by 96/72 (a point is a pixel at 96 dpi),
 * so pdfcairo's fontscale is 0.75 for the size asked to be the size
 * printed, and pngcairo's PNG_DPI/96; the svg terminal's size is in
 * pixels at 96 per inch and its font sizes in pixels at 72 per inch. */
static void terminal(FILE *f, const struct plot *p)
{
	int pw = (int)lround(p->w_in * PNG_DPI), ph = (int)lround(p->h_in * PNG_DPI);
	switch (p->fmt) {
	case FMT_PNG:
		fprintf(f, "if (strstrt(GPVAL_TERMINALS, ' pngcairo ') > 0) {\n"
			   "    set terminal pngcairo size %d,%d font 'DejaVu Sans,%d' fontscale %.4g noenhanced "
			   "background rgb 'white'\n"
			   "} else {\n"
			   "    if (strstrt(GPVAL_TERMINALS, ' png ') > 0) {\n"
			   "        set terminal png size %d,%d noenhanced background rgb 'white'\n"
			   "    } else {\n"
			   "        print 'numasim plot: this gnuplot has no png terminal (pngcairo or png): "
			   "write .svg instead, or install gnuplot-nox'\n"
			   "        exit status %d\n"
			   "    }\n"
			   "}\n",
			pw, ph, FONT_PT, PNG_DPI / 96.0, pw, ph, EXIT_NO_GNUPLOT);
		break;
	case FMT_PDF:
		need_terminal(f, "pdfcairo", "pdf");
		fprintf(f, "set terminal pdfcairo size %.4gin,%.4gin font 'DejaVu Sans,%d' fontscale 0.75 "
			   "linewidth 1 noenhanced\n", p->w_in, p->h_in, FONT_PT);
		break;
	case FMT_TXT:
		/* ASCII art for a terminal or a mail: text only, no colour */
		fprintf(f, "set terminal dumb size %d,%d noenhanced mono\n", (int)p->w_in, (int)p->h_in);
		break;
	default:
		fprintf(f, "set terminal svg size %d,%d noenhanced font 'DejaVu Sans,%d' fontscale %.4g "
			   "background rgb 'white'\n", (int)lround(p->w_in * 96), (int)lround(p->h_in * 96),
			FONT_PT, 96 / 72.0);
	}
}

/* The script for gnuplot: the data inline as datablocks, so that a kept
 * script (--keep-script) draws the figure again by itself.  @output: the
 * file gnuplot writes, or NULL for its standard output. */
static void write_script(FILE *f, const struct plot *p, const char *output)
{
	bool run = p->kind == MMSTAT_RESULT_RUN && p->view == VIEW_SERIES;
	fprintf(f, "# numasim plot: %.4g x %.4g %s, %d panel%s; 'gnuplot FILE' draws it again\n",
		p->w_in, p->h_in, p->fmt == FMT_TXT ? "characters" : "in", p->nr_panels,
		p->nr_panels == 1 ? "" : "s");
	terminal(f, p);
	if (output) {
		fprintf(f, "set output ");
		put_gp_quoted(f, output, true);
		fprintf(f, "\n");
	}
	if (p->view == VIEW_SWEEP)
		sweep_script(f, p);
	else if (p->view == VIEW_NODES)
		nodes_script(f, p);
	else if (p->view == VIEW_CONVERGENCE)
		convergence_script(f, p);
	else if (p->view == VIEW_TIERING)
		tiering_script(f, p);
	else if (run)
		run_script(f, p);
	else
		ab_script(f, p);
	fprintf(f, "%sexit\n", output ? "unset output\n" : "");
}

/* S single-quoted for /bin/sh: it's -> 'it'\''s'. */
static char *sh_quote(const char *s)
{
	size_t n = 3;
	for (const char *c = s; *c; c++)
		n += *c == '\'' ? 4 : 1;
	char *q = malloc(n), *o = q;
	if (!q)
		return NULL;
	*o++ = '\'';
	for (; *s; s++) {
		if (*s == '\'') {
			memcpy(o, "'\\''", 4);
			o += 4;
		} else {
			*o++ = *s;
		}
	}
	*o++ = '\'';
	*o = 0;
	return q;
}

/* The figure's name in the kept script: its base name when the script
 * is beside it (the two can move together), else the path as given. */
static const char *kept_output(const struct plot *p, char *buf, size_t len)
{
	char a[OUTFILE_PATH_MAX], b[OUTFILE_PATH_MAX], ra[PATH_MAX], rb[PATH_MAX];
	const char *base = strrchr(p->out, '/') ? strrchr(p->out, '/') + 1 : p->out;
	snprintf(a, sizeof(a), "%s", p->out);
	snprintf(b, sizeof(b), "%s", p->keep);
	if (realpath(dirname(a), ra) && realpath(dirname(b), rb) && !strcmp(ra, rb)) {
		snprintf(buf, len, "%s", base);
		return buf;
	}
	return p->out;
}

/* The figure (gnuplot wrote @out's temporary) and the kept script, as a
 * group: neither is left without the other.  0 or -1 (@err). */
static int commit(const struct plot *p, struct outfile *out, char *err, size_t errlen)
{
	bool to_stdout = !strcmp(p->out, "-");
	if (!p->keep)
		return to_stdout ? 0 : outfile_commit(out, err, errlen);
	struct outfile files[2] = { { .slot = -1 }, { .slot = -1 } };
	char name[OUTFILE_PATH_MAX];
	if (outfile_open(&files[0], "--keep-script", p->keep, err, errlen))
		return -1;
	write_script(files[0].f, p, to_stdout ? NULL : kept_output(p, name, sizeof(name)));
	if (!to_stdout)
		files[1] = *out;
	int rc = outfile_commit_group(files, to_stdout ? 1 : 2, err, errlen);
	/* the group renamed or removed the figure's temporary */
	out->tmp[0] = 0;
	out->slot = -1;
	return rc;
}

static int run_gnuplot(const struct plot *p, const char *gnuplot)
{
	char err[9000];
	struct outfile out = { .slot = -1 };
	bool to_stdout = !strcmp(p->out, "-");
	if (!to_stdout && outfile_open(&out, "-o", p->out, err, sizeof(err))) {
		cli_error("numasim plot: ", err);
		return EXIT_INPUT;
	}
	if (!to_stdout)
		outfile_release(&out); /* gnuplot writes the temporary */

	char *q = sh_quote(gnuplot);
	size_t len = q ? strlen(q) + 16 : 0;
	char *cmd = q ? malloc(len) : NULL;
	if (!cmd) {
		free(q);
		outfile_discard(&out);
		fprintf(stderr, "numasim plot: out of memory\n");
		return 1;
	}
	snprintf(cmd, len, "exec %s", q);
	free(q);

	fflush(NULL);
	void (*old)(int) = signal(SIGPIPE, SIG_IGN);
	FILE *f = popen(cmd, "w");
	free(cmd);
	if (!f) {
		signal(SIGPIPE, old);
		outfile_discard(&out);
		fprintf(stderr, "numasim plot: cannot run gnuplot: %s\n", strerror(errno));
		return 1;
	}
	write_script(f, p, to_stdout ? NULL : out.tmp);
	int status = pclose(f);
	signal(SIGPIPE, old);

	struct stat st;
	int rc = 0;
	if (status == -1 || !WIFEXITED(status)) {
		fprintf(stderr, "numasim plot: gnuplot failed\n");
		rc = 1;
	} else if (WEXITSTATUS(status) == EXIT_NO_GNUPLOT) {
		rc = EXIT_NO_GNUPLOT;
	} else if (WEXITSTATUS(status) != 0) {
		fprintf(stderr, "numasim plot: gnuplot failed (exit status %d)\n", WEXITSTATUS(status));
		rc = 1;
	} else if (to_stdout) {
		rc = 0; /* gnuplot wrote to our stdout */
	} else if (lstat(out.tmp, &st) || !S_ISREG(st.st_mode) || st.st_size == 0) {
		fprintf(stderr, "numasim plot: gnuplot wrote nothing\n");
		rc = 1;
	}
	if (!rc && commit(p, &out, err, sizeof(err))) {
		cli_error("numasim plot: ", err);
		rc = 1;
	}
	if (rc && !to_stdout)
		outfile_discard(&out);
	return rc;
}

/* ---- the command ------------------------------------------------------------ */

static int load_inputs(struct plot *p, int n, char **paths)
{
	for (int i = 0; i < n; i++) {
		char err[1024];
		int kind = mmstat_load_result(paths[i], &p->doc[p->nr_files], err, sizeof(err));
		if (!kind) {
			cli_error("numasim plot: ", err);
			return -1;
		}
		p->path[p->nr_files++] = paths[i];
		if (p->kind && kind != p->kind) {
			fprintf(stderr,
				"numasim plot: cannot mix run and ab results in one plot (%s is a%s result, %s a%s one)\n",
				p->path[0], p->kind == MMSTAT_RESULT_RUN ? " run" : "n ab", paths[i],
				kind == MMSTAT_RESULT_RUN ? " run" : "n ab");
			return -1;
		}
		p->kind = kind;
	}
	return 0;
}

/* A sweep's directory, alone, drawn against a grid key. */
static int load_sweep(struct plot *p, int n, const char *dir, const char *figure, const char *xkey)
{
	char err[OUTFILE_PATH_MAX + 1024];
	if (n != 1) {
		fprintf(stderr, "numasim plot: a sweep's directory is drawn alone\n");
		return -1;
	}
	if (p->view != VIEW_SERIES) {
		fprintf(stderr, "numasim plot: --kind draws run results, not a sweep's directory\n");
		return -1;
	}
	p->sw = calloc(1, sizeof(*p->sw));
	if (!p->sw) {
		fprintf(stderr, "numasim plot: out of memory\n");
		return -1;
	}
	p->view = VIEW_SWEEP;
	struct stat st;
	snprintf(err, sizeof(err), "%s/manifest.json", dir);
	if (lstat(err, &st) && errno == ENOENT) {
		snprintf(err, sizeof(err), "%s: is a directory, and not a sweep's (no manifest.json)", dir);
		cli_error("numasim plot: ", err);
		return -1;
	}
	if (sweep_load(p->sw, dir, figure, xkey, err, sizeof(err))) {
		cli_error("numasim plot: ", err);
		return -1;
	}
	return 0;
}

static enum format format_of(const char *out)
{
	return ends_with(out, ".png") ? FMT_PNG : ends_with(out, ".pdf") ? FMT_PDF
	     : ends_with(out, ".txt") || !strcmp(out, "-") ? FMT_TXT : FMT_SVG;
}

/* --kind: "series", "nodes" or "convergence" (enum view); -1 if unknown. */
static int kind_view(const char *kind)
{
	if (!kind || !strcmp(kind, "series"))
		return VIEW_SERIES;
	return !strcmp(kind, "nodes") ? VIEW_NODES : !strcmp(kind, "convergence") ? VIEW_CONVERGENCE
	       : !strcmp(kind, "tiering") ? VIEW_TIERING : -1;
}

/* --width: "column" or "page" (enum width); -1 if neither. */
static int width_of(const char *w)
{
	if (!w)
		return WIDTH_DEFAULT;
	return !strcmp(w, "column") ? WIDTH_COLUMN : !strcmp(w, "page") ? WIDTH_PAGE : -1;
}

int plot_script(int nfiles, char **paths, const char *out, FILE *f)
{
	return plot_script_kind(nfiles, paths, out, NULL, f);
}

int plot_script_kind(int nfiles, char **paths, const char *out, const char *kind, FILE *f)
{
	return plot_script_width(nfiles, paths, out, kind, NULL, f);
}

int plot_script_width(int nfiles, char **paths, const char *out, const char *kind, const char *wname, FILE *f)
{
	int width = width_of(wname);
	if (width < 0)
		return EXIT_INPUT;
	struct plot p = { .out = out };
	int rc = EXIT_INPUT;
	if (nfiles < 1 || nfiles > MAX_FILES || kind_view(kind) < 0)
		return EXIT_INPUT;
	p.fmt = format_of(out);
	p.view = kind_view(kind);
	p.width = width;
	if (!load_inputs(&p, nfiles, paths) && !(p.view != VIEW_SERIES && p.kind != MMSTAT_RESULT_RUN)) {
		page_layout(&p);
		write_script(f, &p, strcmp(out, "-") ? "plot.tmp" : NULL);
		rc = 0;
	}
	for (int i = 0; i < p.nr_files; i++)
		json_decref(p.doc[i]);
	return rc;
}

/* --keep-script FILE: a file numasim may write, not the figure. */
static int check_keep(const struct plot *p)
{
	char err[9000];
	if (outfile_check("--keep-script", p->keep, err, sizeof(err))) {
		cli_error("numasim plot: ", err);
		return -1;
	}
	if (strcmp(p->out, "-") && outfile_same(p->out, p->keep)) {
		fprintf(stderr, "numasim plot: --keep-script names the figure's own file (-o)\n");
		return -1;
	}
	return 0;
}

static int check_output(const struct plot *p)
{
	char err[9000];
	if (p->keep && check_keep(p))
		return -1;
	if (!strcmp(p->out, "-"))
		return 0;
	if (outfile_check("-o", p->out, err, sizeof(err))) {
		cli_error("numasim plot: ", err);
		return -1;
	}
	for (const unsigned char *c = (const unsigned char *)p->out; *c; c++)
		if (*c < 0x20 || *c == 0x7f) {
			fprintf(stderr, "numasim plot: -o: the file name has a control character (0x%02x)\n",
				*c);
			return -1;
		}
	if (!ends_with(p->out, ".svg") && !ends_with(p->out, ".png") && !ends_with(p->out, ".pdf") &&
	    !ends_with(p->out, ".txt")) {
		fprintf(stderr, "numasim plot: -o %s: unknown image type (use FILE.svg, .png, .pdf, .txt "
			"or - for the terminal)\n", p->out);
		return -1;
	}
	return 0;
}

int cmd_plot(int argc, char **argv)
{
	enum { OPT_TITLE = 256, OPT_KIND, OPT_WIDTH, OPT_KEEP, OPT_FIGURE, OPT_X };
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "title", required_argument, NULL, OPT_TITLE },
		{ "kind", required_argument, NULL, OPT_KIND },
		{ "width", required_argument, NULL, OPT_WIDTH },
		{ "keep-script", required_argument, NULL, OPT_KEEP },
		{ "figure", required_argument, NULL, OPT_FIGURE },
		{ "x", required_argument, NULL, OPT_X },
		{ "help", no_argument, NULL, 'h' },
		{ 0, 0, 0, 0 },
	};
	struct plot p = { 0 };
	const char *figure = NULL, *xkey = NULL;
	int ch, rc = EXIT_INPUT;

	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, ":ho:", opts, NULL)) != -1) {
		switch (ch) {
		case 'h':
			fputs(plot_usage, stdout);
			return 0;
		case 'o':
			p.out = optarg;
			break;
		case OPT_TITLE:
			p.title = optarg;
			break;
		case OPT_WIDTH:
			if (width_of(optarg) < 0) {
				fprintf(stderr, "numasim plot: --width: expected column (3.5 in) or page (7 in)\n"
					"Try 'numasim plot --help'.\n");
				return EXIT_INPUT;
			}
			p.width = (enum width)width_of(optarg);
			break;
		case OPT_KEEP:
			p.keep = optarg;
			break;
		case OPT_FIGURE:
			figure = optarg;
			break;
		case OPT_X:
			xkey = optarg;
			break;
		case OPT_KIND:
			if (kind_view(optarg) < 0) {
				fprintf(stderr, "numasim plot: --kind: expected series, nodes, convergence or tiering\n"
					"Try 'numasim plot --help'.\n");
				return EXIT_INPUT;
			}
			p.view = kind_view(optarg);
			break;
		case ':':
			fprintf(stderr, "numasim plot: option '%s' needs a value\n"
				"Try 'numasim plot --help'.\n", argv[optind - 1]);
			return EXIT_INPUT;
		default:
			fprintf(stderr, "numasim plot: unknown option '%s'\n"
				"Try 'numasim plot --help'.\n", argv[optind - 1]);
			return EXIT_INPUT;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "numasim plot: expected one or more result files\n"
			"Try 'numasim plot --help'.\n");
		return EXIT_INPUT;
	}
	if (!p.out) {
		fprintf(stderr, "numasim plot: -o FILE.svg|.png|.pdf|.txt (or - ) is required\n"
			"Try 'numasim plot --help'.\n");
		return EXIT_INPUT;
	}
	if (argc - optind > MAX_FILES) {
		fprintf(stderr, "numasim plot: at most %d files\n", MAX_FILES);
		return EXIT_INPUT;
	}
	if (check_output(&p))
		return EXIT_INPUT;
	p.fmt = format_of(p.out);

	struct stat st;
	bool dir = !stat(argv[optind], &st) && S_ISDIR(st.st_mode);
	if (!dir && (figure || xkey)) {
		fprintf(stderr, "numasim plot: --figure and --x draw a sweep's directory ('numasim sweep'), "
			"not result files\n");
		goto out;
	}
	if (dir ? load_sweep(&p, argc - optind, argv[optind], figure, xkey)
		: load_inputs(&p, argc - optind, argv + optind))
		goto out;
	if (p.view != VIEW_SERIES && p.view != VIEW_SWEEP && p.kind != MMSTAT_RESULT_RUN) {
		fprintf(stderr, "numasim plot: --kind %s draws run results ('numasim run --json'), "
			"not ab results\n", p.view == VIEW_NODES ? "nodes" : "convergence");
		goto out;
	}

	char *gnuplot = find_gnuplot();
	if (!gnuplot) {
		fprintf(stderr, "numasim plot: gnuplot not found: install gnuplot-nox "
			"(scripts/deps.sh --optional)\n");
		rc = EXIT_NO_GNUPLOT;
		goto out;
	}
	page_layout(&p);
	rc = run_gnuplot(&p, gnuplot);
	free(gnuplot);
out:
	for (int i = 0; i < p.nr_files; i++)
		json_decref(p.doc[i]);
	if (p.sw)
		json_decref(p.sw->manifest);
	free(p.sw);
	return rc;
}
