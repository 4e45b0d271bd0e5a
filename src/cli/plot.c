/* numasim plot: draw numasim results with gnuplot (see
 * docs/compare-and-plot.md).
 *
 * Run results: a column of four time-series panels (TLB interrupts/s,
 * migrations/s, scan pass duration, scan period), one line per file.
 * ab results: bar charts of the three headline figures per kernel, the bar
 * the mean over the pairs and the error bar their min-max.
 *
 * gnuplot runs as a child (popen) and reads the script, data included as
 * datablocks, on its standard input.  It writes the output's temporary
 * (lib/outfile.h), renamed into place only when gnuplot succeeded, so a
 * failed plot never leaves a partial or stale-looking file. */
#include <errno.h>
#include <getopt.h>
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
#include "lib/outfile.h"
#include "report/mmstat.h"

#define EXIT_NO_GNUPLOT 3
#define MAX_FILES 16
#define MAX_BARS 128

const char plot_usage[] =
	"usage: numasim plot RESULT.json... -o FILE.svg|FILE.png [--title T]\n"
	"\n"
	"Draw numasim results with gnuplot.\n"
	"  run results ('numasim run --json'): four time-series panels, TLB\n"
	"    interrupts/s, migrations/s, scan pass duration (ms) and scan period (ms),\n"
	"    one line per file (legend: kernel and seed, or the file name).\n"
	"  ab results ('numasim ab --json'): bar charts of throughput loss (%),\n"
	"    kernel cycles per hinting PTE and TLB interrupts per migrated page per\n"
	"    kernel; bar = mean over the pairs, error bar = min-max.\n"
	"Run and ab results cannot be mixed in one plot.\n"
	"\n"
	"options:\n"
	"  -o, --output FILE   the image; .svg (gnuplot's svg terminal) or .png\n"
	"                      (pngcairo, else gnuplot's png terminal)\n"
	"  --title T           the title above the panels\n"
	"  -h, --help          this text\n"
	"\n"
	"Needs gnuplot (Debian: gnuplot-nox, installed by 'scripts/deps.sh --optional').\n"
	"exit status: 0 ok, 1 gnuplot failed, 2 bad input (missing or non-numasim\n"
	"file, mixed inputs, unknown extension), 3 gnuplot not found or without the\n"
	"terminal needed.  On failure no output file is written.\n";

/* Line colours: distinguishable, and readable on white. */
static const char *const colours[] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
};
#define NR_COLOURS (sizeof(colours) / sizeof(colours[0]))

struct plot {
	const char *out;
	const char *title;
	bool png;
	int kind;
	json_t *doc[MAX_FILES];
	const char *path[MAX_FILES];
	int nr_files;
};

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

/* A gnuplot single-quoted string: a quote is written twice. */
static void put_gp_string(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		fputc(gp_char((unsigned char)*s), f);
	}
	fputc('\'', f);
}

/* A string inside a datablock: double-quoted, without double quotes. */
static void put_data_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++)
		fputc(*s == '"' ? '\'' : gp_char((unsigned char)*s), f);
	fputc('"', f);
}

