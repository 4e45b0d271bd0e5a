/* cli/plot.c's gnuplot script, without gnuplot: the run plot's data leave
 * out the first second (the start-up) and a scan period not yet set, and
 * carry the histograms of mmu_gather durations and migration-to-flush
 * delays; each output format picks
 * its terminal. */
#define _DEFAULT_SOURCE /* mkstemps */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli/cli.h"

static const char run_json[] =
	"{\"kernel\": \"v7.3\", \"seed\": 1, \"scenario\": \"t\", \"vmstat\": {},\n"
	" \"timeseries\": {\"t_s\": [1, 2, 3], \"tlb_irqs_per_s\": [0, 5, 6],\n"
	"   \"migrations_per_s\": [0, 1, 2], \"pass_ms\": [0, 0, 3], \"scan_period_ms\": [0, 250, 1000]},\n"
	" \"node_vmstat\": [{\"numa_hit\": 10, \"numa_miss\": 0, \"numa_foreign\": 2, \"numa_interleave\": 1,\n"
	"   \"numa_local\": 9, \"numa_other\": 1}, {\"numa_hit\": 5, \"numa_miss\": 2, \"numa_foreign\": 0,\n"
	"   \"numa_interleave\": 0, \"numa_local\": 7, \"numa_other\": 0}],\n"
	" \"histograms\": {\"numa_gather_us\": {\"lower_us\": [0, 1, 2, 4], \"count\": [0, 0, 4, 0]},\n"
	"   \"migrate_flush_delay_ns\": {\"lower_ns\": [0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048],\n"
	"     \"count\": [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7, 0]}}}\n";

/* Write @text to a new temporary JSON file named after @name; its path to @path. */
static void tmp_json(char *path, size_t size, const char *name, const char *text)
{
	const char *tmp = getenv("TMPDIR");
	size_t len = strlen(text);
	snprintf(path, size, "%s/plot-%s-XXXXXX.json", tmp && *tmp ? tmp : "/tmp", name);
	int fd = mkstemps(path, 5);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
}

/* The script for @out, in a malloc'd string. */
static char *script_for(const char *out)
{
	char path[512], *buf = NULL;
	size_t len = 0;
	tmp_json(path, sizeof(path), "run", run_json);
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	char *paths[] = { path };
	assert_int_equal(plot_script(1, paths, out, f), 0);
	fclose(f);
	unlink(path);
	return buf;
}

static void test_run_data(void **state)
{
	(void)state;
	char *s = script_for("x.svg");
	/* from the second second; no scan period yet is no point */
	assert_non_null(strstr(s, "$s0 << EOD\n2 5 1 250\n3 6 2 1000\nEOD\n"));
	assert_non_null(strstr(s, "$p0 << EOD\n3 3\nEOD\n"));
	assert_non_null(strstr(s, "set xrange [1:3]\n"));
	/* the histogram, and its axis an empty bucket either side of the data */
	assert_non_null(strstr(s, "$h0 << EOD\n0 0\n1 0\n2 4\n3 0\nEOD\n"));
	assert_non_null(strstr(s, "set xtics ('1' 1, '2' 2, '4' 3)"));
	assert_non_null(strstr(s, "with histeps"));
	/* the migration-to-flush delays: the same, its tics with units */
	assert_non_null(strstr(s, "$d0 << EOD\n0 0\n1 0\n"));
	assert_non_null(strstr(s, "\n11 7\n12 0\nEOD\n"));
	/* one unit per axis, in its label, one format for every tic */
	assert_non_null(strstr(s, "set xlabel \"delay (ns, log2 bucket lower bound)\""));
	assert_non_null(strstr(s, "set xtics ('512' 10, '1024' 11, '2048' 12)"));
	assert_non_null(strstr(s, "$d0 using 1:2 with histeps"));
	assert_non_null(strstr(s, "set terminal svg "));
	free(s);
}

/* --kind nodes: a row per node with the six counters, a panel each, the
 * node tics; an unknown kind is refused. */