static void put_number(FILE *f, double x)
{
	if (isfinite(x))
		fprintf(f, " %.10g", x);
	else
		fprintf(f, " NaN");
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
enum { COL_TLB, COL_MIG, COL_PERIOD, COL_PASS, NR_RUN_COLS };

struct extent {
	double tmax;
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
	for (int k = 0; k < COL_PASS; k++)
		col[k] = json_object_get(ts, keys[k]);
	const json_t *pass = json_object_get(ts, "pass_ms");
	memset(e, 0, sizeof(*e));

	/* $s<i>: t, TLB interrupts/s, migrations/s, scan period. */
	fprintf(f, "$s%d << EOD\n", i);
	int rows = 0;
	for (size_t r = 0; r < json_array_size(t); r++) {
		const json_t *tv = json_array_get(t, r);
		if (!json_is_number(tv))
			continue;
		double x = json_number_value(tv);
		fprintf(f, "%.10g", x);
		for (int k = 0; k < COL_PASS; k++) {
			const json_t *v = json_array_get(col[k], r);
			double y = json_is_number(v) ? json_number_value(v) : NAN;
			put_number(f, y);
			note(e, k, y);
		}
		fputc('\n', f);
		if (x > e->tmax)
			e->tmax = x;
		rows++;
	}
	if (!rows)
		fprintf(f, "0 NaN NaN NaN\n");
	fprintf(f, "EOD\n");
	/* $p<i>: t, mean pass duration, for the seconds in which a pass ended. */
	fprintf(f, "$p%d << EOD\n", i);
	for (size_t r = 0; r < json_array_size(t) && r < json_array_size(pass); r++) {
		const json_t *v = json_array_get(pass, r), *tv = json_array_get(t, r);
		if (!json_is_number(v) || !json_is_number(tv) || !(json_number_value(v) > 0))
			continue;
		fprintf(f, "%.10g", json_number_value(tv));
		put_number(f, json_number_value(v));
		fputc('\n', f);
		note(e, COL_PASS, json_number_value(v));
	}
	if (!e->points[COL_PASS])
		fprintf(f, "0 NaN\n");
	fprintf(f, "EOD\n");
}

static void run_panel(FILE *f, const struct plot *p, char label[][256], const struct extent *e,
		      const char *title, const char *ylabel, int col, int panel, const char *empty)
{
	/* One legend, above the first panel, for all four. */
	if (panel == 0)
		fprintf(f, "set key outside top center horizontal samplen 3 spacing 1.2 width 2\n");
	else
		fprintf(f, "unset key\n");
	fprintf(f, "set title ");
	put_gp_string(f, title);
	fprintf(f, "\nset ylabel ");
	put_gp_string(f, ylabel);
	fprintf(f, "\n");
	if (panel == 3)
		fprintf(f, "set xlabel 'simulated time (s)'\n");

	double ymax = 0;
	int drawn = 0;
	for (int i = 0; i < p->nr_files; i++) {
		drawn += e[i].points[col] > 0;
		if (e[i].ymax[col] > ymax)
			ymax = e[i].ymax[col];
	}
	fprintf(f, ymax > 0 ? "set yrange [0:*]\n" : "set yrange [0:1]\n");
	/* 20k, 40k, ... for large counts; plain numbers below. */
	fprintf(f, ymax >= 10000 ? "set format y '%%.0s%%c'\n" : "set format y '%%g'\n");
	if (!drawn) {
		fprintf(f, "set label 1 ");
		put_gp_string(f, empty);
		fprintf(f, " at graph 0.5, graph 0.5 center\nplot -1 notitle\nunset label 1\n");
		return;
	}
	const char *block = col == COL_PASS ? "p" : "s";
	int column = col == COL_PASS ? 2 : 2 + col;
	fprintf(f, "plot ");
	for (int i = 0, n = 0; i < p->nr_files; i++) {
		if (!e[i].points[col])
			continue;
		fprintf(f, "%s$%s%d using 1:%d with linespoints lw 2 pt %d ps 0.7 dt %d lc rgb '%s' title ",
			n++ ? ", \\\n     " : "", block, i, column, 7 + (i % 3) * 2,
			1 + (i / (int)NR_COLOURS) % 4, colours[i % NR_COLOURS]);
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
	if (p->title) {
		snprintf(title, sizeof(title), "%s", p->title);
	} else {
		const char *scen = mmstat_scenario_name(p->doc[0]);
		bool same = true;
		for (int i = 1; i < p->nr_files; i++)
			same &= !strcmp(scen, mmstat_scenario_name(p->doc[i]));
		snprintf(title, sizeof(title), "numasim: %s, %d run%s, per simulated second",
			 same ? scen : "several scenarios", p->nr_files, p->nr_files == 1 ? "" : "s");
		scenario_note(p, title, sizeof(title));
	}
	fprintf(f, "set multiplot layout 4,1 title ");
	put_gp_string(f, title);
	fprintf(f, " font ',14'\n"
		   "set grid\n"
		   "set xrange [0:%.10g]\n"
		   "set lmargin 12\n"
		   "set rmargin 3\n",
		tmax > 0 ? tmax : 1);
	run_panel(f, p, label, e, "TLB shootdown interrupts per second (all CPUs)", "interrupts/s",
		  COL_TLB, 0, "no data");
	run_panel(f, p, label, e, "pages migrated per second (numa_pages_migrated)", "pages/s",
		  COL_MIG, 1, "no data");
	run_panel(f, p, label, e, "scan pass duration (mean of the passes ending in each second)", "ms",
		  COL_PASS, 2, "no scan pass ended in these runs");
	run_panel(f, p, label, e, "scan period (numa_scan_period)", "ms", COL_PERIOD, 3, "no data");
	fprintf(f, "unset multiplot\n");
}

/* ---- the ab plot ------------------------------------------------------------ */

static const struct {
	const char *key, *title, *ylabel;
	double scale;
} ab_panels[] = {
	{ "throughput_loss", "throughput loss from balancing (%)", "%", 100 },
	{ "kernel_cycles_per_hinting_pte", "kernel cycles per hinting PTE", "cycles", 1 },
	{ "tlb_irqs_per_migrated_page", "TLB interrupts per migrated page", "interrupts", 1 },
};
#define NR_AB_PANELS (sizeof(ab_panels) / sizeof(ab_panels[0]))

static int ab_script(FILE *f, const struct plot *p)
{
	char label[MAX_BARS][256];
	const json_t *kobj[MAX_BARS];
	const char *kname[MAX_BARS];
	int file_of[MAX_BARS];
	int n = 0;
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
	}

	/* $ab: label, then mean, min, max of each panel's figure. */
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

	char title[512];
	if (p->title) {
		snprintf(title, sizeof(title), "%s", p->title);
	} else {
		const json_t *d = p->doc[0];
		snprintf(title, sizeof(title),
			 "numasim ab: %s, %lld pairs of %g s per kernel (bar: mean, error bar: min-max over the pairs)",
			 mmstat_scenario_name(d), (long long)json_integer_value(json_object_get(d, "pairs")),
			 json_number_value(json_object_get(d, "simulated_seconds")));
		scenario_note(p, title, sizeof(title));
	}
	fprintf(f, "set multiplot layout 1,%d title ", (int)NR_AB_PANELS);
	put_gp_string(f, title);
	fprintf(f, " font ',13'\n"
		   "set style fill solid 0.55 border -1\n"
		   "set boxwidth 0.6\n"
		   "set grid ytics\n"
		   "set xrange [-0.7:%f]\n"

		   "set xtics nomirror scale 0\n"
		   "set bmargin %d\n",
		n - 0.3, n > 2 ? 8 : 4);
	if (n > 2)
		fprintf(f, "set xtics rotate by -35 left\n");
	fprintf(f, "set linetype cycle %d\n", (int)NR_COLOURS);
	for (size_t c = 0; c < NR_COLOURS; c++)
		fprintf(f, "set linetype %zu lc rgb '%s'\n", c + 1, colours[c]);
	for (size_t q = 0; q < NR_AB_PANELS; q++) {
		int mean = 2 + 3 * (int)q;
		fprintf(f, "set title ");
		put_gp_string(f, ab_panels[q].title);
		fprintf(f, "\nset ylabel ");
		put_gp_string(f, ab_panels[q].ylabel);
		fprintf(f, "\n");
		/* Bars start at 0: keep 0 in range, and below it only if a
		 * figure is negative (balancing can gain throughput). */
		if (hi[q] == lo[q])
			fprintf(f, "set yrange [0:1]\n");
		else
			fprintf(f, "set yrange [%s:%s]\n", lo[q] < 0 ? "*" : "0", hi[q] > 0 ? "*" : "0");
		/* Room for the value labels above the bars. */
		fprintf(f, "set offsets 0, 0, graph %s, graph %s\n", hi[q] > 0 ? "0.12" : "0.05",
			lo[q] < 0 ? "0.05" : "0");
		if (!bars[q]) {
			fprintf(f, "unset xtics\nset label 1 'no data' at graph 0.5, graph 0.5 center\n"
				   "plot -1 notitle\nunset label 1\nset xtics nomirror scale 0%s\n",
				n > 2 ? " rotate by -35 left" : "");
			continue;
		}
		fprintf(f, "plot $ab using 0:%d:(column(0)+1):xtic(1) with boxes lc variable notitle, \\\n"
			   "     $ab using 0:%d:%d:%d with yerrorbars lc rgb 'black' lw 1.5 pt 7 ps 0 notitle, \\\n"
			   "     $ab using 0:(column(%d) > 0 ? column(%d) : 0):(abs(column(%d)) >= 1000 ? "
			   "sprintf('%%.0f', column(%d)) : sprintf('%%.3g', column(%d))) "
			   "with labels offset 0,0.9 notitle\n",
			mean, mean, mean + 1, mean + 2, mean + 2, mean + 2, mean, mean, mean);
	}
	fprintf(f, "unset multiplot\n");
	return 0;
}

/* ---- running gnuplot -------------------------------------------------------- */

static void write_script(FILE *f, const struct plot *p, const char *tmp)
{
	if (p->png) {
		fprintf(f, "if (strstrt(GPVAL_TERMINALS, ' pngcairo ') > 0) {\n"
			   "    set terminal pngcairo size %d,%d font 'DejaVu Sans,11' noenhanced background rgb 'white'\n"
			   "} else {\n"
			   "    if (strstrt(GPVAL_TERMINALS, ' png ') > 0) {\n"
			   "        set terminal png size %d,%d noenhanced background rgb 'white'\n"
			   "    } else {\n"
			   "        print 'numasim plot: this gnuplot has no png terminal (pngcairo or png): "
			   "write .svg instead, or install gnuplot-nox'\n"
			   "        exit status %d\n"
			   "    }\n"
			   "}\n",
			p->kind == MMSTAT_RESULT_RUN ? 1100 : 1500, p->kind == MMSTAT_RESULT_RUN ? 1300 : 600,
			p->kind == MMSTAT_RESULT_RUN ? 1100 : 1500, p->kind == MMSTAT_RESULT_RUN ? 1300 : 600,
			EXIT_NO_GNUPLOT);
	} else {
		fprintf(f, "set terminal svg size %d,%d noenhanced font 'Helvetica,13' background rgb 'white'\n",
			p->kind == MMSTAT_RESULT_RUN ? 1100 : 1500, p->kind == MMSTAT_RESULT_RUN ? 1300 : 600);
	}
	fprintf(f, "set output '");
	for (const char *c = tmp; *c; c++) /* no control characters: check_output */
		fprintf(f, *c == '\'' ? "''" : "%c", *c);
	fputc('\'', f);
	fprintf(f, "\n");
	if (p->kind == MMSTAT_RESULT_RUN)
		run_script(f, p);
	else
		ab_script(f, p);
	fprintf(f, "unset output\nexit\n");
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

static int run_gnuplot(const struct plot *p, const char *gnuplot)
{
	char err[9000];
	struct outfile out;
	if (outfile_open(&out, "-o", p->out, err, sizeof(err))) {
		cli_error("numasim plot: ", err);
		return EXIT_INPUT;
	}
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
	write_script(f, p, out.tmp);
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
	} else if (lstat(out.tmp, &st) || !S_ISREG(st.st_mode) || st.st_size == 0) {
		fprintf(stderr, "numasim plot: gnuplot wrote nothing\n");
		rc = 1;
	} else if (outfile_commit(&out, err, sizeof(err))) {
		cli_error("numasim plot: ", err);
		rc = 1;
	}
	if (rc)
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

int plot_script(int nfiles, char **paths, const char *out, FILE *f)
{
	struct plot p = { .out = out };
	int rc = EXIT_INPUT;
	if (nfiles < 1 || nfiles > MAX_FILES)
		return EXIT_INPUT;
	p.png = ends_with(out, ".png");
	if (!load_inputs(&p, nfiles, paths)) {
		write_script(f, &p, "plot.tmp");
		rc = 0;
	}
	for (int i = 0; i < p.nr_files; i++)
		json_decref(p.doc[i]);
	return rc;
}

static int check_output(const struct plot *p)
{
	char err[9000];
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
	if (!ends_with(p->out, ".svg") && !ends_with(p->out, ".png")) {
		fprintf(stderr, "numasim plot: -o %s: unknown image type (use FILE.svg or FILE.png)\n",
			p->out);
		return -1;
	}
	return 0;
}

int cmd_plot(int argc, char **argv)
{
	enum { OPT_TITLE = 256 };
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "title", required_argument, NULL, OPT_TITLE },
		{ "help", no_argument, NULL, 'h' },
		{ 0, 0, 0, 0 },
	};
	struct plot p = { 0 };
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
		fprintf(stderr, "numasim plot: -o FILE.svg|FILE.png is required\n"
			"Try 'numasim plot --help'.\n");
		return EXIT_INPUT;
	}
	if (argc - optind > MAX_FILES) {
		fprintf(stderr, "numasim plot: at most %d files\n", MAX_FILES);
		return EXIT_INPUT;
	}
	if (check_output(&p))
		return EXIT_INPUT;
	p.png = ends_with(p.out, ".png");

	if (load_inputs(&p, argc - optind, argv + optind))
		goto out;

	char *gnuplot = find_gnuplot();
	if (!gnuplot) {
		fprintf(stderr, "numasim plot: gnuplot not found: install gnuplot-nox "
			"(scripts/deps.sh --optional)\n");
		rc = EXIT_NO_GNUPLOT;
		goto out;
	}
	rc = run_gnuplot(&p, gnuplot);
	free(gnuplot);
out:
	for (int i = 0; i < p.nr_files; i++)
		json_decref(p.doc[i]);
	return rc;
}