static void test_nodes(void **state)
{
	(void)state;
	char path[512], *buf = NULL;
	size_t len = 0;
	tmp_json(path, sizeof(path), "nodes", run_json);
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	char *paths[] = { path };
	assert_int_equal(plot_script_kind(1, paths, "x.svg", "nodes", f), 0);
	assert_int_not_equal(plot_script_kind(1, paths, "x.svg", "bogus", f), 0);
	fclose(f);
	unlink(path);
	assert_non_null(strstr(buf, "$n0 << EOD\n0 10 0 2 1 9 1 NaN\n1 5 2 0 0 7 0 NaN\nEOD\n"));
	assert_non_null(strstr(buf, "set xtics ('node 0' 0, 'node 1' 1)"));
	assert_non_null(strstr(buf, "set title \"numa_foreign\""));
	assert_non_null(strstr(buf, "$n0 using ($1+0):4 with boxes"));
	assert_null(strstr(buf, "$s0")); /* not the time series */
	free(buf);
}

/* --kind convergence: a block per process with the ended-local fault
 * share and the memory share in %, a second without faults as NaN, the
 * 90% line, the legend saying when each converged; a share above 1 is
 * refused on loading. */
static const char conv_json[] =
	"{\"kernel\": \"v7.3\", \"seed\": 1, \"scenario\": \"t\", \"vmstat\": {},\n"
	" \"timeseries\": {\"t_s\": [1, 2, 3], \"task_node_moves_per_s\": [0, 4, 0]},\n"
	" \"convergence\": {\"processes\": [\n"
	"   {\"converged_s\": 2, \"ended_local_fault_share\": [0.5, null, 1],\n"
	"    \"memory_local_share\": [0.5, 0.95, 1]},\n"
	"   {\"converged_s\": null, \"ended_local_fault_share\": [0.25, 0.5, 0.5],\n"
	"    \"memory_local_share\": [0.5, 0.5, 0.5]}]}}\n";

static void test_convergence(void **state)
{
	(void)state;
	char path[512], *buf = NULL;
	size_t len = 0;
	tmp_json(path, sizeof(path), "conv", conv_json);
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	char *paths[] = { path };
	assert_int_equal(plot_script_kind(1, paths, "x.svg", "convergence", f), 0);
	fclose(f);
	unlink(path);
	assert_non_null(strstr(buf, "$c0_0 << EOD\n1 50 50\n2 NaN 95\n3 100 100\nEOD\n"));
	assert_non_null(strstr(buf, "$c0_1 << EOD\n1 25 50\n2 50 50\n3 50 50\nEOD\n"));
	assert_non_null(strstr(buf, "$m0 << EOD\n1 0\n2 4\n3 0\nEOD\n"));
	assert_non_null(strstr(buf, "process 0: converged at 2 s"));
	assert_non_null(strstr(buf, "process 1: not converged"));
	assert_non_null(strstr(buf, "90 with lines"));
	assert_null(strstr(buf, "$s0")); /* not the time series */
	free(buf);

	/* a share above 1 is not a share */
	char bad[sizeof(conv_json) + 8];
	snprintf(bad, sizeof(bad), "%s", conv_json);
	char *at = strstr(bad, "0.95");
	memcpy(at, "1.95", 4);
	tmp_json(path, sizeof(path), "conv-bad", bad);
	buf = NULL;
	f = open_memstream(&buf, &len);
	assert_int_not_equal(plot_script_kind(1, paths, "x.svg", "convergence", f), 0);
	fclose(f);
	unlink(path);
	free(buf);
}

/* An ab result with a published block: the ranges go beside the bars
 * (scaled as the panel: the loss in %), absent figures are NaN, the
 * source reaches gnuplot as a quoted string only (a line end in it, or a
 * range whose ends are reversed, is refused on loading). */
static const char ab_json[] =
	"{\"kernels\": {\"v7.3\": {\"throughput_loss\": [0.05, 0.06],\n"
	"   \"kernel_cycles_per_hinting_pte\": [1000, 1200], \"tlb_irqs_per_migrated_page\": [170, 180]},\n"
	"  \"v7.3+single-folio-v2\": {\"throughput_loss\": [0.001, 0.002]}},\n"
	" \"pairs\": 2, \"scenario\": \"seed\", \"simulated_seconds\": 5,\n"
	" \"published\": {\"source\": \"it's \\\"x\\\" `touch pwned` \\\\ system('touch pwned')\",\n"
	"   \"kernels\": {\"v7.3\": {\"throughput_loss\": [0.13, 0.165], \"tlb_irqs_per_migrated_page\": [202, 210]},\n"
	"     \"v7.3+single-folio-v2\": {}}}}\n";

static void test_ab_published(void **state)
{
	(void)state;
	char path[512], *buf = NULL;
	size_t len = 0;
	tmp_json(path, sizeof(path), "ab", ab_json);
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	char *paths[] = { path };
	assert_int_equal(plot_script(1, paths, "x.svg", f), 0);
	fclose(f);
	unlink(path);
	/* v7.3: loss 13-16.5 %, no cycles, 202-210 interrupts; +v2: none */
	/* columns: elapsed, call rate, loss, throughput, cycles, interrupts */
	assert_non_null(strstr(buf, "$pub << EOD\n0.42 NaN NaN NaN NaN NaN NaN 14.75 13 16.5 NaN NaN NaN "
				    "NaN NaN NaN 206 202 210\n"
				    "1.42 NaN NaN NaN NaN NaN NaN NaN NaN NaN NaN NaN NaN NaN NaN NaN NaN NaN NaN\nEOD\n"));
	assert_non_null(strstr(buf, "$pub using 1:8:9:10 with yerrorbars"));
	assert_non_null(strstr(buf, "$pub using 1:17:18:19 with yerrorbars"));
	assert_null(strstr(buf, "$pub using 1:14:15:16")); /* no published cycles: not drawn */
	/* no elapsed time nor calls in the results: the loss leads */
	assert_non_null(strstr(buf, "set title \"throughput loss from balancing\""));
	assert_null(strstr(buf, "elapsed time"));
	/* the source: double-quoted, '"', '\\' and the backquote (a shell
	 * command in a double-quoted gnuplot string) as octal escapes */
	assert_non_null(strstr(buf, "set label 98 \"published (diamond, min-max), from it's \\042x\\042 "
				    "\\140touch pwned\\140 \\134 system('touch pwned')\""));
	/* the spread of the pairs is still drawn */
	assert_non_null(strstr(buf, "with vectors nohead lc rgb 'black'"));
	free(buf);
}

static size_t count_of(const char *s, const char *what)
{
	size_t n = 0;
	for (const char *at = s; (at = strstr(at, what)); at += strlen(what))
		n++;
	return n;
}

/* The ab figure's plot areas at fixed places, the same size: stacked at
 * column width, the kernel names under the lowest panel only and the
 * others without x tics; in a row at page width, names under each.  Long
 * names turn and end at their bar.  Each y axis has a 1-2-5 step of at
 * least a fifth of its top: interrupts up to 210, a step of 50. */
static void test_ab_layout(void **state)
{
	(void)state;
	char path[512], *buf = NULL;
	size_t len = 0;
	tmp_json(path, sizeof(path), "ab", ab_json);
	char *paths[] = { path };
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(plot_script_width(1, paths, "x.svg", NULL, "column", f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "set multiplot layout 3,1 title "));
	assert_non_null(strstr(buf, " margins "));
	assert_non_null(strstr(buf, " spacing 0.0000,"));
	assert_int_equal(count_of(buf, "xtic(1)"), 1);
	assert_int_equal(count_of(buf, "unset xtics\n"), 2);
	assert_non_null(strstr(buf, "rotate by 35 right"));
	assert_null(strstr(buf, "set bmargin"));
	assert_non_null(strstr(buf, "set ytics 50\n"));
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(plot_script_width(1, paths, "x.svg", NULL, "page", f), 0);
	fclose(f);
	unlink(path);
	assert_non_null(strstr(buf, "set multiplot layout 1,3 title "));
	assert_int_equal(count_of(buf, "xtic(1)"), 3);
	assert_int_equal(count_of(buf, "unset xtics\n"), 0);
	free(buf);
}

static void test_formats(void **state)
{
	(void)state;
	char *s = script_for("x.pdf");
	assert_non_null(strstr(s, "set terminal pdfcairo "));
	assert_non_null(strstr(s, "exit status 3")); /* a gnuplot without pdfcairo */
	free(s);
	s = script_for("x.txt");
	assert_non_null(strstr(s, "set terminal dumb "));
	assert_null(strstr(s, "font"));
	free(s);
	s = script_for("-");
	assert_non_null(strstr(s, "set terminal dumb "));
	assert_null(strstr(s, "set output")); /* gnuplot's stdout is numasim's */
	free(s);
	s = script_for("x.png");
	assert_non_null(strstr(s, "pngcairo"));
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_data),
		cmocka_unit_test(test_formats),
		cmocka_unit_test(test_nodes),
		cmocka_unit_test(test_convergence),
		cmocka_unit_test(test_ab_published),
		cmocka_unit_test(test_ab_layout),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
